"""Layer filters read as query filters (MetricFlow templates, the query's messages for grains and date parts),
and cross-file errors at the line of the key they are about (a conversion's entity and constant properties, a
non-additive dimension's window_groupings, each metric filter)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import LayerValidationError, load_layer

from ..conftest import errors_of, write_layer
from ..test_conversion_filters_validation import ORDERS, with_metrics


def _lines(errs: list[str]) -> list[str]:
    """Each error from its file name on: `orders.yml:20:93: metrics[2]...`."""
    return [re.sub(r"^.*[/\\]", "", e) for e in errs]


def _line_of(text: str, needle: str) -> int:
    """The 1-based line of `needle` in the dedented orders.yml `text` (as write_layer writes it)."""
    import textwrap

    return textwrap.dedent(text).lstrip("\n").splitlines().index(next(
        line for line in textwrap.dedent(text).lstrip("\n").splitlines() if needle in line)) + 1


def test_templates_in_metric_filters_are_read_as_in_queries(tmp_path: Path) -> None:
    extra = """
          - name: shippedT
            type: simple
            measure: OrderModel__orderCount
            filters: ["{{ Dimension('OrderModel__status') }} = 'shipped'"]
          - name: repeatT
            type: simple
            measure: OrderModel__orderCount
            filters: ["{{ Metric('OrderModel__orderCount', group_by=['order']) }} > 1"]
          - name: repeatN
            type: simple
            measure: OrderModel__orderCount
            filters: ["METRIC(OrderModel__orderCount, order) > 1"]
          - name: ratioT
            type: ratio
            numerator: {name: OrderModel__orderCount, filters: ["{{ Dimension('order__status') }} = 'shipped'"]}
            denominator: OrderModel__orderCount
          - name: convT
            type: conversion
            base_measure: {name: OrderModel__orderCount, filters: ["{{ Dimension('OrderModel__status') }} = 'x'"]}
            conversion_measure: OrderModel__freight
            entity: order
    """
    layer = load_layer(write_layer(tmp_path, with_metrics(extra)) / "mini")
    assert layer.compile({"metrics": ["shippedT"]}) == layer.compile({"metrics": ["shippedCount"]}).replace("shippedCount", "shippedT")
    assert layer.compile({"metrics": ["repeatT"]}) == layer.compile({"metrics": ["repeatN"]}).replace("repeatN", "repeatT")
    layer.compile({"metrics": ["ratioT", "convT"]})


def test_a_wrong_template_in_a_layer_filter_is_named_at_its_line(tmp_path: Path) -> None:
    extra = """
          - name: noGroupBy
            type: simple
            measure: OrderModel__orderCount
            filters: ["{{ Metric('OrderModel__orderCount') }} > 1"]
          - name: badCall
            type: simple
            measure: OrderModel__orderCount
            filters: ["{{ Dimenson('OrderModel__status') }} = 'x'"]
          - name: typoMetric
            type: simple
            measure: OrderModel__orderCount
            filters: ["{{ Metric('OrderModel__ordrCount', group_by=['order']) }} > 1"]
    """
    text = ORDERS + extra
    errs = _lines(errors_of(tmp_path, with_metrics(extra)))
    joined = "\n".join(errs)
    assert "STRUCT" not in joined and "write METRIC(" not in joined, joined
    assert any(e.startswith(f"orders.yml:{_line_of(text, 'Metric(' + chr(39) + 'OrderModel__orderCount' + chr(39) + ')')}:")
               and "{{ Metric('OrderModel__orderCount') }} needs group_by=[...]" in e for e in errs), errs
    assert any(e.startswith(f"orders.yml:{_line_of(text, 'Dimenson')}:")
               and "expected one of Dimension, TimeDimension, Entity, Metric(...)" in e for e in errs), errs
    assert any(e.startswith(f"orders.yml:{_line_of(text, 'ordrCount')}:") and "unknown element 'OrderModel__ordrCount'" in e
               and "did you mean 'OrderModel__orderCount'" in e for e in errs), errs


def test_layer_filters_give_the_query_messages_for_grains_and_date_parts(tmp_path: Path) -> None:
    extra = """
          - name: badAxis
            type: simple
            measure: OrderModel__orderCount
            filters: ["metric_time__fortnight = '2024-01-01'"]
          - name: badPart
            type: simple
            measure: OrderModel__orderCount
            filters: ["OrderModel__status__extract_dow = 1"]
    """
    text = ORDERS + extra
    errs = _lines(errors_of(tmp_path, with_metrics(extra)))
    assert any(e.startswith(f"orders.yml:{_line_of(text, 'fortnight')}:") and "write metric_time or metric_time__<grain> (second, minute, hour, day, week"
               in e for e in errs), errs
    assert any(e.startswith(f"orders.yml:{_line_of(text, 'extract_dow')}:") and "date part 'dow' needs a date or timestamp "
               "dimension, but OrderModel__status is string" in e for e in errs), errs
    assert not any("metric filters use dimensions only" in e for e in errs), errs


def test_conversion_entity_and_constant_properties_are_reported_at_their_keys(tmp_path: Path) -> None:
    extra = """
          - name: conv
            type: conversion
            base_measure: OrderModel__orderCount
            conversion_measure: OrderModel__freight
            entity: ordr
            constant_properties:
              - base_property: OrderModel__stat
                conversion_property: OrderModel__statu
    """
    text = ORDERS + extra
    root = write_layer(tmp_path, with_metrics(extra))
    with pytest.raises(LayerValidationError) as info:
        load_layer(root / "mini")
    by_field = {e.location.field: e for e in info.value.errors}
    entity = by_field["metrics[2].entity"]
    assert entity.location.line == _line_of(text, "entity: ordr") and entity.location.column == 13  # the value of `entity:`
    assert "'ordr' is not an entity of OrderModel" in entity.message
    base = by_field["metrics[2].constant_properties[0].base_property"]
    assert base.location.line == _line_of(text, "base_property: OrderModel__stat")
    conv = by_field["metrics[2].constant_properties[0].conversion_property"]
    assert conv.location.line == _line_of(text, "conversion_property: OrderModel__statu")


def test_a_misspelled_window_grouping_is_reported_at_its_own_line(tmp_path: Path) -> None:
    orders = ORDERS.replace("          - {name: freight, agg: sum, expr: freight}\n", """          - name: freight
            agg: sum
            expr: freight
            non_additive_dimension:
              name: orderDate
              window_groupings:
                - statsu
""", 1)
    errs = _lines(errors_of(tmp_path, {"models/orders.yml": orders}))
    [err] = [e for e in errs if "window_groupings" in e]
    assert err.startswith(f"orders.yml:{_line_of(orders, '- statsu')}:"), err
    assert "'statsu' is not a dimension of OrderModel" in err and "did you mean 'status'" in err


def test_a_misplaced_key_lists_every_key_the_metric_type_takes(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, with_metrics("""
          - {name: w, type: simple, measure: OrderModel__orderCount, window: 7 days}
    """))
    assert any("metrics[2].window: not used by a simple metric (it takes name, type, description, fill_nulls_with, filters, "
               "join_to_timespine, measure, time_grain)" in e for e in errs), errs


def test_a_misspelled_derived_alias_suggests_the_aliases(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, with_metrics("""
          - name: d
            type: derived
            expr: "shipped - store"
            inputs:
              - {name: shippedCount, alias: shipped}
              - {name: OrderModel__orderCount, alias: stores}
    """))
    assert any("input 'store' is not an alias of its inputs, nor a measure or metric of this layer; did you mean 'stores'" in e
               for e in errs), errs
