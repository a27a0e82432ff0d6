"""Rollups (aggregate awareness, docs/rollups.md): declared in rollups.yml (engine/layer/rollups.py), bound to the
layer's elements here (`bind.py`), and chosen for a resolved query's aggregations only when the answer is provably the
one the facts give (`route.py`). A stage between resolve and plan: it imports resolve and layer, never plan or render.
"""
