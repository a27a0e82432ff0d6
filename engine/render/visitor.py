"""The plan (engine/plan/nodes.py) -> one sqlglot query: one visit per node class.

A leaf's visit gives its CTEs (the last one named after its aggregation, with columns g0.. and a0..); `Project` reads
one plain leaf directly (a single SELECT ... GROUP BY ... HAVING), or the merge of several. Every model a leaf reads
comes from `Renderer.source_for` (the role's filtered subquery where the role restricts the model): no visit reads a
model's table any other way.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from ..plan import nodes as n
from ..trees import fresh
from .render import Renderer, cumulative_of
from .spine_query import spine_query
from .sqltree import add_ctes, add_group, add_order, add_select, add_where, col, ident, named, set_from
from .timespine_fill import fill_from_timespine, having_column

LISTED = "_listed"  # a merged row is a group of an aggregation some output reads (no element is named so: names start with a letter)

CTEs = list[tuple[str, exp.Select]]


def _fill(template: exp.Expression, mapping: dict[str, exp.Expression], spent: set[str]) -> exp.Expression:
    """Replace the placeholders g0.., a0.. of an output template by real expressions. The expressions are built for
    this query alone: the first use of one takes it, later ones (`spent` names) a copy (a deep copy per use was a
    tenth of compiling a one-model query)."""
    if type(template) is exp.Column and not template.table and template.name in mapping:  # most outputs: one placeholder
        return fn_of(mapping, spent)(template)

    return fresh(template).transform(fn_of(mapping, spent), copy=False)


def fn_of(mapping: dict[str, exp.Expression], spent: set[str]) -> Callable[[exp.Expression], exp.Expression]:
    """The placeholder replacement `_fill` applies to each node."""

    def fn(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table:
            name = node.name
            found = mapping.get(name)
            if found is not None:
                if name in spent:
                    return fresh(found)
                spent.add(name)
                return found
        return node

    return fn


def _having(query: exp.Select, conditions: list[exp.Expression], as_columns: bool, where: bool) -> exp.Select:
    """The query's metric filters: as HAVING (WHERE over merged aggregations), or, with a spine join above, as columns
    of the result that hold after the join and fill (timespine_fill.py)."""
    if as_columns:
        return add_select(query, [named(c, having_column(i)) for i, c in enumerate(conditions)])
    return add_where(query, conditions, "where" if where else "having")


class QueryRenderer(Renderer):
    """Renders a plan; `render(node)` dispatches to `visit_<NodeClass>`."""

    def render(self, node: n.Node) -> exp.Query:
        query = self._visit(node)
        assert isinstance(query, exp.Query), f"{type(node).__name__} is not a query node"
        return query

    def _visit(self, node: n.Node) -> exp.Query | CTEs:
        visit: Callable[[n.Node], exp.Query | CTEs] = getattr(self, f"visit_{type(node).__name__}")
        return visit(node)

    def ctes(self, leaf: n.Leaf) -> CTEs:
        out = self._visit(leaf)
        assert isinstance(out, list), f"{type(leaf).__name__} is not a leaf"
        return out

    # -- the query around the aggregations ----------------------------------------------------------
    def visit_OrderLimit(self, node: n.OrderLimit) -> exp.Query:
        query = self.render(node.source)
        if node.order_by:
            add_order(query, [exp.Ordered(this=exp.Column(this=ident(name)), desc=desc, nulls_first=False)
                              for name, desc in node.order_by])
        if node.limit is not None:
            query.set("limit", exp.Limit(expression=exp.Literal.number(node.limit)))  # query.limit(n, copy=False)
        return query

    def visit_SpineFill(self, node: n.SpineFill) -> exp.Query:
        return fill_from_timespine(self.render(node.source), node, self)

    def visit_SpinePeriods(self, node: n.SpinePeriods) -> exp.Query:
        return spine_query(node, self, self.render(node.dims) if node.dims is not None else None)

    def visit_Project(self, node: n.Project) -> exp.Query:
        source = node.source
        if isinstance(source, (n.Aggregate, n.SemiAdditive)):  # one plain aggregation: the whole query is its SELECT
            agg = source.agg
            query, key_exprs, aggs = self.group_parts(agg, agg.keys, agg.where)
            mapping: dict[str, exp.Expression] = {f"g{i}": k for i, k in enumerate(key_exprs)}
            mapping.update(aggs)
            spent: set[str] = set()
            add_select(query, [named(_fill(o.template, mapping, spent), o.name) for o in node.outputs])
            if key_exprs:
                add_group(query, [fresh(k) for k in key_exprs])
            if node.having:
                query = _having(query, [_fill(h, mapping, spent) for h in node.having], node.having_as_columns, where=False)
            return query
        ctes = [cte for leaf in source.inputs for cte in self.ctes(leaf)]
        keys = [f"g{i}" for i in range(source.keys)]
        agg_ids = [c.id for leaf in source.inputs for c in leaf.agg.columns]
        if len(source.inputs) == 1:
            name = source.inputs[0].agg.id
        else:
            ctes.append(("merged", self.visit_Merge(source)))
            name = "merged"
        mapping = {key: col(key, "m") for key in keys + agg_ids}
        spent = set()
        query = exp.Select(expressions=[named(_fill(o.template, mapping, spent), o.name)
                                        for o in node.outputs])
        set_from(query, exp.Table(this=ident(name), alias=exp.TableAlias(this=ident("m"))))
        if node.having:
            query = _having(query, [_fill(h, mapping, spent) for h in node.having], node.having_as_columns, where=True)
        return add_ctes(query, ctes)

    def visit_Merge(self, merge: n.Merge) -> exp.Select:
        """The aggregations stacked with UNION ALL (each padding the others' columns with a typed NULL) and
        collapsed by the group keys, each aggregate column taking its one non-NULL value (MAX)."""
        keys = [f"g{i}" for i in range(merge.keys)]
        agg_ids = [c.id for leaf in merge.inputs for c in leaf.agg.columns]
        owner = {c.id: leaf.agg.id for leaf in merge.inputs for c in leaf.agg.columns}
        branches = []
        for i, leaf in enumerate(merge.inputs):
            own = {c.id for c in leaf.agg.columns}
            projection: list[exp.Expr] = [col(k) for k in keys]
            projection += [col(a) if a in own else named(self.dialect.typed_null(owner[a], a), a)
                           for a in agg_ids]
            if merge.filter_only:  # which branches list their groups: those an output reads
                projection.append(exp.alias_(exp.Null() if merge.filter_only[i] else exp.Literal.number(1), LISTED, quoted=True))
            branches.append(set_from(exp.Select(expressions=projection), ident(leaf.agg.id)))
        stacked: exp.Query = branches[0]
        for branch in branches[1:]:
            stacked = exp.union(stacked, branch, distinct=False, copy=False)
        merged = exp.Select(expressions=[col(k) for k in keys] + [named(exp.Max(this=col(a)), a)
                                                                  for a in agg_ids])
        set_from(merged, exp.Subquery(this=stacked, alias=exp.TableAlias(this=ident("stacked"))))
        if keys:
            add_group(merged, [col(k) for k in keys])
            if merge.filter_only:  # a group only a filter's measure has is no row of the result
                add_where(merged, [exp.EQ(this=exp.Max(this=col(LISTED)), expression=exp.Literal.number(1))], "having")
        return merged

    # -- the leaves: each aggregation's CTEs ----------------------------------------------------------
    def visit_Aggregate(self, node: n.Aggregate) -> CTEs:
        return [(node.agg.id, self.group_cte(node.agg, node.agg.keys, node.agg.where))]

    def visit_SemiAdditive(self, node: n.SemiAdditive) -> CTEs:
        return [(node.agg.id, self.group_cte(node.agg, node.agg.keys, node.agg.where))]  # group_parts keeps the window's rows

    # cumulative, offset and conversion metrics: their renderers are imported when one is rendered (start-up time)
    def visit_Cumulative(self, node: n.Cumulative) -> CTEs:
        from .cumulative import cumulative_ctes

        agg = node.agg
        return cumulative_ctes(self, agg, agg.keys, agg.where, cumulative_of(agg).time_filters)

    def visit_CumulativeOffset(self, node: n.CumulativeOffset) -> CTEs:
        from .offsets import offset_cumulative

        return offset_cumulative(self, node.agg, node.agg.keys)

    def visit_OffsetAggregate(self, node: n.OffsetAggregate) -> CTEs:
        from .offsets import offset_ctes

        return offset_ctes(self, node.agg, node.agg.keys, node.agg.where)

    def visit_Conversion(self, node: n.Conversion) -> CTEs:
        from .conversion import conversion_ctes

        return conversion_ctes(self, node.agg, node.agg.keys, node.agg.where)

    def visit_Given(self, node: n.Given) -> CTEs:
        """Rows computed elsewhere (a rollup of the embedded store), read from the table the runner fills in."""
        keys = len(node.agg.keys)
        columns = [col(f"g{i}") for i in range(keys)] + [col(c.id) for c in node.agg.columns]
        return [(node.agg.id, exp.Select(expressions=columns).from_(exp.Table(this=ident(node.table)), copy=False))]

    def visit_ConversionOffset(self, node: n.ConversionOffset) -> CTEs:
        from .conversion import conversion_ctes

        return conversion_ctes(self, node.agg, node.agg.keys, node.agg.where)  # its base events shifted (conversion.py)
