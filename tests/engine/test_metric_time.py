"""metric_time, the common time axis: each measure on its own model's time dimension (the measure's
`time_dimension`, else its model's `default_time_dimension`), a metric's default grain (`time_grain`),
and the layer keys' validation. A test-only layer of two fact models with no shared date dimension,
run on DuckDB and SQLite and compared with hand-written SQL."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from engine import LayerValidationError, QueryError, load_layer

from .conftest import write_layer

ORDERS = """
    name: OrderModel
    table: orders
    primary_key: id
    default_time_dimension: orderDate
    dimensions:
      - {name: orderDate, type: date, expr: odate}
      - {name: shipDate, type: date, expr: sdate}
      - {name: status, type: string}
    measures:
      - {name: orderCount, agg: count, expr: id}
      - {name: shippedCount, agg: count, expr: sdate, time_dimension: shipDate}
      - {name: freight, agg: sum, expr: freight}
    metrics:
      - {name: monthlyOrders, type: simple, measure: OrderModel__orderCount, time_grain: month}
      - {name: earlyOrders, type: simple, measure: OrderModel__orderCount, filters: ["metric_time < '2024-01-15'"]}
"""
PAYMENTS = """
    name: PayModel
    table: payments
    primary_key: id
    default_time_dimension: paidOn
    dimensions:
      - {name: paidOn, type: date, expr: pdate}
    measures:
      - {name: amount, agg: sum, expr: amount}
    metrics:
      - {name: net, type: derived, expr: "PayModel__amount - OrderModel__freight", time_grain: month}
      - {name: paidPerOrder, type: ratio, numerator: PayModel__amount, denominator: OrderModel__orderCount}
"""
DATA = [
    "CREATE TABLE orders (id INT, odate DATE, sdate DATE, status VARCHAR(10), freight INT)",
    "INSERT INTO orders VALUES (1, '2024-01-01', '2024-02-03', 'a', 10), (2, '2024-01-20', NULL, 'b', 5),"
    " (3, '2024-02-01', '2024-02-02', 'a', 1), (4, '2024-03-05', '2024-03-06', 'b', 2)",
    "CREATE TABLE payments (id INT, pdate DATE, amount INT)",
    "INSERT INTO payments VALUES (1, '2024-01-02', 100), (2, '2024-02-10', 50), (3, '2024-04-01', 7)",
    "CREATE TABLE spine (d DATE)",
    "INSERT INTO spine VALUES " + ", ".join(f"('{date(2024, 1, 1) + timedelta(days=i)}')" for i in range(120)),
]


def layer_with(tmp_path: Path, **files: str | None):
    merged = {"models/orders.yml": ORDERS, "models/payments.yml": PAYMENTS, "models/items.yml": None, "joins.yml": None}
    merged.update({k.replace("__", "/") + ".yml": v for k, v in files.items()})
    return load_layer(write_layer(tmp_path, merged) / "mini")


@pytest.fixture(params=["duckdb", "sqlite"])
def run(request):
    conn = duckdb.connect() if request.param == "duckdb" else sqlite3.connect(":memory:")
    for statement in DATA:
        conn.execute(statement)

    def execute(layer, smq: dict) -> list[tuple]:
        return [tuple(str(v) if hasattr(v, "isoformat") else v for v in row)
                for row in conn.execute(layer.compile(smq, dialect=request.param)).fetchall()]

    yield execute
    conn.close()


def test_two_fact_models_line_up_on_metric_time(tmp_path: Path, run) -> None:
    layer = layer_with(tmp_path)
    rows = run(layer, {"metrics": ["OrderModel__orderCount", "PayModel__amount"], "group_by": ["metric_time__month"],
                       "order_by": ["metric_time__month"]})
    assert rows == [("2024-01-01", 2, 100), ("2024-02-01", 1, 50), ("2024-03-01", 1, None), ("2024-04-01", None, 7)]


def test_a_measure_sits_on_its_own_time_dimension(tmp_path: Path, run) -> None:
    layer = layer_with(tmp_path)
    rows = run(layer, {"metrics": ["OrderModel__orderCount", "OrderModel__shippedCount"], "group_by": ["metric_time__month"]})
    # orders by order date; shipments by ship date (order 2 was never shipped: its NULL date is its own group)
    assert sorted(rows, key=str) == sorted([("2024-01-01", 2, None), ("2024-02-01", 1, 2), ("2024-03-01", 1, 1),
                                            (None, None, 0)], key=str)


def test_metric_time_filter_applies_to_each_model_on_its_own_dimension(tmp_path: Path, run) -> None:
    layer = layer_with(tmp_path)
    rows = run(layer, {"metrics": ["OrderModel__orderCount", "PayModel__amount"], "filters": ["metric_time >= '2024-02-01'"]})
    assert rows == [(2, 57)]


def test_derived_metric_inputs_each_on_their_own_axis_and_default_grain(tmp_path: Path, run) -> None:
    layer = layer_with(tmp_path)
    # net declares time_grain: month, so a bare metric_time is by month; its output column is named as written
    sql = layer.compile({"metrics": ["net"], "group_by": ["metric_time"]})
    assert '"metric_time"' in sql
    rows = run(layer, {"metrics": ["net"], "group_by": ["metric_time"], "order_by": ["metric_time"]})
    assert rows == [("2024-01-01", 85), ("2024-02-01", 49), ("2024-03-01", None), ("2024-04-01", None)]
    # with a metric of no time_grain, the finest grain (day) wins
    rows = run(layer, {"metrics": ["net", "OrderModel__orderCount"], "group_by": ["metric_time"],
                       "filters": ["metric_time < '2024-01-03'"]})
    assert sorted(rows) == [("2024-01-01", None, 1), ("2024-01-02", None, None)]


def test_ratio_and_metric_filter_on_metric_time(tmp_path: Path, run) -> None:
    layer = layer_with(tmp_path)
    rows = run(layer, {"metrics": ["paidPerOrder", "earlyOrders", "monthlyOrders"], "group_by": ["metric_time"]})
    # monthlyOrders has time_grain month, but paidPerOrder has none: day grain
    assert ("2024-01-01", None, 1, 1) in rows and ("2024-01-02", None, None, None) in rows
    rows = run(layer, {"metrics": ["earlyOrders"]})
    assert rows == [(1,)]


def test_a_measure_without_time_dimension_is_a_clear_error(tmp_path: Path) -> None:
    layer = layer_with(tmp_path, models__payments=PAYMENTS.replace("    default_time_dimension: paidOn\n", ""))
    with pytest.raises(QueryError) as info:
        layer.compile({"metrics": ["OrderModel__orderCount", "PayModel__amount"], "group_by": ["metric_time__month"]})
    err = info.value
    assert err.code == "missing_time_dimension"
    assert "PayModel__amount" in err.message and "default_time_dimension on model PayModel" in err.message
    # without metrics, metric_time lists the time spine's periods (tests/engine/test_filters_at_every_level.py), beside other
    # dimensions crossed with their values, as MetricFlow (cases_metric_time.yml)
    assert "CROSS JOIN" in layer.compile({"group_by": ["metric_time__month", "OrderModel__status"]})


def test_cumulative_metric_grouped_by_metric_time(tmp_path: Path, run) -> None:
    cumulative = ORDERS + "      - {name: runningOrders, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__shipDate}\n"
    layer = layer_with(tmp_path, models__orders=cumulative)
    by_axis = run(layer, {"metrics": ["runningOrders"], "group_by": ["metric_time__month"]})
    by_name = run(layer, {"metrics": ["runningOrders"], "group_by": ["OrderModel__shipDate__month"]})
    assert by_axis == by_name and by_axis  # the cumulative metric's own time dimension, not the model default


def _errors(tmp_path: Path, orders: str) -> list[str]:
    with pytest.raises(LayerValidationError) as info:
        layer_with(tmp_path, models__orders=orders)
    return [e.formatted() for e in info.value.errors]


def test_time_keys_are_validated_with_file_line_and_nearest_name(tmp_path: Path) -> None:
    errs = _errors(tmp_path, ORDERS.replace("default_time_dimension: orderDate", "default_time_dimension: orderDat")
                   .replace("time_dimension: shipDate}", "time_dimension: status}")
                   .replace("time_grain: month", "time_grain: mnth"))
    text = "\n".join(errs)
    assert "orders.yml:4:" in text and "'orderDat' is not a dimension of OrderModel" in text and "did you mean 'orderDate'" in text
    assert "'status' has type string; it must be a date or timestamp dimension" in text
    assert "unknown grain 'mnth'" in text and "did you mean 'month'" in text


def test_entities_are_validated(tmp_path: Path) -> None:
    errs = _errors(tmp_path, ORDERS + "    entities:\n      - {name: order, type: primry, expr: id}\n      - {name: metric_time, type: foreign}\n")
    text = "\n".join(errs)
    assert "unknown entity type 'primry'" in text and "did you mean 'primary'" in text
    assert "'metric_time' is reserved" in text


def test_a_hidden_time_dimension_is_not_exposed_through_metric_time(tmp_path: Path) -> None:
    database = """
        name: mini
        dialect: duckdb
        access:
          roles:
            clerk: {hidden: [OrderModel__orderDate]}
    """
    layer = layer_with(tmp_path, database=database)
    smq = {"metrics": ["OrderModel__orderCount"], "group_by": ["metric_time__month"]}
    assert "odate" in layer.compile(smq)
    with pytest.raises(QueryError) as info:
        layer.compile(smq, role="clerk")
    assert info.value.code == "missing_time_dimension"
