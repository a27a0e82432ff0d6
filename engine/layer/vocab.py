"""Reading the metric vocabulary's extra keys: percentile measures, semi-additive measures
(non_additive_dimension) and a simple metric's fill_nulls_with / join_to_timespine.

Kept apart from elements.py so the element readers stay short; each function reports every problem
with its file:line into the reader's error collector and returns only what is valid.
"""

from __future__ import annotations

from typing import Any

from ..errors import Location, nearest
from .model import Dimension, Measure, NonAdditive
from .reader import BaseReader
from .yamlpos import YMap, YSeq, where

MEASURE_VOCAB_KEYS = ("percentile", "use_discrete_percentile", "use_approximate_percentile", "non_additive_dimension")
METRIC_VOCAB_KEYS = ("fill_nulls_with", "join_to_timespine")
# the metric types that take them: a simple metric's value per group, a cumulative one's per period (MetricFlow's
# fill_nulls_with / join_to_timespine on a cumulative metric's measure input)
FILLED_KINDS = ("simple", "cumulative")
NON_ADDITIVE_KEYS = ("name", "window_choice", "window_groupings")
WINDOW_CHOICES = ("min", "max")
# aggregates whose per-row inputs on the window's day can be summed, counted, ... once the day is chosen
SEMI_ADDITIVE_AGGS = ("sum", "count", "count_distinct", "avg", "min", "max")


def _flag(reader: BaseReader, node: YMap, key: str, file: str, field: str) -> bool:
    value = node.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        reader.errors.add(f"{field}.{key}: expected true or false, got {value!r}", where(file, node, key, field=f"{field}.{key}"),
                          code="invalid_shape")
        return False
    return value


def measure_params(reader: BaseReader, node: YMap, agg: str, file: str, field: str) -> dict[str, Any]:
    """percentile / use_discrete_percentile / use_approximate_percentile / non_additive_dimension of a measure."""
    out: dict[str, Any] = {}
    if agg == "percentile":
        value = node.get("percentile")
        loc = where(file, node, "percentile", field=f"{field}.percentile")
        if value is None:
            reader.errors.add(f"{field}: agg: percentile needs 'percentile' (a fraction from 0 to 1, e.g. 0.9)",
                              where(file, node, "agg", field=f"{field}.agg"), code="missing_key")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            reader.errors.add(f"{field}.percentile: {value!r} is not a fraction from 0 to 1 (write 0.9 for the 90th percentile)",
                              loc, code="invalid_aggregation")
        else:
            out["percentile"] = float(value)
        out["discrete"] = _flag(reader, node, "use_discrete_percentile", file, field)
        out["approximate"] = _flag(reader, node, "use_approximate_percentile", file, field)
    else:
        for key in ("percentile", "use_discrete_percentile", "use_approximate_percentile"):
            if key in node:
                reader.errors.add(f"{field}.{key}: only used by agg: percentile (this measure has agg: {agg})",
                                  where(file, node, key, field=f"{field}.{key}", at_key=True), code="invalid_aggregation")
    raw = node.get("non_additive_dimension")
    if raw is not None:
        out["non_additive"] = _non_additive(reader, node, raw, agg, file, f"{field}.non_additive_dimension")
    return out


def _non_additive(reader: BaseReader, parent: YMap, raw: Any, agg: str, file: str, field: str) -> NonAdditive | None:
    spec = reader.mapping(raw, file, field, parent, "non_additive_dimension")
    if spec is None:
        return None
    reader.known_keys(spec, NON_ADDITIVE_KEYS, file, field)
    if agg not in SEMI_ADDITIVE_AGGS:
        reader.errors.add(f"{field}: a {agg} measure cannot be semi-additive (use {', '.join(SEMI_ADDITIVE_AGGS)})",
                          where(file, parent, "non_additive_dimension", field=field, at_key=True), code="invalid_aggregation")
        return None
    name = reader.text(spec, "name", file, field, required=True)
    choice = reader.text(spec, "window_choice", file, field, default="min").lower()
    if choice not in WINDOW_CHOICES:
        reader.errors.add(f"{field}.window_choice: '{choice}' is not min or max (the first or the last day of each period)",
                          where(file, spec, "window_choice", field=f"{field}.window_choice"), code="invalid_aggregation",
                          suggestions=nearest(choice, WINDOW_CHOICES, 1))
        return None
    groupings = spec.get("window_groupings") or []
    if isinstance(groupings, str):
        groupings = [groupings]
    if not isinstance(groupings, (list, YSeq)) or not all(isinstance(g, str) for g in groupings):
        reader.errors.add(f"{field}.window_groupings: expected a list of dimension names of the model",
                          where(file, spec, "window_groupings", field=f"{field}.window_groupings"), code="invalid_shape")
        return None
    if not name:
        return None
    gfield = f"{field}.window_groupings"
    places = tuple(where(file, groupings, i, field=gfield) if isinstance(groupings, YSeq)
                   else where(file, spec, "window_groupings", field=gfield) for i in range(len(groupings)))
    return NonAdditive(name, choice, tuple(groupings), where(file, spec, "name", field=field), places)


def check_non_additive(reader: BaseReader, model: str, measure: Measure, dimensions: dict[str, Dimension]) -> bool:
    """A semi-additive measure's dimension is a time dimension of its model; its groupings are dimensions of it."""
    spec = measure.non_additive
    if spec is None:
        return True
    loc = spec.location or measure.location
    field = f"{measure.location.field}.non_additive_dimension"
    here = Location(loc.file, loc.line, loc.column, field)
    ok = True
    dim = dimensions.get(spec.dimension)
    if dim is None or not dim.is_time:
        what = "is not a dimension" if dim is None else f"has type {dim.type}; it must be a date or timestamp dimension"
        reader.errors.add(f"{field}.name: '{spec.dimension}' {what} of {model}", here, code="invalid_time_dimension",
                          suggestions=nearest(spec.dimension, [d.name for d in dimensions.values() if d.is_time]))
        ok = False
    for i, g in enumerate(spec.window_groupings):
        if g not in dimensions:
            gloc = spec.grouping_locations[i] if i < len(spec.grouping_locations) else here
            reader.errors.add(f"{field}.window_groupings: '{g}' is not a dimension of {model}", gloc, code="unknown_element",
                              suggestions=nearest(g, list(dimensions)))
            ok = False
    return ok


def metric_params(reader: BaseReader, node: YMap, kind: str, file: str, field: str) -> dict[str, Any]:
    """fill_nulls_with / join_to_timespine of a simple or cumulative metric."""
    out: dict[str, Any] = {}
    for key in METRIC_VOCAB_KEYS:
        if key in node and kind not in FILLED_KINDS:
            reader.errors.add(f"{field}.{key}: only a simple or cumulative metric takes {key} (this one is {kind})",
                              where(file, node, key, field=f"{field}.{key}", at_key=True), code="invalid_metric")
            return {}
    value = node.get("fill_nulls_with")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            reader.errors.add(f"{field}.fill_nulls_with: expected a number (e.g. 0), got {value!r}",
                              where(file, node, "fill_nulls_with", field=f"{field}.fill_nulls_with"), code="invalid_metric")
        else:
            out["fill_nulls_with"] = value
    out["join_to_timespine"] = _flag(reader, node, "join_to_timespine", file, field)
    return out
