"""Conversion metrics' filters (own, base_measure's, conversion_measure's), offsets and a declared time grain:
each mistake reported at its file:line with the nearest valid name, and the query-time refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import QueryError, load_layer

from .conftest import MINI, errors_of, write_layer

ORDERS = MINI["models/orders.yml"].replace(
    "        dimensions:\n", "        default_time_dimension: orderDate\n        entities:\n"
    "          - {name: order, type: primary, expr: id}\n        dimensions:\n", 1)


def with_metrics(extra: str, orders: str = ORDERS) -> dict[str, str | None]:
    return {"models/orders.yml": orders + extra}


def test_conversion_filters_are_checked_where_they_are_written(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, with_metrics("""
          - name: conv
            type: conversion
            base_measure: {name: OrderModel__orderCount, filters: ["OrderModel__statuss = 'paid'"], alias: x}
            conversion_measure:
              name: OrderModel__freight
              filters: ["OrderModel__orderDat > '2024-01-01'"]
            entity: order
            filters: ["OrderModel__stat = 'x'"]
    """))
    text = "\n".join(errs)
    assert "orders.yml:20:93: metrics[2].base_measure: unknown key 'alias' (allowed: name, filters, fill_nulls_with, " \
           "join_to_timespine)" in text
    assert "orders.yml:20:60: metrics[2].base_measure.filters: 'OrderModel__statuss = 'paid'' refers to 'OrderModel__statuss', " \
           "which is not a dimension" in text and "did you mean 'OrderModel__status'" in text
    assert "orders.yml:23:17: metrics[2].conversion_measure.filters: 'OrderModel__orderDat > '2024-01-01'' refers to " \
           "'OrderModel__orderDat'" in text and "did you mean 'OrderModel__orderDate'" in text
    assert "orders.yml:25:15: metrics[2].filters: 'OrderModel__stat = 'x'' refers to 'OrderModel__stat'" in text  # its own line
    errs = errors_of(tmp_path / "2", with_metrics("""
          - name: conv
            type: conversion
            base_measure: OrderModel__orderCount
            conversion_measure: {name: OrderModel__freight, filters: ["OrderModel__status = ("]}
            entity: order
    """))
    assert any("orders.yml:21:" in e and "metrics[2].conversion_measure.filters[0]: 'OrderModel__status = (' does not parse" in e
               for e in errs), errs


def test_fill_nulls_with_and_join_to_timespine_of_a_measure_input_are_checked(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, with_metrics("""
          - name: conv
            type: conversion
            base_measure: {name: OrderModel__orderCount, fill_nulls_with: zero}
            conversion_measure:
              name: OrderModel__freight
              join_to_timespine: yes please
            entity: order
          - name: conv2
            type: conversion
            base_measure: {name: OrderModel__orderCount, fill_nulls_with: true}
            conversion_measure: OrderModel__freight
            entity: order
    """))
    text = "\n".join(errs)
    assert "orders.yml:20:" in text and "metrics[2].base_measure.fill_nulls_with: expected a number (e.g. 0), got 'zero'" in text
    assert "orders.yml:23:" in text and "metrics[2].conversion_measure.join_to_timespine: expected true or false, got 'yes please'" in text
    assert "metrics[3].base_measure.fill_nulls_with: expected a number (e.g. 0), got True" in text
    mini = {**MINI, "database.yml": MINI["database.yml"].replace("        time_spine: {table: spine, column: d}\n", "")}
    errs = errors_of(tmp_path / "2", {**mini, **with_metrics("""
          - name: conv
            type: conversion
            base_measure: OrderModel__orderCount
            conversion_measure: {name: OrderModel__freight, fill_nulls_with: 0, join_to_timespine: true}
            entity: order
    """)})
    assert any("orders.yml:21:" in e and "metrics[2].conversion_measure.join_to_timespine: metric 'conv' needs a time spine" in e
               for e in errs), errs


def test_filled_inputs_are_coalesced_and_join_the_spine(tmp_path: Path) -> None:
    root = write_layer(tmp_path, with_metrics("""
          - name: conv
            type: conversion
            base_measure: {name: OrderModel__orderCount, fill_nulls_with: 0}
            conversion_measure: {name: OrderModel__freight, fill_nulls_with: 2.5, join_to_timespine: true}
            entity: order
    """))
    layer = load_layer(root / "mini")
    sql = layer.compile({"metrics": ["conv"], "group_by": ["metric_time__day"]})
    assert "COALESCE" in sql and ", 0)" in sql and ", 2.5)" in sql and '"periods"' in sql
    assert '"periods"' not in layer.compile({"metrics": ["conv"]})  # no time key: no spine join, as MetricFlow


def test_a_declared_time_granularity_is_checked(tmp_path: Path) -> None:
    orders = ORDERS.replace("type: date,", "type: date, time_granularity: mnth,", 1)
    errs = errors_of(tmp_path, with_metrics("", orders))
    assert any("time_granularity: unknown grain 'mnth'" in e and "did you mean 'month'" in e for e in errs), errs
    orders = ORDERS.replace("{name: status, type: string,", "{name: status, type: string, time_granularity: month,", 1)
    errs = errors_of(tmp_path / "2", with_metrics("", orders))
    assert any("time_granularity: only a date or timestamp dimension has a grain" in e for e in errs), errs


def test_an_offset_on_a_conversion_metric_compiles_and_needs_metric_time(tmp_path: Path) -> None:
    root = write_layer(tmp_path, with_metrics("""
          - {name: conv, type: conversion, base_measure: OrderModel__orderCount, conversion_measure: OrderModel__freight, entity: order}
          - name: convLastWeek
            type: derived
            expr: conv
            inputs: [{name: conv, offset_window: 7 days}]
    """))
    layer = load_layer(root / "mini")
    sql = layer.compile({"metrics": ["convLastWeek"], "group_by": ["metric_time__day"]})
    assert "_periods" in sql and "INTERVAL" in sql.upper()
    with pytest.raises(QueryError) as info:
        layer.compile({"metrics": ["convLastWeek"], "group_by": ["OrderModel__status"]})
    assert info.value.code == "missing_time_dimension"


def test_a_conversion_filter_reads_the_conversion_model(tmp_path: Path) -> None:
    root = write_layer(tmp_path, with_metrics("""
          - name: conv
            type: conversion
            base_measure: OrderModel__orderCount
            conversion_measure: {name: OrderModel__freight, filters: ["OrderModel__status = 'paid'"]}
            entity: order
    """))
    layer = load_layer(root / "mini")
    sql = layer.compile({"metrics": ["conv"], "group_by": ["metric_time__month"]})
    conversions = sql[sql.index("_conversions"):sql.index("_attributed")]
    assert "'paid'" in conversions  # on the conversion events, not on the base events
    assert "'paid'" not in sql[:sql.index("_conversions")]
