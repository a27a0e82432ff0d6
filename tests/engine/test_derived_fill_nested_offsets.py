"""Derived and ratio metrics over inputs that join the time spine and fill NULLs, and nested offsets:
what compiles, what is refused (with the code and what to do instead). The numbers are checked on every
engine by cases.d/derived_fill_nested_offsets.yml."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import QueryError, load_layer

from .conftest import MINI, write_layer

ORDERS = MINI["models/orders.yml"].replace("        dimensions:\n", "        default_time_dimension: orderDate\n        dimensions:\n", 1)
EXTRA = """
          - {name: filled, type: simple, measure: OrderModel__orderCount, fill_nulls_with: 0, join_to_timespine: true}
          - {name: onSpine, type: simple, measure: OrderModel__freight, join_to_timespine: true}
          - name: filledGrowth
            type: derived
            expr: filled - weekAgo
            inputs: [{name: filled, alias: weekAgo, offset_window: 7 days}]
          - {name: spineShare, type: ratio, numerator: shippedCount, denominator: onSpine}
          - name: growth
            type: derived
            expr: OrderModel__orderCount - monthAgo
            inputs: [{name: OrderModel__orderCount, alias: monthAgo, offset_window: 1 month}]
          - name: growthYearAgo
            type: derived
            expr: g
            inputs: [{name: growth, alias: g, offset_window: 1 year}]
          - name: growthWeekAgo
            type: derived
            expr: g
            inputs: [{name: growth, alias: g, offset_window: 7 days}]
          - name: cumWeekAgo
            type: derived
            expr: cumOrders
            inputs: [{name: cumOrders, offset_window: 7 days}]
          - name: cumWeekAgoYearAgo
            type: derived
            expr: c
            inputs: [{name: cumWeekAgo, alias: c, offset_window: 1 year}]
"""


@pytest.fixture()
def layer(tmp_path: Path):
    root = write_layer(tmp_path, {"models/orders.yml": ORDERS + EXTRA})
    return load_layer(root / "mini")


def test_a_filled_spine_input_gives_a_derived_metric_every_spine_period(layer) -> None:
    sql = layer.compile({"metrics": ["filledGrowth"], "group_by": ["metric_time__day"]})
    assert 'LEFT JOIN "result"' in sql and "FROM spine" in sql
    # a day the spine adds: the expression over empty inputs, each filled (0 - 0)
    assert "WHEN \"r\".\"metric_time__day\" IS NULL THEN COALESCE(NULL, 0) - COALESCE(NULL, 0)" in " ".join(sql.split())
    # a ratio whose only spine input is its denominator joins the spine too
    assert 'LEFT JOIN "result"' in layer.compile({"metrics": ["spineShare"], "group_by": ["metric_time__month"]})


def test_without_a_time_key_there_is_no_spine_join(layer) -> None:
    sql = layer.compile({"metrics": ["filledGrowth"], "group_by": ["metric_time__day", "OrderModel__status"]})
    assert 'LEFT JOIN "result"' in sql  # a time key beside other keys: still the spine
    sql = layer.compile({"metrics": ["spineShare"], "group_by": ["OrderModel__status"]})
    assert "FROM spine" not in sql


def test_nested_offsets_compose_by_day_and_at_whole_periods(layer) -> None:
    sql = " ".join(layer.compile({"metrics": ["growthYearAgo"], "group_by": ["metric_time__day"]}).split())
    # the inner offset input reads a year, then a month, earlier
    assert "INTERVAL '-1' YEAR AS DATE) + INTERVAL '-1' MONTH" in sql
    # by month: the spine's months shifted by whole months (MetricFlow shifts the inner metric's months), for the
    # inner metric's plain input too (a year's 29 February days would read 28 February twice)
    sql = " ".join(layer.compile({"metrics": ["growthYearAgo"], "group_by": ["metric_time__month"]}).split())
    assert "ON CAST(\"p\".\"period\" + INTERVAL '-1' YEAR AS DATE) = CAST(DATE_TRUNC('month', \"orders\".odate) AS DATE)" in sql
    assert "CAST(CAST(\"p\".\"period\" + INTERVAL '-1' YEAR AS DATE) + INTERVAL '-1' MONTH AS DATE) = CAST(DATE_TRUNC('month'" in sql


@pytest.mark.parametrize(("metric", "grain", "words"), [
    ("growthYearAgo", "quarter", "by quarter this is supported when each offset of a metric moves whole quarters"),
    ("growthWeekAgo", "month", "by month this is supported when each offset of a metric moves whole months"),
])
def test_nested_offsets_that_cannot_be_exact_are_refused(layer, metric: str, grain: str, words: str) -> None:
    with pytest.raises(QueryError) as info:
        layer.compile({"metrics": [metric], "group_by": [f"metric_time__{grain}"]})
    assert info.value.code == "unsupported_offset" and words in info.value.message
    assert "group OrderModel__orderDate by day (metric_time__day)" in info.value.message
    assert info.value.location is not None and info.value.location.field == "metrics[0]"


def test_a_cumulative_metric_at_nested_offsets_is_refused(layer) -> None:
    with pytest.raises(QueryError) as info:
        layer.compile({"metrics": ["cumWeekAgoYearAgo"], "group_by": ["metric_time__day"]})
    assert info.value.code == "unsupported_offset" and "cumulative metric 'cumOrders' is read at nested offsets" in info.value.message
