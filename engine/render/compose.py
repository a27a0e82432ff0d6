"""Assembling the aggregations of a plan into the final query: metric math, HAVING, order, limit."""

from __future__ import annotations

from sqlglot import exp

from ..plan.nodes import QueryPlan
from .conversion import conversion_ctes
from .offsets import offset_ctes, offset_cumulative
from .render import Renderer, col, ident
from .timespine_fill import fill_from_timespine, having_column, spine_key
from .spine_query import spine_query


def _fill(template: exp.Expression, mapping: dict[str, exp.Expression]) -> exp.Expression:
    """Replace the placeholders g0.., a0.. of an output template by real expressions."""

    def fn(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and not n.table and n.name in mapping:
            return mapping[n.name].copy()
        return n

    return template.copy().transform(fn, copy=False)


def _having(query: exp.Select, conditions: list[exp.Expression], spined: bool, where: bool) -> exp.Select:
    """The query's metric filters: as HAVING (WHERE over merged aggregations), or, with a spine join,
    as columns of the result that hold after the join and fill (timespine_fill.py)."""
    if spined:
        return query.select(*[exp.alias_(c, having_column(i), quoted=True) for i, c in enumerate(conditions)], copy=False)
    return query.where(*conditions, copy=False) if where else query.having(*conditions, copy=False)


def compose(plan: QueryPlan, renderer: Renderer) -> exp.Query:
    groups = plan.groups
    spined = spine_key(plan, renderer.layer) is not None
    if plan.spine_only:
        query: exp.Query = spine_query(plan, renderer)
    elif len(groups) == 1 and groups[0].cumulative is None and groups[0].offset is None and groups[0].conversion is None:
        query, key_exprs, aggs = renderer.group_parts(groups[0], groups[0].keys, groups[0].where)
        mapping: dict[str, exp.Expression] = {f"g{i}": k for i, k in enumerate(key_exprs)}
        mapping.update(aggs)
        query = query.select(*[exp.alias_(_fill(o.template, mapping), o.name, quoted=True) for o in plan.outputs], copy=False)
        if key_exprs:
            query = query.group_by(*[k.copy() for k in key_exprs], copy=False)
        if plan.having:
            query = _having(query, [_fill(h, mapping) for h in plan.having], spined, where=False)
    else:
        ctes: list[tuple[str, exp.Select]] = []
        for group in groups:
            if group.cumulative is not None:
                ctes += (renderer.cumulative_ctes(group, group.keys, group.where, group.time_filters) if group.offset is None
                         else offset_cumulative(renderer, group, group.keys))
            elif group.conversion is not None:  # read at an offset too: its base events shifted (sql/conversion.py)
                ctes += conversion_ctes(renderer, group, group.keys, group.where)
            elif group.offset is not None:
                ctes += offset_ctes(renderer, group, group.keys, group.where)
            else:
                ctes.append((group.id, renderer.group_cte(group, group.keys, group.where)))
        keys = [f"g{i}" for i in range(len(plan.group_keys))]
        agg_ids = [a.id for g in groups for a in g.aggregates]
        if len(groups) == 1:
            source = groups[0].id
        else:
            branches = []
            owner = {a.id: g.id for g in groups for a in g.aggregates}
            for group in groups:
                own = {a.id for a in group.aggregates}
                projection: list[exp.Expr] = [col(k) for k in keys]
                projection += [col(a) if a in own else exp.alias_(renderer.dialect.typed_null(owner[a], a), a, quoted=True)
                               for a in agg_ids]
                branches.append(exp.Select(expressions=projection).from_(ident(group.id)))
            stacked: exp.Query = branches[0]
            for branch in branches[1:]:
                stacked = exp.union(stacked, branch, distinct=False)
            merged = exp.Select(expressions=[col(k) for k in keys] + [exp.alias_(exp.Max(this=col(a)), a, quoted=True) for a in agg_ids])
            merged = merged.from_(exp.Subquery(this=stacked, alias=exp.TableAlias(this=ident("stacked"))))
            if keys:
                merged = merged.group_by(*[col(k) for k in keys], copy=False)
            ctes.append(("merged", merged))
            source = "merged"
        mapping = {name: col(name, "m") for name in keys + agg_ids}
        query = exp.Select(expressions=[exp.alias_(_fill(o.template, mapping), o.name, quoted=True) for o in plan.outputs])
        query = query.from_(exp.Table(this=ident(source), alias=exp.TableAlias(this=ident("m"))))
        if plan.having:
            query = _having(query, [_fill(h, mapping) for h in plan.having], spined, where=True)
        for name, cte in ctes:
            query = query.with_(ident(name), as_=cte, copy=False)
    query = fill_from_timespine(query, plan, renderer)
    if plan.order_by:
        query = query.order_by(*[exp.Ordered(this=exp.column(ident(name)), desc=desc, nulls_first=False) for name, desc in plan.order_by], copy=False)
    if plan.limit is not None:
        query = query.limit(plan.limit, copy=False)
    return query
