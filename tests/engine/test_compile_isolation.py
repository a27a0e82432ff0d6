"""A compiled query shares no node with its layer: `Layer.compile` generates SQL from the tree in place
(`copy=False`, no deep copy), which is safe only if every layer-level expression it holds was copied.
A shared node would let one compile's dialect transforms rewrite the layer under the next compile."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlglot import exp

from engine import SUPPORTED_DIALECTS, QueryError
from engine.facade import Layer

from .test_engines import CASES, layers  # noqa: F401 - the fixture


def layer_node_ids(layer: Layer) -> set[int]:
    """id() of every sqlglot node reachable from the layer's model, its roles' filtered sources included."""
    ids: set[int] = set()
    seen: set[int] = set()

    def visit(value: Any) -> None:
        if id(value) in seen or value is None or isinstance(value, (str, int, float, bool)):
            return
        seen.add(id(value))
        if isinstance(value, exp.Expression):
            ids.update(id(node) for node in value.walk())
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                visit(getattr(value, f.name))
        elif isinstance(value, dict):
            for k, v in value.items():
                visit(k)
                visit(v)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                visit(v)

    visit(layer.semantic)
    visit(dict(layer.semantic.memo._data))  # what compiles keep per layer (parsed filters, resolved names) and reuse
    for role in layer.semantic.roles:
        for dialect in SUPPORTED_DIALECTS:
            visit(layer.restricted_sources(role, dialect))
    return ids


@pytest.mark.parametrize("layer_name", ["shop", "shop_with_extra_metrics", "shop_extra_on_time_axis"])
def test_no_compiled_tree_holds_a_layer_node(layers, layer_name: str) -> None:  # noqa: F811
    layer = layers[layer_name]
    roles = [None, *layer.semantic.roles]
    cases = [(case, dialect, role) for case in CASES if case.get("layer", "shop") == layer_name
             for dialect in SUPPORTED_DIALECTS for role in roles]

    def compiled(case: dict, dialect: str, role: str | None) -> exp.Query | None:
        try:
            return layer.compile_expression(case["smq"], dialect=dialect, role=role)
        except QueryError:
            return None  # refused for this dialect or hidden from this role

    for args in cases:  # once first: what the layer memoises per query shape is then in its memo, and walked too
        compiled(*args)
    owned = layer_node_ids(layer)
    assert len(owned) > 100  # the walk found the layer's expressions
    checked = 0
    for case, dialect, role in cases:
        tree = compiled(case, dialect, role)
        if tree is None:
            continue
        shared = [node for node in tree.walk() if id(node) in owned]
        assert not shared, f"{case['name']} on {dialect} as {role}: {shared[0].sql()!r} is the layer's own node (or its memo's)"
        checked += 1
    assert checked > 50
