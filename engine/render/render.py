"""One aggregation -> its SELECT, and the expressions every render module shares.

Shapes, from simplest to most general:
- one aggregation: a single SELECT ... GROUP BY ... HAVING ... ORDER BY ... LIMIT;
- a join that fans out: the aggregation reads `SELECT DISTINCT <primary key>, <keys>, <inputs>`,
  so every row of the measure's model counts once per group;
- several aggregations: one CTE each, stacked with UNION ALL and collapsed by GROUP BY on the
  group keys (NULL-safe on every engine, no FULL JOIN needed), then the metric math;
- cumulative metrics: a CTE of periods from the time spine joined to the rows in each window (cumulative.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from sqlglot import exp

from ..dialects.base import Dialect
from ..layer.joins import Path
from ..layer.model import PERCENTILE_AGGS, SUM_OF_COUNTS, Measure, Metric, Model, SemanticLayer, column_name, grained_type
from ..resolve.filters import Filter, interval_parts, substitute, wrap
from ..resolve.names import DimRef
from ..resolve.resolved import Aggregation, ConversionsRead, CumulativeRead, MeasureColumn
from ..trees import fresh
from .metric_joins import join_metric_filters, metric_aware
from .percentile import percentile_aggregate
from .semi_additive import on_window, window_columns
from .sqltree import add_group, add_select, add_where, aliased, col, ident, is_bare, named, qualify, set_from

SourceFor = Callable[[Model], exp.Expression]
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)


def cumulative_of(group: Aggregation) -> CumulativeRead:
    """How a cumulative aggregation reads its rows (its window's metric and period filters)."""
    assert isinstance(group.reads, CumulativeRead), "planned: a cumulative leaf reads a cumulative aggregation"
    return group.reads


def cumulative_metric(group: Aggregation) -> Metric:
    return cumulative_of(group).metric


def conversions_of(group: Aggregation) -> ConversionsRead:
    """How a conversion metric's aggregation reads its conversion events."""
    assert isinstance(group.reads, ConversionsRead), "planned: a conversion leaf reads a conversions aggregation"
    return group.reads


def _safe_alias(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text.lower()) or "t"


class JoinTree:
    """The FROM clause of one aggregation: the measure's model and every path from it.

    Built once per layer for a given model, set of paths and sources (the role's filtered subqueries are sources
    too, by identity), kept in the layer's memo as a template, and copied whole for each query (one compiled walk,
    a third of building it node by node)."""

    def __init__(self, root: Model, paths: list[tuple[DimRef, Path]], layer: SemanticLayer, source_for: SourceFor,
                 full: bool = False) -> None:
        self.root = root
        self.layer = layer
        self.source_for = source_for
        steps = tuple(tuple((s.edge.index, s.forward) for s in path) for _, path in paths)
        sources = (source_for(root), *(source_for(layer.models[s.target]) for _, path in paths for s in path))
        key = ("join_tree", root.name, steps, tuple(id(s) for s in sources), full)
        found = layer.memo.get(key)
        if found is None or any(a is not b for a, b in zip(found[0], sources)):
            found = (sources, *self._build(paths, full))
            layer.memo.put(key, found)
        self.root_alias: str = found[1]
        self.aliases: dict[tuple[tuple[int, bool], ...], str] = found[2]
        self._template: exp.Select = found[3]

    def _build(self, paths: list[tuple[DimRef, Path]], full: bool) -> tuple[str, dict[tuple[tuple[int, bool], ...], str], exp.Select]:
        root, layer, source_for = self.root, self.layer, self.source_for
        base = _safe_alias((root.table or root.name).split(".")[-1].strip('"`[]'))
        aliases: dict[tuple[tuple[int, bool], ...], str] = {(): base}
        query = exp.Select().from_(aliased(source_for(root), base), copy=False)
        used = {base}
        for _, path in paths:
            prefix: tuple[tuple[int, bool], ...] = ()
            for depth, step in enumerate(path):
                parent = aliases[prefix]
                prefix = prefix + ((step.edge.index, step.forward),)
                if prefix in aliases:
                    continue
                target = layer.models[step.target]
                alias = _safe_alias((target.table or target.name).split(".")[-1].strip('"`[]'))
                if alias in used:  # a second role of the same table: name it by its path
                    alias = "_".join(s.key for s in path[: depth + 1])
                while alias in used:
                    alias += "_"
                used.add(alias)
                aliases[prefix] = alias
                from_alias, to_alias = (parent, alias) if step.forward else (alias, parent)
                on = exp.and_(*[exp.EQ(this=qualify(left, from_alias), expression=qualify(right, to_alias))
                                for left, right in step.edge.key_pairs()], copy=False)
                # `full`: MetricFlow's dimension-only query across models, FULL OUTER JOIN whatever the edge's type
                kwargs = {"side": "FULL"} if full else {"side": "LEFT"} if step.edge.type == "left" else {"kind": "INNER"}
                query = query.join(exp.Join(this=aliased(source_for(target), alias), on=on, **kwargs), copy=False)
        return base, aliases, query

    def alias_of(self, path: Path) -> str:
        return self.aliases[tuple((s.edge.index, s.forward) for s in path)]

    def select(self) -> exp.Select:
        """SELECT FROM the model JOIN ... (no projection yet): this query's own copy."""
        return fresh(self._template)


class Renderer:
    def __init__(self, layer: SemanticLayer, dialect: Dialect, source_for: SourceFor) -> None:
        self.layer = layer
        self.dialect = dialect
        self.source_for = source_for

    # -- expressions ---------------------------------------------------------------------
    def qualified(self, node: exp.Expression, alias: str) -> exp.Expression:
        """`qualify(node, alias)`, for a layer expression that is more than a column (`quantity * unit_price`,
        `TRIM(status)`) bound once per layer and alias and copied (one compiled walk, not a walk that then sets every
        column's parts). Keyed by the node's identity, checked on a hit; the copy is this query's own."""
        if is_bare(node):
            return qualify(node, alias)
        key = ("qualified", id(node), alias)
        found = self.layer.memo.get(key)
        if found is None or found[0] is not node:
            found = (node, qualify(node, alias))
            self.layer.memo.put(key, found)
        return fresh(found[1])

    def dim_expr(self, ref: DimRef, tree: JoinTree, path: Path) -> exp.Expression:
        value = self.qualified(ref.dimension.node, tree.alias_of(path))
        if ref.date_part:
            return self.dialect.date_part(value, ref.date_part)
        return self.period(value, ref.grain) if ref.grain else value

    def period(self, value: exp.Expression, grain: str) -> exp.Expression:
        """A time value's period at a grain: truncated, or for a custom granularity of the time spine the spine's
        column on the value's day (a scalar lookup: the spine has one row per day)."""
        spine = self.layer.time_spine
        custom = spine.custom_grains.get(grain) if spine is not None else None
        if custom is None:
            return self.dialect.truncate(value, grain)
        assert spine is not None
        lookup = exp.Select(expressions=[col(custom.column, "custom_spine")]).from_(aliased(spine.table_node, "custom_spine"))
        lookup = lookup.where(exp.EQ(this=col(spine.column, "custom_spine"), expression=self.dialect.to_date(value)), copy=False)
        return exp.Subquery(this=lookup)

    def joined_lookups(self, query: exp.Select, keys: list[exp.Expression]) -> tuple[exp.Select, list[exp.Expression]]:
        """The custom granularity lookups of one aggregation (its keys and WHERE) as LEFT JOINs of the spine, for an
        engine without correlated subqueries there (ClickHouse): one join per distinct day expression."""
        spine = self.layer.time_spine
        if spine is None or not spine.custom_grains:
            return query, keys
        columns = {c.column for c in spine.custom_grains.values()}
        joins: dict[str, str] = {}  # the day expression's SQL -> its join's alias

        def lookup_day(node: exp.Expression) -> exp.Expression | None:
            inner = node.this if isinstance(node, exp.Subquery) else None
            if not isinstance(inner, exp.Select):
                return None
            source = inner.args.get("from_")
            if source is None or source.this.alias != "custom_spine" or len(inner.expressions) != 1:
                return None
            condition = inner.args.get("where")
            if condition is None or not isinstance(condition.this, exp.EQ) or inner.expressions[0].name not in columns:
                return None
            return condition.this.expression

        def replace(node: exp.Expression) -> exp.Expression:
            day = lookup_day(node)
            if day is None or node.parent_select is not None:  # (in a copy of the WHERE or a key) a nested query's own stays
                return node
            alias = joins.setdefault(day.sql(), f"custom_spine{len(joins)}")
            if alias not in [j.alias_or_name for j in query.args.get("joins") or []]:
                on = exp.EQ(this=col(spine.column, alias), expression=day.copy())
                query.join(exp.Join(this=aliased(spine.table_node, alias), on=on, side="LEFT"), copy=False)
            return col(node.this.expressions[0].name, alias)

        where = query.args.get("where")
        if where is not None:
            query.set("where", where.transform(replace))
        return query, [k.transform(replace) for k in keys]

    def filter_expr(self, f: Filter, render_ref: Callable[[DimRef], exp.Expression]) -> exp.Expression:
        refs = dict(f.refs)
        node = self.typed_filter(f, refs)  # a copy of the filter's tree: substituted in place
        return substitute(node, lambda name: wrap(render_ref(cast(DimRef, refs[name]))), copy=False)  # a row filter names dimensions only

    def typed_filter(self, f: Filter, refs: dict) -> exp.Expression:
        """`type_date_literals` of a filter's tree, made once per layer for the tree (by identity, checked on a hit),
        the dialect (by identity) and what the typing reads of each name (time or not, grain, date part, type), then copied: the
        typing is a walk of the whole tree and a rewrite, the copy one compiled walk."""
        typing = tuple((name, ref.dimension.is_time, ref.dimension.type, ref.grain, ref.date_part) if isinstance(ref, DimRef)
                       else (name,) for name, ref in f.refs)
        key = ("typed_filter", id(f.node), id(self.dialect), typing)
        found = self.layer.memo.get(key)
        if found is None or found[0] is not f.node or found[1] is not self.dialect:
            found = (f.node, self.dialect, self.type_date_literals(f.node, refs))
            self.layer.memo.put(key, found)
        return fresh(found[2])

    def on_spine(self, day: exp.Expression) -> Callable[[DimRef], exp.Expression]:
        """A time filter's dimension read on a spine day (at its grain, or its date part): a filter on periods."""
        def render(ref: DimRef) -> exp.Expression:
            if ref.date_part:
                return self.dialect.date_part(fresh(day), ref.date_part)
            return self.period(fresh(day), ref.grain) if ref.grain else fresh(day)

        return render

    def type_date_literals(self, node: exp.Expression, refs: dict) -> exp.Expression:
        """A copy of `node` where '2024-01-01' compared with a date dimension becomes a typed literal where engines need it."""

        def time_type(n: exp.Expression | None) -> str | None:
            if isinstance(n, (exp.Column, exp.Dot)):
                ref = refs.get(column_name(n))
                if isinstance(ref, DimRef) and ref.dimension.is_time and not ref.date_part:
                    if ref.grain and self.layer.time_spine is not None and ref.grain in self.layer.time_spine.custom_grains:
                        return None  # the spine column's values, as written
                    return grained_type(ref.grain) if ref.grain else ref.dimension.type
            return None

        def fix(n: exp.Expression) -> exp.Expression:
            if isinstance(n, exp.DateTrunc) and isinstance(n.this, exp.CurrentDate):  # structured relative date ranges
                return self.dialect.truncate(n.this, n.args["unit"].name.lower())
            if isinstance(n, (exp.Add, exp.Sub)) and isinstance(n.expression, exp.Interval):
                parts = interval_parts(n.expression)
                if parts is not None:  # checked when the filter was parsed
                    count, unit = parts
                    # a month step past a month's end lands on its last day on SQLite too, as elsewhere; from the
                    # first day of a month (the structured ranges' period starts) it cannot, so plain arithmetic
                    start = isinstance(n.this, exp.DateTrunc) and n.this.args["unit"].name.lower() in ("month", "quarter", "year")
                    step = self.dialect.add_interval if start else self.dialect.shift
                    return step(fix(n.this), -count if isinstance(n, exp.Sub) else count, unit)
            if isinstance(n, _COMPARISONS):
                for a, b in (("this", "expression"), ("expression", "this")):
                    kind = time_type(n.args.get(a))
                    other = n.args.get(b)
                    if kind and isinstance(other, exp.Literal) and other.is_string:
                        n.set(b, self.dialect.date_literal(other, kind))
            elif isinstance(n, exp.Between):
                kind = time_type(n.this)
                for key in ("low", "high"):
                    v = n.args.get(key)
                    if kind and isinstance(v, exp.Literal) and v.is_string:
                        n.set(key, self.dialect.date_literal(v, kind))
            elif isinstance(n, exp.In):
                kind = time_type(n.this)
                if kind:
                    n.set("expressions", [self.dialect.date_literal(v, kind) if isinstance(v, exp.Literal) and v.is_string else v
                                          for v in n.expressions])
            return n

        return fresh(node).transform(fix, copy=False)

    def measure_input(self, column: MeasureColumn, alias: str) -> exp.Expression:
        """The row-level value a measure aggregates (1 for a COUNT(*) measure)."""
        measure = column.measure
        return self.qualified(measure.node, alias) if measure.node is not None else exp.Literal.number(1)

    def measure_aggregate(self, measure: Measure, value: exp.Expression | None) -> exp.Expression:
        """The measure's aggregate of its input; percentiles are per dialect (percentile.py)."""
        if measure.agg in PERCENTILE_AGGS and value is not None:
            return percentile_aggregate(measure, value, self.dialect)
        return self.aggregate(measure.agg, value)

    def aggregate(self, agg: str, value: exp.Expression | None) -> exp.Expression:
        if value is None:
            return exp.Count(this=exp.Star())
        if agg == "avg":  # the mean at the same precision on every engine (Spark's DECIMAL mean is rounded)
            return self.dialect.average(value)
        if agg == "count_distinct":
            return exp.Count(this=exp.Distinct(expressions=[value]))
        if agg == SUM_OF_COUNTS:
            return exp.Coalesce(this=exp.Sum(this=value), expressions=[exp.Literal.number(0)])
        func = {"sum": exp.Sum, "count": exp.Count, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}[agg]
        return cast(exp.Expression, func(this=value))

    # -- one aggregation -------------------------------------------------------------------
    def group_parts(self, group: Aggregation, keys: tuple[DimRef, ...],
                    where: tuple[Filter, ...]) -> tuple[exp.Select, list[exp.Expression], dict[str, exp.Expression]]:
        """(FROM/WHERE select without projection, key expressions, aggregate expressions)."""
        model = self.layer.models[group.model]
        paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in group.paths}
        # dimensions only, with `semantics: metricflow`: every model's values, matched or not (MetricFlow FULL OUTER
        # JOINs them; an engine without FULL JOIN, MySQL/MariaDB, keeps smq's left joins: docs/dbt.md)
        full = not group.columns and self.layer.semantics == "metricflow" and self.dialect.full_join
        tree = JoinTree(model, [(ref, path) for ref, path in group.paths], self.layer, self.source_for, full)

        @metric_aware  # a metric filter's value is its joined subquery's column
        def render_ref(ref: DimRef) -> exp.Expression:
            return self.dim_expr(ref, tree, paths[(ref.dimension.qualified_name, ref.keys)])

        query = join_metric_filters(tree.select(), (*where, *group.metric_filters), render_ref, self)
        add_where(query, [self.filter_expr(f, render_ref) for f in (*where, *group.metric_filters)])
        key_exprs = [render_ref(ref) for ref in keys]
        if not self.dialect.correlated_group_keys:
            query, key_exprs = self.joined_lookups(query, key_exprs)
        semi = next((a.measure for a in group.columns if a.measure.non_additive), None)  # alone in its group
        if not group.dedupe and semi is None:
            inputs = {a.id: (self.measure_input(a, tree.root_alias) if a.measure.node is not None else None)
                      for a in group.columns}
            aggs = {a.id: self.measure_aggregate(a.measure, inputs[a.id]) for a in group.columns}
            return query, key_exprs, aggs
        # fan-out: one row per (primary key, group) before aggregating; semi-additive: only the window's rows count
        projection: list[exp.Expr] = [named(qualify(pk, tree.root_alias), f"__pk{i}")
                                      for i, pk in enumerate(model.primary_key_nodes)] if group.dedupe else []
        projection += [exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_exprs)]
        projection += [named(self.measure_input(a, tree.root_alias), f"i{a.id[1:]}") for a in group.columns]
        if semi is not None:
            projection += window_columns(semi, model, keys, key_exprs, tree.root_alias, self.dialect)
        inner = add_select(query, projection)
        if group.dedupe:
            inner = inner.distinct(copy=False)
        name = "dedup" if group.dedupe else "semi"
        outer = set_from(exp.Select(), exp.Subquery(this=inner, alias=exp.TableAlias(this=ident(name))))
        if semi is not None:
            outer = add_where(outer, [on_window(name)])
        keys_out: list[exp.Expression] = [col(f"g{i}", name) for i in range(len(key_exprs))]
        aggs = {a.id: self.measure_aggregate(a.measure, col(f"i{a.id[1:]}", name)) for a in group.columns}
        return outer, keys_out, aggs

    def group_cte(self, group: Aggregation, keys: tuple[DimRef, ...], where: tuple[Filter, ...]) -> exp.Select:
        query, key_exprs, aggs = self.group_parts(group, keys, where)
        # built for this query alone: aliased in place (the GROUP BY takes copies of the keys)
        projection = [named(k, f"g{i}") for i, k in enumerate(key_exprs)]
        projection += [named(v, k) for k, v in aggs.items()]
        add_select(query, projection)
        if key_exprs:
            add_group(query, [fresh(k) for k in key_exprs])
        return query
