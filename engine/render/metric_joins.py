"""The joins of metric filters (engine/resolve/metric_filters.py): each filter's metric, compiled as a subquery
grouped by its dimensions, LEFT JOINed to an aggregation's rows on those dimensions."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from sqlglot import exp

from ..plan.planner import plan_query
from ..resolve.filters import Filter
from ..resolve.metric_filters import MetricFilterRef
from ..resolve.names import DimRef
from .sqltree import col, ident

if TYPE_CHECKING:
    from .render import Renderer


def metric_aware(render_ref: Callable[[DimRef], exp.Expression]) -> Callable[[DimRef], exp.Expression]:
    """A reference renderer that also renders a metric filter's value: its subquery's column."""
    def render(ref: DimRef) -> exp.Expression:
        if isinstance(ref, MetricFilterRef):
            return col(ref.metric, ref.alias)
        return render_ref(ref)

    return render


def join_metric_filters(query: exp.Select, filters: Iterable[Filter], render_ref: Callable[[DimRef], exp.Expression],
                        renderer: Renderer) -> exp.Select:
    """Each metric filter's subquery (its own resolved query, planned and rendered by the same renderer)."""
    seen: set[str] = set()
    for f in filters:
        for ref in f.metric_refs():
            if ref.name in seen:
                continue
            seen.add(ref.name)
            sub = renderer.render(plan_query(ref.resolved, renderer.layer))  # type: ignore[attr-defined]  # a QueryRenderer
            on = exp.and_(*[exp.EQ(this=render_ref(g), expression=col(g.text, ref.alias)) for g in ref.group_by])
            join = exp.Join(this=exp.Subquery(this=sub, alias=exp.TableAlias(this=ident(ref.alias))), on=on, side="LEFT")
            query = query.join(join, copy=False)
    return query
