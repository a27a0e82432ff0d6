"""`metric_time` without metrics: the periods of the time spine, as MetricFlow answers a query grouped by
`metric_time__month` alone (each period once, from the spine's first day to its last; filters on
metric_time narrow them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ..resolve.names import DimRef
from ..trees import fresh
from .spine_periods import finest, spine_at
from .sqltree import col

if TYPE_CHECKING:
    from ..plan.nodes import SpinePeriods
    from .render import Renderer


def spine_query(plan: SpinePeriods, renderer: Renderer, dims: exp.Query | None = None) -> exp.Select:
    """The spine's periods; `dims` (the rendered plan.dims) crossed with them."""
    spine = renderer.layer.time_spine
    assert spine is not None, "resolved: metric_time without metrics is refused when there is no time spine"
    day = col(spine.column, "spine")

    def render_ref(ref: DimRef) -> exp.Expression:
        if ref.date_part:
            return renderer.dialect.date_part(fresh(day), ref.date_part)
        custom = spine.custom_grains.get(ref.grain) if ref.grain else None
        if custom is not None:  # the spine's own column
            return col(custom.column, "spine")
        return renderer.dialect.truncate(fresh(day), ref.grain) if ref.grain else fresh(day)

    axis = [ref for ref in plan.group_keys if ref.axis]
    keys = [render_ref(ref) for ref in axis]
    query = exp.Select(expressions=[exp.alias_(k, ref.text, quoted=True) for k, ref in zip(keys, axis)])
    query = query.from_(spine_at(spine, renderer.dialect, finest([ref.grain or "day" for ref in axis if not ref.date_part])),
                        copy=False).distinct(copy=False)
    conditions = [renderer.filter_expr(f, render_ref) for f in plan.where]
    if conditions:
        query = query.where(*conditions, copy=False)
    if dims is None:
        return query
    # beside other dimensions: their values (a dimension-only query), each with every period (MetricFlow's CROSS JOIN)
    columns = [exp.alias_(col(ref.text, "periods" if ref.axis else "dims"), ref.text, quoted=True) for ref in plan.group_keys]
    return (exp.Select(expressions=columns)
            .from_(exp.Subquery(this=dims, alias=exp.TableAlias(this=exp.to_identifier("dims", quoted=True))))
            .join(exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier("periods", quoted=True))), join_type="CROSS",
                  copy=False))
