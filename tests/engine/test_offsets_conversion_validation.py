"""Derived inputs with time offsets and conversion metrics: each mistake reported at its file:line with
the nearest valid name, and the query-time refusals (no metric_time, nested offsets by a grain they cannot be exact at)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import QueryError, load_layer

from .conftest import MINI, errors_of

ORDERS = MINI["models/orders.yml"]


def with_metrics(extra: str, orders: str = ORDERS) -> dict[str, str | None]:
    return {"models/orders.yml": orders + extra}


def test_offset_inputs_are_checked_where_they_are_written(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, with_metrics("""
          - name: lastYear
            type: derived
            expr: OrderModel__orderCount - yearAgo
            inputs:
              - {name: OrderModel__orderCnt, alias: yearAgo, offset_window: 1 year}
              - {name: OrderModel__freight, alias: unused, offset_to_grain: mnth}
              - {name: OrderModel__freight, alias: both, offset_window: 2 days, offset_to_grain: month}
              - {name: OrderModel__freight, alias: badWindow, offset_window: a while}
    """))
    text = "\n".join(errs)
    assert "orders.yml:19:16: metrics[2].inputs[0]: input 'OrderModel__orderCnt' is not a measure or metric of this layer; " \
           "did you mean 'OrderModel__orderCount'" in text
    assert "metrics[2].inputs[1].offset_to_grain: unknown grain 'mnth'" in text and "did you mean 'month'" in text
    assert "metrics[2].inputs[1]: input 'unused' is not used by the expr of metric lastYear" in text
    assert "metrics[2].inputs[2]: give 'offset_window' or 'offset_to_grain', not both" in text
    assert "metrics[2].inputs[3].offset_window: 'a while' is not a window" in text


def test_a_cumulative_metric_read_at_an_offset_needs_one_day_grain(tmp_path: Path) -> None:
    from .conftest import write_layer

    root = write_layer(tmp_path, with_metrics("""
          - name: cumLastWeek
            type: derived
            expr: cumOrders
            inputs: [{name: cumOrders, offset_window: 7 days}]
    """))
    layer = load_layer(root / "mini")
    assert "INNER JOIN" in layer.compile({"metrics": ["cumLastWeek"], "group_by": ["OrderModel__orderDate__day"]})
    with pytest.raises(QueryError) as info:
        layer.compile({"metrics": ["cumLastWeek"], "group_by": ["OrderModel__orderDate__month"]})
    assert info.value.code == "unsupported_offset" and "supported by day" in info.value.message


def test_conversion_parameters_are_checked_with_nearest_names(tmp_path: Path) -> None:
    orders = ORDERS.replace("        dimensions:\n", "        default_time_dimension: orderDate\n        entities:\n"
                                                     "          - {name: order, type: primary, expr: id}\n        dimensions:\n", 1)
    errs = errors_of(tmp_path, with_metrics("""
          - name: conv
            type: conversion
            base_measure: OrderModel__orderCont
            conversion_measure: OrderModel__freight
            entity: ordr
            calculation: conversion_rat
            window: soon
            constant_properties:
              - {base_property: OrderModel__statuss, conversion_property: OrderModel__status}
    """, orders))
    text = "\n".join(errs)
    assert "orders.yml:23:18: metrics[2].calculation: unknown calculation 'conversion_rat'" in text
    assert "did you mean 'conversion_rate'" in text
    assert "window: 'soon' is not a window" in text
    errs = errors_of(tmp_path / "2", with_metrics("""
          - name: conv
            type: conversion
            base_measure: OrderModel__orderCont
            conversion_measure: OrderModel__freight
            entity: ordr
            constant_properties:
              - {base_property: OrderModel__statuss, conversion_property: OrderModel__status}
    """, orders))
    text = "\n".join(errs)
    assert "base_measure: 'OrderModel__orderCont' is not a measure of this layer; did you mean 'OrderModel__orderCount'" in text
    assert "entity: 'ordr' is not an entity of OrderModel" in text and "did you mean 'order'" in text
    assert "orders.yml:" in text


def test_an_offset_needs_metric_time_and_nested_offsets_by_day(tmp_path: Path) -> None:
    from .conftest import write_layer

    orders = ORDERS.replace("        dimensions:\n", "        default_time_dimension: orderDate\n        dimensions:\n", 1)
    root = write_layer(tmp_path, with_metrics("""
          - name: lastWeek
            type: derived
            expr: weekAgo
            inputs: [{name: OrderModel__orderCount, alias: weekAgo, offset_window: 1 week}]
          - name: lastWeekTwice
            type: derived
            expr: lastWeek
            inputs: [{name: lastWeek, offset_window: 2 days}]
    """, orders))
    layer = load_layer(root / "mini")
    with pytest.raises(QueryError) as info:
        layer.compile({"metrics": ["lastWeek"], "group_by": ["OrderModel__status"]})
    assert info.value.code == "missing_time_dimension" and "needs metric_time" in info.value.message
    assert "INTERVAL '-2' DAY AS DATE) + INTERVAL '-7' DAY" in layer.compile({"metrics": ["lastWeekTwice"], "group_by": ["metric_time__day"]})
    with pytest.raises(QueryError) as info:  # nested offsets by week: 2 days do not move whole weeks
        layer.compile({"metrics": ["lastWeekTwice"], "group_by": ["metric_time__week"]})
    assert info.value.code == "unsupported_offset"
    assert info.value.message.endswith("(metric_time__day), where any nesting is exact"), info.value.message  # not cut off
    sql = layer.compile({"metrics": ["lastWeek"], "group_by": ["metric_time__month"]})
    assert "INNER JOIN" in sql and "spine" in sql  # the spine's days, each reading the orders of a week before


def test_period_agg_and_periods_take_their_choices(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, with_metrics("""
          - {name: cumFirst, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate, period_agg: frist}
          - {name: cumAvg, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate, period_agg: average}
          - {name: simpleFirst, type: simple, measure: OrderModel__orderCount, period_agg: first}
          - {name: cumPeriods, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate,
             periods: nonempty_windows}
          - {name: simplePeriods, type: simple, measure: OrderModel__orderCount, periods: data_range}
    """))
    text = "\n".join(errs)
    assert "metrics[2].period_agg: 'frist' is not a period aggregation (use first, last, average); did you mean 'first'?" in text
    assert "metrics[3]" not in text  # average is a period aggregation
    assert "metrics[4].period_agg: not used by a simple metric" in text
    assert ("metrics[5].periods: 'nonempty_windows' is not a choice of periods (use data_range or nonempty_window); "
            "did you mean 'nonempty_window'?") in text
    assert "metrics[6].periods: not used by a simple metric" in text


def test_one_inputs_list_takes_filters_and_offsets_together(tmp_path: Path) -> None:
    """An input's offsets (cases.d/offsets_and_conversions.yml) and filters (filters_at_every_level.yml) are keys of
    the same `inputs:` entry (one model, one reader)."""
    from .conftest import write_layer

    orders = ORDERS.replace("        dimensions:\n", "        default_time_dimension: orderDate\n        dimensions:\n", 1)
    root = write_layer(tmp_path, with_metrics("""
          - name: shippedYearAgo
            type: derived
            expr: shipped - shippedAYearAgo
            inputs:
              - {name: OrderModel__orderCount, alias: shipped, filters: ["OrderModel__status = 'shipped'"]}
              - name: OrderModel__orderCount
                alias: shippedAYearAgo
                filters: ["OrderModel__status = 'shipped'"]
                offset_window: 1 year
    """, orders))
    layer = load_layer(root / "mini")
    spec = layer.semantic.metrics["shippedYearAgo"].input_spec("input", "shippedAYearAgo")
    assert spec is not None and spec.filters == ("OrderModel__status = 'shipped'",) and str(spec.offset) == "-1 year"
    sql = layer.compile({"metrics": ["shippedYearAgo"], "group_by": ["OrderModel__orderDate__month"]})
    assert "INNER JOIN" in sql and sql.count("'shipped'") == 2  # both inputs filtered, one of them shifted


def test_inputs_keys_and_ratio_sides_are_checked_at_their_line(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, with_metrics("""
          - name: shiftedRatio
            type: ratio
            numerator: {name: OrderModel__orderCount, offset_window: 1 year}
            denominator: OrderModel__orderCount
          - name: typo
            type: derived
            expr: a
            inputs:
              - {name: OrderModel__orderCount, alias: a, filter: ["OrderModel__status = 'x'"], offset_windw: 1 day}
              - {name: OrderModel__orderCount, alias: a__b}
    """))
    text = "\n".join(errs)
    assert "orders.yml:17:47: metrics[2].numerator: unknown key 'offset_window'" in text
    assert "metrics[3].inputs[0]: unknown key 'filter'" in text and "did you mean 'filters'" in text
    assert "unknown key 'offset_windw'" in text and "did you mean 'offset_window'" in text
    assert "metrics[3].inputs[1].alias: invalid alias 'a__b'" in text


def test_a_conversion_metric_under_a_metric_filter_filters_its_base_events(tmp_path: Path) -> None:
    from .conftest import write_layer

    orders = ORDERS.replace("        dimensions:\n", "        default_time_dimension: orderDate\n        entities:\n"
                                                     "          - {name: order, type: primary, expr: id}\n        dimensions:\n", 1)
    root = write_layer(tmp_path, with_metrics("""
          - {name: conv, type: conversion, base_measure: OrderModel__orderCount, conversion_measure: OrderModel__freight, entity: order}
          - name: shippedConv
            type: derived
            expr: conv
            inputs: [{name: conv, filters: ["OrderModel__status = 'shipped'"]}]
    """, orders))
    layer = load_layer(root / "mini")
    sql = layer.compile({"metrics": ["shippedConv"]})  # the input's filter restricts the base events (MetricFlow's)
    assert "'shipped'" in sql[sql.index("_base"):sql.index("_conversions")]


def test_a_cumulative_metric_without_its_time_dimension(tmp_path: Path) -> None:
    """An all-time one is its total (MetricFlow's answer); a window or grain to date needs periods to end at."""
    from .conftest import write_layer

    root = write_layer(tmp_path, with_metrics("""
          - {name: weekOrders, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate, window: 7 days}
          - {name: yearOrders, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate,
             grain_to_date: year}
    """))
    layer = load_layer(root / "mini")
    for metric, why in (("weekOrders", "its window (7 days) ends at a period"), ("yearOrders", "its grain_to_date (year) ends at a period")):
        with pytest.raises(QueryError) as info:
            layer.compile({"metrics": [metric], "group_by": ["OrderModel__status"]})
        assert info.value.code == "missing_time_dimension" and info.value.location.field == "metrics[0]"
        assert f"needs its time dimension OrderModel__orderDate in group_by (at any grain, e.g. OrderModel__orderDate__month): {why}" \
            in info.value.message
    sql = layer.compile({"metrics": ["cumOrders"], "group_by": ["OrderModel__status"]})
    assert "spine" not in sql and "COUNT" in sql  # all-time: the plain count per status
