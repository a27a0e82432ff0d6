"""saved_queries.yml in a layer: read for its shape, each compiled when the layer loads (errors at their lines),
run by name with overrides; an unknown name gets the nearest ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import load_layer
from engine.errors import LayerValidationError, QueryError
from tests.conftest import DEMO_MODELS


def _layer(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "shop"
    shutil.copytree(DEMO_MODELS / "shop", folder, ignore=shutil.ignore_patterns("data"))
    (folder / "saved_queries.yml").write_text(text, encoding="utf-8")
    return folder


GOOD = """saved_queries:
  - name: by_status
    query: {metrics: [OrdersModel__orderCount], group_by: [OrdersModel__status], order_by: [OrdersModel__status], limit: 5}
"""


def test_a_saved_query_compiles_as_its_smq_with_overrides(tmp_path: Path) -> None:
    layer = load_layer(_layer(tmp_path, GOOD))
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}
    assert layer.compile({"saved_query": "by_status"}) == layer.compile({**smq, "order_by": ["OrdersModel__status"], "limit": 5})
    assert layer.compile({"saved_query": "by_status", "limit": 2, "order_by": ["-OrdersModel__orderCount"],
                          "filters": ["OrdersModel__channel = 'web'"]}) == layer.compile(
        {**smq, "limit": 2, "order_by": ["-OrdersModel__orderCount"], "filters": ["OrdersModel__channel = 'web'"]})
    assert layer.compile('{"saved_query": "by_status"}') == layer.compile({"saved_query": "by_status"})  # JSON text too
    with pytest.raises(QueryError, match="did you mean 'by_status'") as err:
        layer.compile({"saved_query": "by_statu"})
    assert err.value.code == "unknown_saved_query"
    with pytest.raises(QueryError, match="'group_by' cannot be given with 'saved_query'"):
        layer.compile({"saved_query": "by_status", "group_by": ["OrdersModel__channel"]})


def test_a_broken_saved_query_is_a_layer_error_at_its_line(tmp_path: Path) -> None:
    text = GOOD + """  - name: broken
    query: {metrics: [OrdersModel__orderCnt]}
  - name: by_status
    query: {metrics: [OrdersModel__orderCount]}
  - name: odd
    qeury: {metrics: [OrdersModel__orderCount]}
"""
    with pytest.raises(LayerValidationError) as err:
        load_layer(_layer(tmp_path, text))
    messages = [e.formatted() for e in err.value.errors]
    assert any("saved_queries.yml:4" in m and "saved query 'broken'" in m and "OrdersModel__orderCnt" in m for m in messages)
    assert any("saved_queries.yml:6" in m and "'by_status' is defined twice" in m for m in messages)
    assert any("unknown key 'qeury'" in m for m in messages)
