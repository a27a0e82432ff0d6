"""`metric_time` without metrics: the periods of the time spine, as MetricFlow answers a query grouped by
`metric_time__month` alone (each period once, from the spine's first day to its last; filters on
metric_time narrow them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ..resolve.names import DimRef
from .sqltree import aliased, col

if TYPE_CHECKING:
    from ..plan.nodes import SpinePeriods
    from .render import Renderer


def spine_query(plan: SpinePeriods, renderer: Renderer) -> exp.Select:
    spine = renderer.layer.time_spine
    assert spine is not None, "resolved: metric_time without metrics is refused when there is no time spine"
    day = col(spine.column, "spine")

    def render_ref(ref: DimRef) -> exp.Expression:
        if ref.date_part:
            return renderer.dialect.date_part(day.copy(), ref.date_part)
        custom = spine.custom_grains.get(ref.grain) if ref.grain else None
        if custom is not None:  # the spine's own column
            return col(custom.column, "spine")
        return renderer.dialect.truncate(day.copy(), ref.grain) if ref.grain else day.copy()

    keys = [render_ref(ref) for ref in plan.group_keys]
    query = exp.Select(expressions=[exp.alias_(k, ref.text, quoted=True) for k, ref in zip(keys, plan.group_keys)])
    query = query.from_(aliased(spine.table_node, "spine")).distinct(copy=False)
    conditions = [renderer.filter_expr(f, render_ref) for f in plan.where]
    if conditions:
        query = query.where(*conditions, copy=False)
    return query
