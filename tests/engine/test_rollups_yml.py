"""rollups.yml is validated like every layer file: each wrong value at its file:line, with the nearest right name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import load_layer
from engine.errors import LayerValidationError

SHOP = Path(__file__).resolve().parents[2] / "semantic_models" / "shop"


def _layer_with(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "shop"
    shutil.copytree(SHOP, folder, ignore=shutil.ignore_patterns("data"))
    (folder / "rollups.yml").write_text(text, encoding="utf-8")
    return folder


def _errors(tmp_path: Path, text: str) -> list:
    with pytest.raises(LayerValidationError) as info:
        load_layer(_layer_with(tmp_path, text))
    return info.value.errors


def test_a_good_rollup_binds(tmp_path: Path) -> None:
    layer = load_layer(_layer_with(tmp_path, """
storage: {schema: agg}
rollups:
  - name: orders_daily
    model: OrdersModel
    measures: [orderCount, OrdersModel__customerCount]
    dimensions: [channel, CustomersModel__segment]
    time_dimension: orderDate
    grain: day
    partition_by: month
    refresh: {every: 1h}
"""))
    (rollup,) = layer.rollups
    assert rollup.model == "OrdersModel" and rollup.grain == "day" and rollup.spec.partition_by == "month"
    assert [d.column for d in rollup.dims] == ["d_ordersmodel__channel", "d_customersmodel__segment", "t_day"]
    assert rollup.table.table == "agg.orders_daily"
    assert layer.semantic.rollups.storage.warehouse is False and layer.semantic.rollups.storage.path == "rollups.duckdb"


def test_an_unknown_measure_is_named_at_its_line_with_the_nearest(tmp_path: Path) -> None:
    (err,) = _errors(tmp_path, """rollups:
  - name: r
    model: OrdersModel
    measures: [orderCont]
""")
    assert err.location.file.endswith("rollups.yml") and err.location.line == 4
    assert "orderCount" in err.suggestions and err.code == "unknown_element"


def test_an_unknown_dimension_model_grain_and_duration(tmp_path: Path) -> None:
    errors = _errors(tmp_path, """rollups:
  - name: r
    model: OrdersModel
    measures: [orderCount]
    dimensions: [chanel]
    time_dimension: orderDate
    grain: dya
    refresh: {every: soon}
  - name: s
    model: OrderModel
    measures: [orderCount]
""")
    text = "\n".join(e.formatted() for e in errors)
    assert "grain" in text and "dya" in text and "'soon' is not a duration" in text, text
    assert any("OrdersModel" in e.suggestions for e in errors), text
    codes = {e.code for e in errors}
    assert "unknown_grain" in codes and "invalid_rollup" in codes and "unknown_model" in codes


def test_a_fan_out_dimension_is_refused(tmp_path: Path) -> None:
    errors = _errors(tmp_path, """rollups:
  - name: r
    model: OrdersModel
    measures: [orderCount]
    dimensions: [PaymentsModel__method]
""")
    assert any("fans out" in e.message for e in errors), [e.message for e in errors]


def test_unknown_keys_and_warehouse_without_a_login(tmp_path: Path) -> None:
    errors = _errors(tmp_path, """storage: {warehouse: true}
rollups:
  - name: r
    model: OrdersModel
    measure: [orderCount]
""")
    text = "\n".join(e.formatted() for e in errors)
    assert "write-capable" in text and "unknown key 'measure'" in text, text


def test_a_metric_with_a_filter_is_refused_and_its_measures_are_asked_for(tmp_path: Path) -> None:
    layer = load_layer(SHOP)
    filtered = next((m for m in layer.semantic.metrics.values() if m.filters and m.type == "simple"), None)
    if filtered is None:
        pytest.skip("the demo layer has no filtered simple metric")
    model = next(m.name for m in layer.models.values() if filtered.measure in m.measures or str(filtered.measure).startswith(m.name))
    errors = _errors(tmp_path, f"rollups:\n  - name: r\n    model: {model}\n    measures: [{filtered.name}]\n")
    assert any("has filters" in e.message for e in errors)
