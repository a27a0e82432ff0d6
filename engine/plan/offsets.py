"""Planning a derived metric's offset inputs: each aggregate under an offset gets its own aggregation.

`offset_input` expands an input of a derived expression whose `inputs:` entry has an offset;
while an offset input is expanded, every aggregate it reaches is keyed by the offset, so it never
shares a CTE with the same measure read in its own period (sql/offsets.py renders those groups).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ..errors import Location, QueryError
from ..layer.model import Metric, MetricInput, Offset, SemanticLayer

if TYPE_CHECKING:
    from ..smq.resolve import MeasureRef
    from .nodes import FactGroup
    from .planner import Inherited, Planner


def offset_key(offset: Offset | None) -> str:
    """The part of an aggregate's identity that says which period it reads."""
    return f"@{offset}" if offset is not None else ""


def offset_input(planner: Planner, metric: Metric, listed: MetricInput, target: MeasureRef | Metric, field: str,
                 stack: tuple[str, ...], inherited: Inherited) -> exp.Expression:
    """A derived input with an offset, expanded: every aggregate it reaches is keyed (and rendered) by the offset;
    its filters (inherited: the metric's own and the input's) select the rows before they are shifted."""
    if planner.offset is not None:
        raise QueryError(f"metric '{metric.name}': input '{listed.reference}' is read at an offset ({listed.offset}) inside another "
                         f"offset input ({planner.offset}); offsets of offsets are not supported yet",
                         code="unsupported_offset", location=Location(field=field))
    planner.offset = listed.offset
    try:
        return planner.expand(target, field, stack, inherited)
    finally:
        planner.offset = None


def check_offset_keys(layer: SemanticLayer, group: FactGroup, offset: Offset, origin: str) -> Offset:
    """An offset input needs its measure's time axis in the query, as MetricFlow requires metric_time."""
    measure = group.aggregates[0].measure
    if group.cumulative is not None:  # its own time dimension in group_by is checked with the cumulative group
        return offset
    dim = layer.models[group.model].time_dimension_of(measure)
    if dim is None:
        raise QueryError(f"measure {measure.qualified_name} is read at an offset ({offset}) but has no time dimension; declare "
                         f"default_time_dimension on model {group.model} (or time_dimension on the measure)",
                         code="missing_time_dimension", location=Location(field=origin))
    if not any(ref.dimension is dim and not ref.keys and not ref.date_part for ref in group.keys):
        raise QueryError(f"an offset input ({offset}, measure {measure.qualified_name}) needs metric_time (or {dim.qualified_name}) "
                         "in group_by, at any grain", code="missing_time_dimension", location=Location(field=origin))
    return offset
