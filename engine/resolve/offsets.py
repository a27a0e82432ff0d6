"""Resolving a derived metric's offset inputs: each aggregate under an offset gets its own aggregation.

`offset_input` expands an input of a derived expression whose `inputs:` entry has an offset;
while an offset input is expanded, every aggregate it reaches is keyed by the offset, so it never
shares a CTE with the same measure read in its own period (sql/offsets.py renders those groups).
An offset input inside another (a metric read at an offset whose own inputs are read at an offset)
reads at both: the outer offset, then the inner one (`Offset.then`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from ..errors import Location, QueryError
from ..layer.model import SUB_DAILY_GRAINS, TIME_GRAINS, Metric, MetricInput, Offset, SemanticLayer
from .resolved import Aggregation, CumulativeRead

if TYPE_CHECKING:
    from .names import MeasureRef
    from .query_resolver import Inherited, QueryResolver


def offset_key(offset: Offset | None) -> str:
    """The part of an aggregate's identity that says which period it reads."""
    if offset is None:
        return ""
    return "".join(f"@{step}{'/metric' if step.on_metric else ''}" for step in offset.steps)


def offset_input(resolution: QueryResolver, metric: Metric, listed: MetricInput, target: MeasureRef | Metric, field: str,
                 stack: tuple[str, ...], inherited: Inherited) -> exp.Expression:
    """A derived input with an offset, expanded: every aggregate it reaches is keyed (and rendered) by the offset;
    its filters (inherited: the metric's own and the input's) select the rows before they are shifted."""
    assert listed.offset is not None
    outer = resolution.offset
    step = replace(listed.offset, on_metric=isinstance(target, Metric) and target.type in ("ratio", "derived"))
    # nested: this input of a metric read at an offset reads the period the outer offset gives, shifted again
    # (MetricFlow shifts the inner metric's result: inner(outer(d)) day by day, as composing the shifts does)
    resolution.offset = step if outer is None else outer.followed_by(step)
    try:
        return resolution.expand(target, field, stack, inherited)
    finally:
        resolution.offset = outer


def check_offset_keys(layer: SemanticLayer, group: Aggregation, offset: Offset, origin: str) -> Offset:
    """An offset input needs its measure's time axis in the query, as MetricFlow requires metric_time."""
    measure = group.columns[0].measure
    running = group.reads.metric if isinstance(group.reads, CumulativeRead) else None
    if running is not None and offset.then is not None:
        raise QueryError(f"cumulative metric '{running.name}' is read at nested offsets ({offset}); an offset of a "
                         "metric whose inputs are read at an offset is supported on simple, ratio and derived inputs only",
                         code="unsupported_offset", location=Location(field=origin))
    if running is not None:  # its own time dimension in group_by is checked with the cumulative group
        check_custom_offset(layer, offset, ["day"], True, origin)
        return offset
    dim = layer.models[group.model].time_dimension_of(measure)
    if dim is None:
        raise QueryError(f"measure {measure.qualified_name} is read at an offset ({offset}) but has no time dimension; declare "
                         f"default_time_dimension on model {group.model} (or time_dimension on the measure)",
                         code="missing_time_dimension", location=Location(field=origin))
    # at a grain, or a date part only (MetricFlow's: the shifted spine day's weekday), read by day
    if not any(ref.dimension is dim and not ref.keys for ref in group.keys):
        raise QueryError(f"an offset input ({offset}, measure {measure.qualified_name}) needs metric_time (or {dim.qualified_name}) "
                         "in group_by, at any grain or date part", code="missing_time_dimension", location=Location(field=origin))
    grains = [ref.grain or "day" for ref in group.keys if ref.dimension is dim and not ref.keys and not ref.date_part
              and (ref.grain or "day") in TIME_GRAINS] or ["day"]  # a custom granularity is read from the day
    check_custom_offset(layer, offset, [ref.grain or "day" for ref in group.keys if ref.dimension is dim and not ref.keys
                                        and not ref.date_part] or ["day"], running is not None, origin)
    if offset.then is not None and offset_join_grain(offset, min(grains, key=TIME_GRAINS.index)) is None:
        finest = min(grains, key=TIME_GRAINS.index)
        raise QueryError(f"measure {measure.qualified_name} is read at nested offsets ({offset}); by {finest} this is "
                         f"supported when each offset of a metric moves whole {finest}s and an offset of a measure or simple "
                         f"metric counts in {finest}s: group {dim.qualified_name} by day (metric_time__day), where any "
                         "nesting is exact", code="unsupported_offset", location=Location(field=origin))
    return offset


def check_custom_offset(layer: SemanticLayer, offset: Offset, grains: list[str], cumulative: bool, origin: str) -> None:
    """An offset counted in a custom granularity (`offset_window: 1 fiscal_quarter`) maps each spine day to the day
    at the same position in the period that many periods earlier, as MetricFlow does: one such step, read by day
    (and any grain above it or custom granularity); refused below a day, nested, or on a cumulative metric."""
    custom = layer.time_spine.custom_grains if layer.time_spine is not None else {}
    step = next((s for s in offset.steps if s.grain in custom), None)
    if step is None:
        return
    why = ("it is nested in another offset" if offset.then is not None else
           "it reads a cumulative metric" if cumulative else
           f"the query is grouped below a day ({next(g for g in grains if g in SUB_DAILY_GRAINS)})" if any(g in SUB_DAILY_GRAINS for g in grains) else
           "offset_to_grain of a custom granularity is read by day only" if step.to_grain in custom and grains != ["day"] else "")
    if why:
        raise QueryError(f"an offset in a custom granularity ({offset}) is supported as a single offset of a measure or "
                         f"metric, grouped by day or coarser: here {why}", code="unsupported_offset", location=Location(field=origin))


def is_custom_offset(layer: SemanticLayer, offset: Offset) -> bool:
    """Does this (single, checked) offset count in a custom granularity of the time spine?"""
    return layer.time_spine is not None and offset.grain in layer.time_spine.custom_grains


_MONTHS = {"month": 1, "quarter": 3, "year": 12}


def _whole_periods(step: Offset, grain: str) -> bool:
    """Does this step move a `grain` period's start onto a period start (so shifting the periods is exact)?"""
    if step.window is not None:
        unit, count = step.window.unit, step.window.count
        return unit == grain or (grain in _MONTHS and unit in _MONTHS and count * _MONTHS[unit] % _MONTHS[grain] == 0)
    return step.to_grain == grain or (grain in _MONTHS and str(step.to_grain) in _MONTHS
                                      and _MONTHS[str(step.to_grain)] >= _MONTHS[grain])


def offset_join_grain(offset: Offset, finest: str) -> str | None:
    """The grain an offset aggregation joins the spine at, given the query's finest grain of the time axis (None:
    nested offsets whose values would differ from MetricFlow's, refused).

    By day every step composes day by day (MetricFlow shifts the inner metric's daily values the same way).
    Above a day MetricFlow computes a ratio or derived metric read at an offset at the query's grain and shifts
    its periods: exact here when each such step moves whole periods, with the spine joined at that grain, and the
    step on a measure's rows (if any) counts in that grain. A single offset of a measure (or simple metric) joins
    at its own grain when the query uses it, else by day; a single offset of a derived metric by a window that is
    not whole periods keeps the per-measure day join (docs/semantic-layer.md, "Where we differ")."""
    if finest == "day" or finest in SUB_DAILY_GRAINS:  # the finest period: every step composes period by period
        return finest
    steps = offset.steps
    if len(steps) == 1 and not steps[0].on_metric:
        return finest if steps[0].grain == finest else "day"
    if all(_whole_periods(s, finest) if s.on_metric else s.grain == finest for s in steps):
        return finest
    return "day" if len(steps) == 1 else None


def check_offset_reads(group: Aggregation) -> None:
    """A cumulative metric read at an offset is looked up period by period: by day, or (offset_window) by the window's
    own unit, where periods map one to one, with its time dimension in group_by at one grain."""
    if group.offset is None or not isinstance(group.reads, CumulativeRead):
        return
    offset, metric, keys = group.offset, group.reads.metric, group.keys
    time_keys = [i for i, ref in enumerate(keys) if ref.dimension.qualified_name == metric.time_dimension]
    grains = {keys[i].grain or "day" for i in time_keys if not keys[i].date_part}
    grain = next(iter(grains)) if len(grains) == 1 else ""
    if grain not in ("day", offset.grain if offset.window is not None else "day"):
        raise QueryError(f"cumulative metric '{metric.name}' read at an offset ({offset}) is supported by day"
                         + (f" or by {offset.grain}" if offset.window is not None and offset.grain != "day" else "")
                         + f", with its time dimension in group_by at one grain (got {', '.join(sorted(grains)) or 'none'})",
                         code="unsupported_offset", location=Location(field="group_by"))
