"""A ResolvedQuery -> its plan (engine/plan/nodes.py): one leaf per aggregation, by how it reads its rows, then the
merge, the metric math, the spine fill and the order. Nothing here can fail on a user's input: resolution did.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from ..layer.model import SemanticLayer
from ..resolve.names import DimRef
from ..resolve.resolved import Aggregation, ConversionsRead, CumulativeRead, ResolvedQuery
from .nodes import (
    Aggregate,
    Conversion,
    ConversionOffset,
    Cumulative,
    CumulativeOffset,
    Given,
    Leaf,
    Merge,
    Node,
    OffsetAggregate,
    OrderLimit,
    Project,
    SemiAdditive,
    SpineFill,
    SpinePeriods,
)


def plan_query(query: ResolvedQuery, layer: SemanticLayer, given: Mapping[str, str] | None = None) -> Node:
    """The plan of a resolved query (or of a metric filter's subquery). `given`: aggregation id -> the table its rows
    are given in (computed elsewhere: engine/rollups/mix.py)."""
    if query.spine_only:
        dims = None
        if query.spine_cross is not None:
            inner = plan_query(query.spine_cross, layer)
            assert isinstance(inner, OrderLimit) and isinstance(inner.source, Project)
            dims = inner.source
        return OrderLimit(SpinePeriods(query.group_keys, query.where, dims), query.order_by, query.limit)
    leaves = tuple(Given(agg, given[agg.id]) if given and agg.id in given else leaf(agg) for agg in query.aggregations)
    spine = spine_key(query, layer)
    source = (leaves[0] if len(leaves) == 1 and isinstance(leaves[0], (Aggregate, SemiAdditive))
              else Merge(leaves, len(query.group_keys), filter_only(query)))
    top: Node = Project(source, query.outputs, query.having, having_as_columns=spine is not None)
    if spine is not None:
        assert isinstance(top, Project)
        top = SpineFill(top, query.group_keys, query.where, query.outputs, query.having, *spine, spine_time_dimensions(query, layer))
    assert isinstance(top, (Project, SpineFill))
    return OrderLimit(top, query.order_by, query.limit)


def filter_only(query: ResolvedQuery) -> tuple[bool, ...]:
    """Per aggregation: does no output read it, and a metric filter does? () when there is none such. (One that
    nothing reads, such as a conversion metric's base events placing its periods, lists its groups.)"""
    read = {c.name for o in query.outputs for c in o.template.find_all(exp.Column)}
    filtered = {c.name for h in query.having for c in h.find_all(exp.Column)}
    flags = tuple(not any(c.id in read for c in agg.columns) and any(c.id in filtered for c in agg.columns)
                  for agg in query.aggregations)
    return flags if any(flags) and not all(flags) else ()


def leaf(agg: Aggregation) -> Leaf:
    """The leaf that reads one aggregation's rows."""
    if isinstance(agg.reads, CumulativeRead):
        return CumulativeOffset(agg) if agg.offset is not None else Cumulative(agg)
    if isinstance(agg.reads, ConversionsRead):
        return ConversionOffset(agg) if agg.offset is not None else Conversion(agg)
    if agg.offset is not None:
        return OffsetAggregate(agg)
    return SemiAdditive(agg) if agg.semi_additive is not None else Aggregate(agg)


# -- join_to_timespine: is the spine joined, and on which key --------------------------------------------
def _joins_spine(layer: SemanticLayer, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """Does this metric, or an input of a ratio or derived metric at any depth, ask for join_to_timespine?"""
    metric = layer.metrics.get(name)
    if metric is None or name in seen:
        return False
    if metric.type in ("simple", "cumulative"):
        return metric.join_to_timespine
    if metric.type == "conversion":  # join_to_timespine on base_measure or conversion_measure
        return metric.conversion is not None and metric.conversion.joins_spine
    if metric.type not in ("ratio", "derived"):
        return False
    return any(_joins_spine(layer, n, seen | {name}) for n in metric.inputs())


def _spine_measures(layer: SemanticLayer, name: str, seen: frozenset[str] = frozenset()) -> list[tuple[str, str | None]]:
    """(measure, its cumulative metric's time dimension) of the simple and cumulative metrics asking for
    join_to_timespine under this metric (at any depth); a conversion metric's base measure when an input asks."""
    metric = layer.metrics.get(name)
    if metric is None or name in seen:
        return []
    if metric.type in ("simple", "cumulative"):
        return [(metric.measure, metric.time_dimension or None)] if metric.join_to_timespine and metric.measure else []
    if metric.type == "conversion":  # its periods are the base events' (the conversions count at their base event)
        params = metric.conversion
        return [(params.base_measure, None)] if params is not None and params.joins_spine else []
    if metric.type not in ("ratio", "derived"):
        return []
    return [m for n in metric.inputs() for m in _spine_measures(layer, n, seen | {name})]


def spine_time_dimensions(query: ResolvedQuery, layer: SemanticLayer) -> frozenset[str] | None:
    """The time dimensions the spine may be joined on, besides metric_time: the agg time dimensions of the measures
    whose metrics ask for join_to_timespine (MetricFlow joins the spine on metric_time or a measure's
    agg_time_dimension only; grouped by another time dimension, it fills NULLs but adds no period). None: any time
    dimension, for a measure that names none (a layer without metric_time)."""
    found: set[str] = set()
    for output in query.outputs:
        for qualified, cumulative_on in _spine_measures(layer, output.name):
            if cumulative_on:  # a cumulative metric sits on its own time dimension
                found.add(cumulative_on)
                continue
            model_name, _, measure_name = qualified.partition("__")
            model = layer.models.get(model_name)
            measure = model.measures.get(measure_name) if model is not None else None
            if model is None or measure is None:
                continue
            dimension = model.time_dimension_of(measure)
            if dimension is None:
                return None
            found.add(dimension.qualified_name)
    return frozenset(found)


def _time_key(group_keys: tuple[DimRef, ...], time_dimensions: frozenset[str] | None) -> tuple[int, str] | None:
    """The first group key that is a period of metric_time or of a time dimension the spine may join on:
    (its position, its grain)."""
    for i, ref in enumerate(group_keys):
        if ref.date_part:
            continue
        if ref.axis and ref.grain:
            return i, ref.grain
        if ref.axis or (time_dimensions is not None and ref.dimension.qualified_name not in time_dimensions):
            continue
        if ref.dimension.is_time and (ref.grain or ref.dimension.type == "date"):
            return i, ref.grain or "day"
    return None


def spine_key(query: ResolvedQuery, layer: SemanticLayer) -> tuple[int, str] | None:
    """The group key the spine is joined on (its position, its grain), or None: no spine join."""
    if layer.time_spine is None or not any(_joins_spine(layer, o.name) for o in query.outputs):
        return None
    return _time_key(query.group_keys, spine_time_dimensions(query, layer))
