"""A ResolvedQuery -> its plan (engine/plan/nodes.py): one leaf per aggregation, by how it reads its rows, then the
merge, the metric math, the spine fill and the order. Nothing here can fail on a user's input: resolution did.
"""

from __future__ import annotations

from ..layer.model import SemanticLayer
from ..resolve.names import DimRef
from ..resolve.resolved import Aggregation, ConversionsRead, CumulativeRead, ResolvedQuery
from .nodes import (
    Aggregate,
    Conversion,
    ConversionOffset,
    Cumulative,
    CumulativeOffset,
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


def plan_query(query: ResolvedQuery, layer: SemanticLayer) -> Node:
    """The plan of a resolved query (or of a metric filter's subquery)."""
    if query.spine_only:
        return OrderLimit(SpinePeriods(query.group_keys, query.where), query.order_by, query.limit)
    leaves = tuple(leaf(agg) for agg in query.aggregations)
    spine = spine_key(query, layer)
    source = leaves[0] if len(leaves) == 1 and isinstance(leaves[0], (Aggregate, SemiAdditive)) else Merge(leaves, len(query.group_keys))
    top: Node = Project(source, query.outputs, query.having, having_as_columns=spine is not None)
    if spine is not None:
        assert isinstance(top, Project)
        top = SpineFill(top, query.group_keys, query.where, query.outputs, query.having, *spine)
    assert isinstance(top, (Project, SpineFill))
    return OrderLimit(top, query.order_by, query.limit)


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
    if metric.type == "simple":
        return metric.join_to_timespine
    if metric.type not in ("ratio", "derived"):
        return False
    return any(_joins_spine(layer, n, seen | {name}) for n in metric.inputs())


def _time_key(group_keys: tuple[DimRef, ...]) -> tuple[int, str] | None:
    """The first group key that is a period: (its position, its grain)."""
    for i, ref in enumerate(group_keys):
        if ref.date_part:
            continue
        if ref.axis and ref.grain:
            return i, ref.grain
        if ref.dimension.is_time and (ref.grain or ref.dimension.type == "date"):
            return i, ref.grain or "day"
    return None


def spine_key(query: ResolvedQuery, layer: SemanticLayer) -> tuple[int, str] | None:
    """The group key the spine is joined on (its position, its grain), or None: no spine join."""
    if layer.time_spine is None or not any(_joins_spine(layer, o.name) for o in query.outputs):
        return None
    return _time_key(query.group_keys)
