"""Percentile, semi-additive and filled measures in the layer format: percentile/median and semi-additive measures,
fill_nulls_with/join_to_timespine; bad YAML reported with file:line and the nearest name, approximate
percentiles compiled per dialect, and a percentile refused on an engine without one."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import SUPPORTED_DIALECTS, load_layer
from engine.errors import QueryError

from .conftest import errors_of, write_layer

ORDERS = """
    name: OrderModel
    table: orders
    primary_key: id
    dimensions:
      - {name: orderDate, type: date, expr: odate}
      - {name: status, type: string, expr: TRIM(status)}
      - {name: customerRef, type: string, expr: cust_ref}
    measures:
      - {name: orderCount, agg: count, expr: id}
      - {name: freight, agg: sum, expr: freight}
      - name: p90Freight
        agg: percentile
        percentile: 0.9
        expr: freight
      - name: approxMedianFreight
        agg: percentile
        percentile: 0.5
        use_approximate_percentile: true
        expr: freight
      - name: lastBalance
        agg: sum
        expr: freight
        non_additive_dimension: {name: orderDate, window_choice: max, window_groupings: [customerRef]}
    metrics:
      - {name: cumOrders, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate}
      - {name: ordersFilled, type: simple, measure: OrderModel__orderCount, fill_nulls_with: 0, join_to_timespine: true}
"""


def test_vocabulary_loads(tmp_path: Path) -> None:
    layer = load_layer(write_layer(tmp_path, {"models/orders.yml": ORDERS}) / "mini")
    measures = layer.semantic.models["OrderModel"].measures
    assert (measures["p90Freight"].percentile, measures["p90Freight"].discrete, measures["approxMedianFreight"].approximate) == (0.9, False, True)
    spec = measures["lastBalance"].non_additive
    assert spec is not None and (spec.dimension, spec.window_choice, spec.window_groupings) == ("orderDate", "max", ("customerRef",))
    metric = layer.semantic.metrics["ordersFilled"]
    assert metric.fill_nulls_with == 0 and metric.join_to_timespine


@pytest.mark.parametrize("bad,expected", [
    ("agg: percentile\n        expr: freight", "needs 'percentile'"),
    ("agg: percentile\n        percentile: 90\n        expr: freight", "90 is not a fraction from 0 to 1"),
    ("agg: sum\n        percentile: 0.5\n        expr: freight", "only used by agg: percentile"),
    ("agg: percentile\n        percentile: 0.5\n        use_discrete_percentile: yes please\n        expr: freight", "expected true or false"),
    ("agg: sum\n        expr: freight\n        non_additive_dimension: {name: orderDat}", "'orderDat' is not a dimension of OrderModel; did you mean 'orderDate'?"),
    ("agg: sum\n        expr: freight\n        non_additive_dimension: {name: status}", "'status' has type string"),
    ("agg: sum\n        expr: freight\n        non_additive_dimension: {name: orderDate, window_choice: last}", "'last' is not min or max"),
    ("agg: sum\n        expr: freight\n        non_additive_dimension: {name: orderDate, window_groupings: [customer]}",
     "'customer' is not a dimension of OrderModel; did you mean 'customerRef'?"),
    ("agg: median\n        expr: freight\n        non_additive_dimension: {name: orderDate}", "a median measure cannot be semi-additive"),
])
def test_bad_measure_vocabulary_is_reported_with_its_line(tmp_path: Path, bad: str, expected: str) -> None:
    text = ORDERS.replace("agg: percentile\n        percentile: 0.9\n        expr: freight", bad)
    errs = errors_of(tmp_path, {"models/orders.yml": text})
    assert any(expected in e and "models/orders.yml:" in e for e in errs), errs


@pytest.mark.parametrize("metric,expected", [
    ("{name: r, type: ratio, numerator: OrderModel__orderCount, denominator: OrderModel__orderCount, fill_nulls_with: 0}",
     "only a simple or cumulative metric takes fill_nulls_with"),
    ("{name: f, type: simple, measure: OrderModel__orderCount, fill_nulls_with: zero}", "expected a number"),
    ("{name: c, type: cumulative, measure: OrderModel__lastBalance, time_dimension: OrderModel__orderDate}",
     "is semi-additive (non_additive_dimension)"),
])
def test_bad_metric_vocabulary_is_reported(tmp_path: Path, metric: str, expected: str) -> None:
    errs = errors_of(tmp_path, {"models/orders.yml": ORDERS + f"      - {metric}\n"})
    assert any(expected in e and "models/orders.yml:" in e for e in errs), errs


def test_join_to_timespine_needs_a_time_spine(tmp_path: Path) -> None:
    from .conftest import MINI
    database = MINI["database.yml"].replace("        time_spine: {table: spine, column: d}\n", "")
    errs = errors_of(tmp_path, {"models/orders.yml": ORDERS, "database.yml": database})
    assert any("join_to_timespine" in e and "needs a time spine" in e for e in errs), errs


APPROXIMATE = {"duckdb": "APPROX_QUANTILE(", "snowflake": "APPROX_PERCENTILE(", "trino": "APPROX_PERCENTILE(",
               "spark": "PERCENTILE_APPROX(", "databricks": "PERCENTILE_APPROX(", "clickhouse": "quantile(0.5)(",
               "bigquery": "APPROX_QUANTILES(", "postgres": "PERCENTILE_CONT(0.5) WITHIN GROUP"}


@pytest.mark.parametrize("dialect", SUPPORTED_DIALECTS)
def test_percentiles_per_dialect(tmp_path: Path, dialect: str) -> None:
    layer = load_layer(write_layer(tmp_path, {"models/orders.yml": ORDERS}) / "mini")
    smq = {"metrics": ["OrderModel__approxMedianFreight", "OrderModel__p90Freight"]}
    if dialect in ("sqlite", "mysql"):
        with pytest.raises(QueryError) as err:
            layer.compile(smq, dialect=dialect)
        assert err.value.code == "unsupported_aggregation"
        assert ("SQLite" if dialect == "sqlite" else "MySQL/MariaDB") in err.value.message
        assert "OrderModel__approxMedianFreight" in err.value.message
        assert err.value.location is not None and err.value.location.field == "metrics[0]"  # the query's field, not the measure
        ratio = "      - {name: p90Ratio, type: ratio, numerator: OrderModel__p90Freight, denominator: OrderModel__orderCount}\n"
        layer = load_layer(write_layer(tmp_path / "ratio", {"models/orders.yml": ORDERS + ratio}) / "mini")
        with pytest.raises(QueryError) as err:  # through a metric: the field that names the metric
            layer.compile({"metrics": ["OrderModel__orderCount", "p90Ratio"]}, dialect=dialect)
        assert err.value.location is not None and err.value.location.field == "metrics[1]"
        return
    sql = layer.compile(smq, dialect=dialect, pretty=False)
    assert APPROXIMATE[dialect] in sql, sql
    if dialect in ("bigquery", "trino"):  # approximate only: the exact 90th percentile is approximate too
        assert sql.count(APPROXIMATE[dialect]) == 2, sql
