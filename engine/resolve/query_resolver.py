"""An SMQ -> its ResolvedQuery: names bound, metrics expanded into the measures they aggregate, the measures
grouped into aggregations, join paths chosen, fan-out detected, and every user error raised with its field.

Measures of different models (or with different metric filters) never share an aggregation, so each metric equals
what it would be if queried alone. What an engine cannot answer (a percentile on SQLite) is refused here too, naming
the query field that asks for it: nothing below this stage reports a user error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from sqlglot import exp

from ..dialects.base import Dialect, float_division
from ..errors import InternalError, Location, QueryError, nearest
from ..layer.joins import JoinGraph, Path, path_text
from ..layer.model import PERCENTILE_AGGS, SUB_DAILY_GRAINS, TIME_GRAINS, Dimension, Measure, Metric, MetricInput, Offset, SemanticLayer
from ..trees import placeholder
from .conversions import ConversionEvents, check_conversions, conversion_template, with_conversion
from .filters import Filter, parse_filter, substitute, wrap
from .metric_filters import MetricFilterRef
from .names import DimRef, MeasureRef, Resolver, check_sub_daily
from .offsets import check_offset_keys, check_offset_reads, offset_input, offset_key
from .query import SMQ
from .resolved import Aggregation, CumulativeRead, MeasureColumn, OutputColumn, ResolvedQuery, RowsRead
from .structured import StructuredFilter

Element = DimRef | MeasureRef | Metric | MetricFilterRef  # what a filter's names resolve to

Inherited = tuple[tuple[str, str], ...]  # metric filters handed down to the measures: (text, field for messages)
GroupKey = tuple[str, tuple[str, ...], str, str]  # (model, metric filter texts, cumulative metric name, metric_time's dimension)


def own_filters(item: Metric | MetricInput, field: str | None = None) -> Inherited:
    """A metric's (or a ratio side's / derived input's) own filters, each with the field that names it."""
    at = field or f"metric {getattr(item, 'name', '')}"
    return tuple((text, f"{at}.filters[{i}]") for i, text in enumerate(item.filters))


class QueryResolver:
    """Resolves one query (and its metric filters' subqueries) against one layer, as one role sees it, for one engine."""

    def __init__(self, layer: SemanticLayer, graph: JoinGraph, resolver: Resolver, dialect: Dialect) -> None:
        self.layer = layer
        self.graph = graph
        self.resolver = resolver
        self.dialect = dialect
        self.layer_resolver = Resolver(layer)  # metric definitions may use elements a role cannot see
        self.aggregates: dict[tuple, MeasureColumn] = {}
        self.groups: dict[GroupKey, list[MeasureColumn]] = {}
        self.group_filters: dict[GroupKey, tuple[Filter, ...]] = {}
        self.group_metric: dict[GroupKey, Metric | None] = {}
        self.first_use: dict[GroupKey, str] = {}
        self.has_entities = self.layer_resolver.has_entities()  # entity keys bind to each measure's own model
        self.axis_used = False  # the query names metric_time: measures of one model on different time dimensions split
        self.offset: Offset | None = None  # while expanding a derived metric's offset input (plan/offsets.py)
        self.group_offset: dict[GroupKey, Offset | None] = {}
        self.group_conversion: dict[GroupKey, ConversionEvents] = {}  # the conversions of a conversion metric (plan/conversion.py)

    # -- binding metric_time and MetricFlow's names to one aggregation's model ---------------
    def time_dimension(self, measure: Measure, cumulative: Metric | None) -> Dimension | None:
        """Where a measure sits on metric_time: a cumulative metric's time dimension, else the measure's own."""
        if cumulative is not None and cumulative.time_dimension:
            return self.layer_resolver.dimension(cumulative.time_dimension, f"metric {cumulative.name}.time_dimension").dimension
        return self.layer.models[measure.model].time_dimension_of(measure)

    def bind(self, ref: DimRef, model: str, measure: Measure | None, cumulative: Metric | None, field: str,
             resolver: Resolver | None = None) -> DimRef:
        if not ref.unbound:
            local = (resolver or self.resolver).mf.local_entity_key(ref, model) if self.has_entities else None
            return local or ref
        if ref.axis:
            if measure is None:
                raise QueryError(f"'{ref.text}' needs a metric: metric_time is each metric's own time dimension",
                                 code="missing_time_dimension", location=Location(field=field))
            dim = self.time_dimension(measure, cumulative)
            if dim is None:
                raise QueryError(
                    f"'{ref.text}': measure {measure.qualified_name} has no time dimension for metric_time; declare "
                    f"default_time_dimension on model {measure.model} (or time_dimension on the measure), or group by a "
                    f"dimension of {measure.model} instead", code="missing_time_dimension", location=Location(field=field))
            if dim.qualified_name in (resolver or self.resolver).hidden:  # hidden from this role: as if it had none
                raise QueryError(f"'{ref.text}': measure {measure.qualified_name} has no visible time dimension for metric_time",
                                 code="missing_time_dimension", location=Location(field=field))
            check_sub_daily(ref.text, ref.grain, dim.type, dim.qualified_name, field)
            return DimRef(ref.text, dim, (), ref.grain, date_part=ref.date_part)
        return (resolver or self.resolver).mf.bind(ref, model, self.graph, field)

    def bind_filter(self, f: Filter, model: str, measure: Measure | None, cumulative: Metric | None,
                    resolver: Resolver | None = None) -> Filter:
        if not any((isinstance(e, DimRef) and (e.unbound or self.has_entities)) or isinstance(e, MetricFilterRef) for _, e in f.refs):
            return f

        def bind_one(e: Element) -> Element:
            if isinstance(e, DimRef):
                return self.bind(e, model, measure, cumulative, f.field, resolver)
            if isinstance(e, MetricFilterRef):  # its join keys, as this aggregation reaches them
                return replace(e, group_by=tuple(self.bind(g, model, measure, cumulative, f.field, resolver) for g in e.group_by))
            return e

        return replace(f, refs=tuple((name, bind_one(e)) for name, e in f.refs))

    def with_subplans(self, f: Filter) -> Filter:
        """A metric filter's metric, planned on its own grouped by its dimensions (no filters, no order)."""
        if not f.metric_refs():
            return f
        refs = []
        for name, e in f.refs:
            if isinstance(e, MetricFilterRef):
                smq = SMQ(metrics=(e.metric,), group_by=tuple(g.text for g in e.group_by))
                try:
                    sub = QueryResolver(self.layer, self.graph, self.resolver, self.dialect).resolve(smq)
                except QueryError as err:
                    raise QueryError(f"metric filter {e.text}: {err.message}", code=err.code, location=Location(field=f.field),
                                     suggestions=err.suggestions) from None
                e = replace(e, resolved=replace(sub, order_by=()))
            refs.append((name, e))
        return replace(f, refs=tuple(refs))

    def metric_filter(self, text: str, field: str) -> Filter:
        """A metric's own filter, parsed and checked against the whole layer (never the role's view) once per layer:
        the same text gives the same Filter, whose tree the renderer only ever copies."""
        key = ("metric_filter", text, field)
        found = self.layer.memo.get(key)
        if found is None:
            found = parse_filter(text, field, self.layer_resolver, self.layer.dialect)
            self.layer.memo.put(key, found)
        return cast(Filter, found)

    def query_filter(self, text: str | StructuredFilter, field: str) -> Filter:
        """A query's filter, parsed and checked as this role sees the layer, once per (text, field, role's view): parsing
        was most of resolving a filtered query. The role's hidden names are part of the key (a filter on a name the
        role may not see fails for it however often another role ran it); a failure is never kept."""
        key = ("query_filter", text, field, self.resolver.hidden, self.resolver.hidden_entities)
        found = self.layer.memo.get(key)
        if found is None:
            found = parse_filter(text, field, self.resolver, self.layer.dialect)
            self.layer.memo.put(key, found)
        return cast(Filter, found)

    # -- metrics -> templates over aggregate columns ---------------------------------------
    def _aggregate(self, measure_ref: MeasureRef | None, metric: Metric | None, field: str, inherited: Inherited = ()) -> exp.Expression:
        """One measure's aggregate, restricted by its metric's filters and those of every metric above it (ANDed)."""
        if measure_ref is not None:
            measure = measure_ref.measure
            cumulative = None
        else:
            assert metric is not None and metric.measure
            resolved = self.layer_resolver.resolve(metric.measure, field)
            if not isinstance(resolved, MeasureRef):  # validation guarantees this
                raise InternalError(f"metric {metric.name}: input {metric.measure} is not a measure")
            measure = resolved.measure
            cumulative = metric if metric.type == "cumulative" else None
            inherited = inherited + own_filters(metric)
        unique = dict(reversed(inherited))  # text -> field, each text once (in first-seen order below)
        filters = tuple(self.with_subplans(self.metric_filter(text, unique[text])) for text in dict.fromkeys(t for t, _ in inherited))
        filters = tuple(self.bind_filter(f, measure.model, measure, cumulative, self.layer_resolver) for f in filters)
        texts = tuple(sorted(f.text for f in filters))  # the same filters in any order: one aggregate
        # an offset input's aggregate reads other periods: its own aggregation (plan/offsets.py)
        key = (measure.qualified_name, texts, (cumulative.name if cumulative else "") + offset_key(self.offset))
        agg = self.aggregates.get(key)
        if agg is None:
            # a metric's filters select rows before aggregating (as MetricFlow and plain SQL do): an aggregation
            # of their own, with WHERE, so the metric has a group only where some row passes them
            agg = MeasureColumn(f"a{len(self.aggregates)}", measure)
            self.aggregates[key] = agg
            axis = self.time_dimension(measure, cumulative) if self.axis_used else None
            # a semi-additive measure keeps only its window's rows: aggregated on its own (engine/sql/semi_additive.py)
            own = (f"non_additive:{measure.qualified_name}",) if measure.non_additive else ()
            group_key: GroupKey = (measure.model, texts + own, key[2], axis.qualified_name if axis else "")
            self.groups.setdefault(group_key, []).append(agg)
            self.group_filters[group_key] = filters
            self.group_metric[group_key] = cumulative
            self.group_offset[group_key] = self.offset
            self.first_use.setdefault(group_key, field)
        return placeholder(agg.id)

    def path(self, model: str, ref: DimRef) -> Path:
        """The join path from a measure's model to a dimension: as bound, as named by edge keys, or the shortest."""
        if ref.route is not None:
            return ref.route
        if ref.keys:
            return self.graph.walk_through(model, list(ref.keys), ref.text, ref.model)
        return self.graph.resolve(model, ref.model, ref.text)

    def expand(self, ref: MeasureRef | Metric, field: str, stack: tuple[str, ...] = (), inherited: Inherited = ()) -> exp.Expression:
        if isinstance(ref, MeasureRef):
            return self._aggregate(ref, None, field, inherited)
        if ref.name in stack:
            raise QueryError(f"metrics form a cycle: {' -> '.join(stack + (ref.name,))}", code="metric_cycle", location=Location(field=field))
        stack = stack + (ref.name,)
        if ref.type in ("simple", "cumulative"):
            value = self._aggregate(None, ref, field, inherited)
            if ref.fill_nulls_with is None:
                return value
            # fill_nulls_with: the metric's value where its group has no rows, also as an input (spine rows: timespine_fill.py)
            return exp.Coalesce(this=value, expressions=[exp.Literal.number(ref.fill_nulls_with)])
        if ref.type == "conversion":
            return conversion_template(self, ref, field, inherited)
        inherited = inherited + own_filters(ref)  # a ratio's or derived metric's filters apply to each of its inputs

        def side(role: str, name: str) -> exp.Expression:
            spec = ref.input_spec(role, name)
            target = self._input(spec.name if spec else name, field)
            filters = inherited + (own_filters(spec, f"metric {ref.name}.{role}") if spec else ())
            if spec is None or spec.offset is None:
                return self.expand(target, field, stack, filters)
            return offset_input(self, ref, spec, target, field, stack, filters)  # its rows filtered, read at the shifted period

        if ref.type == "ratio":
            return float_division(side("numerator", ref.numerator or ""), side("denominator", ref.denominator or ""))
        # derived: the expression with each input (or its alias) replaced, divisions made floating and zero-safe; with
        # `semantics: metricflow` the division is the warehouse's own, as MetricFlow writes the expression (x / 0: inf
        # on DuckDB, an error on most engines; NULLIF in the expression says NULL)
        assert ref.expr_node is not None
        body = substitute(ref.expr_node, lambda name: wrap(side("input", name)))
        if self.layer.semantics == "metricflow":
            return body
        return body.transform(lambda n: float_division(n.this, n.expression) if isinstance(n, exp.Div) else n, copy=False)

    def _input(self, name: str | None, field: str) -> MeasureRef | Metric:
        resolved = self.layer_resolver.resolve(name or "", field)
        if not isinstance(resolved, (MeasureRef, Metric)):
            raise InternalError(f"metric input {name} is not a measure or metric")
        return resolved

    # -- the plan --------------------------------------------------------------------------
    def resolve(self, smq: SMQ) -> ResolvedQuery:
        group_keys = tuple(self.resolver.dimension(t, f"group_by[{i}]") for i, t in enumerate(smq.group_by))
        filters = [self.with_subplans(self.query_filter(t, f"filters[{i}]")) for i, t in enumerate(smq.filters)]
        where = tuple(f for f in filters if f.kind == "where")
        self.axis_used = any(r.axis for r in group_keys) or any(r.axis for f in where for r in f.dimension_refs())
        if any(r.axis and r.grain is None and r.date_part is None for r in group_keys):
            group_keys = self.default_grain(group_keys, smq)
        outputs = [OutputColumn(ref.text, placeholder(f"g{i}")) for i, ref in enumerate(group_keys)]
        for i, text in enumerate(smq.metrics):
            field = f"metrics[{i}]"
            outputs.append(OutputColumn(text, self.expand(self.resolver.metric(text, field), field)))
        having = []
        for f in filters:
            if f.kind == "having":
                refs = dict(f.refs)
                having.append(substitute(f.node, lambda name, f=f, refs=refs: wrap(self.expand(refs[name], f.field))))  # type: ignore[misc]
        names = [o.name for o in outputs]
        order = []
        for key in smq.order_by:
            if key.name not in names:
                raise QueryError(f"order_by '{key.name}' is not an output column (order by an entry of group_by or metrics)",
                                 code="invalid_order_by", location=Location(field=key.field), suggestions=nearest(key.name, names))
            order.append((key.name, key.descending))
        # the group keys, after the order asked for, break its ties: one order for the rows, so that pages of a query
        # (LIMIT/OFFSET, engine/paging.py) are its whole result, on every engine (tests/engine/test_paging.py)
        ordered = {name for name, _ in order}
        order += [(ref.text, False) for ref in group_keys if ref.text not in ordered]
        if not smq.metrics and group_keys and all(r.axis for r in group_keys):
            return self.spine_plan(group_keys, where, tuple(order), smq.limit)
        if not smq.metrics and any(r.axis for r in group_keys):
            return self.spine_cross_plan(group_keys, where, tuple(order), smq.limit)
        self._check_fine_grains(group_keys, where, smq)
        groups = self._groups(group_keys, where)
        self._check_engine(groups, smq)
        return ResolvedQuery(group_keys, where, groups, tuple(outputs), tuple(having), tuple(order), smq.limit)

    def spine_plan(self, group_keys: tuple[DimRef, ...], where: tuple[Filter, ...], order: tuple[tuple[str, bool], ...],
                   limit: int | None) -> ResolvedQuery:
        """metric_time without metrics, as MetricFlow answers it: the periods of the time spine."""
        if self.layer.time_spine is None:
            raise QueryError(f"'{group_keys[0].text}' without metrics lists the periods of the time spine, and this layer has none: "
                             "add time_spine (table, column) to database.yml, or add a metric", code="missing_time_spine",
                             location=Location(field="group_by[0]"))
        for f in where:
            if not all(r.axis for r in f.dimension_refs()) or f.metric_refs():
                raise QueryError(f"filter '{f.text}': a query of metric_time without metrics reads only the time spine; "
                                 "filter on metric_time, or add a metric", code="invalid_filter", location=Location(field=f.field))
        return ResolvedQuery(group_keys, where, (), tuple(OutputColumn(r.text, placeholder(f"g{i}")) for i, r in enumerate(group_keys)),
                         (), order, limit, spine_only=True)

    def spine_cross_plan(self, group_keys: tuple[DimRef, ...], where: tuple[Filter, ...], order: tuple[tuple[str, bool], ...],
                         limit: int | None) -> ResolvedQuery:
        """metric_time beside other dimensions without metrics, as MetricFlow answers it: the other dimensions' values
        (a dimension-only query with their filters) crossed with the spine's periods (with metric_time's filters)."""
        on_axis = tuple(f for f in where if f.dimension_refs() and all(r.axis for r in f.dimension_refs()))
        for f in where:
            if f not in on_axis and any(r.axis for r in f.dimension_refs()):
                raise QueryError(f"filter '{f.text}': without metrics, metric_time is the time spine's periods, crossed with the "
                                 "other dimensions; filter on metric_time and on the other dimensions in separate filters",
                                 code="invalid_filter", location=Location(field=f.field))
        others = tuple(r for r in group_keys if not r.axis)
        rest = tuple(f for f in where if f not in on_axis)
        self.axis_used = False
        dims = ResolvedQuery(others, rest, self._groups(others, rest),
                             tuple(OutputColumn(r.text, placeholder(f"g{i}")) for i, r in enumerate(others)), (), (), None)
        spine = self.spine_plan(tuple(r for r in group_keys if r.axis), on_axis, order, limit)
        return replace(spine, group_keys=group_keys,
                       outputs=tuple(OutputColumn(r.text, placeholder(f"g{i}")) for i, r in enumerate(group_keys)), spine_cross=dims)

    def default_grain(self, group_keys: tuple[DimRef, ...], smq: SMQ) -> tuple[DimRef, ...]:
        """A bare `metric_time`: the finest of the queried metrics' time_grain (day for a metric without one)."""
        grains = []
        for text in smq.metrics:
            metric = self.layer.metrics.get(text)
            grains.append(metric.time_grain if metric is not None and metric.time_grain else "day")
        grain = min(grains or ["day"], key=TIME_GRAINS.index)
        return tuple(replace(r, grain=grain) if r.axis and r.grain is None and r.date_part is None else r for r in group_keys)

    def _groups(self, group_keys: tuple[DimRef, ...], where: tuple[Filter, ...]) -> tuple[Aggregation, ...]:
        if not self.groups:  # dimensions only: the first group-by dimension's model is the root
            if group_keys[0].axis:
                raise QueryError(f"'{group_keys[0].text}' needs a metric: metric_time is each metric's own time dimension "
                                 "(alone, without other dimensions, it lists the time spine's periods)",
                                 code="missing_time_dimension", location=Location(field="group_by[0]"))
            # or, where the others cannot be reached from it through many_to_one steps and entities, the next one's
            # (MetricFlow answers whatever the order: `user__home_state_latest, listing__country_latest` from listings)
            roots = list(dict.fromkeys(r.model for r in group_keys if not r.axis))
            first: QueryError | None = None
            for root in roots:
                try:
                    return (self._group("f0", root, (), (), None, group_keys, where, "group_by[0]"),)
                except QueryError as err:
                    first = first or err
            assert first is not None
            raise first
        out = []
        for i, (key, aggs) in enumerate(self.groups.items()):
            group = self._group(f"f{i}", key[0], tuple(aggs), self.group_filters[key], self.group_metric[key],
                                group_keys, where, self.first_use[key])
            offset = self.group_offset.get(key)
            if offset is not None:
                group = replace(group, offset=check_offset_keys(self.layer, group, offset, self.first_use[key]))
            out.append(with_conversion(group, self.group_conversion[key]) if key in self.group_conversion else group)
        for group in out:
            check_conversions(group)
            check_offset_reads(group)
        return tuple(out)

    def _group(self, gid: str, model: str, aggs: tuple[MeasureColumn, ...], metric_filters: tuple[Filter, ...],
               cumulative: Metric | None, group_keys: tuple[DimRef, ...], where: tuple[Filter, ...], origin: str) -> Aggregation:
        measure = aggs[0].measure if aggs else None
        group_keys = tuple(self.bind(ref, model, measure, cumulative, f"group_by[{i}]") for i, ref in enumerate(group_keys))
        where = tuple(self.bind_filter(f, model, measure, cumulative) for f in where)
        needed: list[tuple[DimRef, str]] = [(ref, f"group_by[{i}]") for i, ref in enumerate(group_keys)]
        for f in (*where, *metric_filters):
            needed += [(ref, f.field) for ref in f.dimension_refs()]
        if cumulative is not None:
            time_ref = self.layer_resolver.dimension(cumulative.time_dimension or "", f"metric {cumulative.name}.time_dimension")
            if not any(ref.dimension is time_ref.dimension for ref in group_keys) and all_time(cumulative):
                cumulative = None  # no periods: an all-time running total is the plain aggregate of every row (as in MetricFlow)
            elif not any(ref.dimension is time_ref.dimension for ref in group_keys):
                raise QueryError(
                    f"cumulative metric '{cumulative.name}' needs its time dimension {cumulative.time_dimension} in group_by "
                    f"(at any grain, e.g. {cumulative.time_dimension}__month): its "
                    + (f"window ({cumulative.window.count} {cumulative.window.unit}s)" if cumulative.window else
                       f"grain_to_date ({cumulative.grain_to_date})") + " ends at a period; only an all-time cumulative metric is read without one (as its total)",
                    code="missing_time_dimension", location=Location(field=origin),
                )
            if cumulative is not None and all(ref.date_part for ref in group_keys if ref.dimension is time_ref.dimension):
                raise QueryError(  # a date part is the period's: the periods need a grain
                    f"cumulative metric '{cumulative.name}' is grouped by a date part of its time dimension "
                    f"{cumulative.time_dimension} only; add the dimension at a grain (e.g. {cumulative.time_dimension}__day): "
                    "the date part is that of each period", code="missing_time_dimension", location=Location(field=origin))
            if cumulative is not None:
                check_custom_cumulative(self.layer, cumulative, group_keys, time_ref.dimension, origin)
                needed.append((time_ref, origin))
        paths: dict[tuple[str, tuple[str, ...]], tuple[DimRef, Path]] = {}
        fan_out = None
        for ref, field in needed:
            ident = (ref.dimension.qualified_name, ref.keys)
            if ident in paths:
                continue
            try:
                path = self.path(model, ref)
            except QueryError as err:
                measure_note = f" (the model of {origin})" if aggs else ""
                raise QueryError(f"{err.message}; it is needed from {model}{measure_note}", code=err.code,
                                 location=Location(field=field), suggestions=err.suggestions) from None
            if path and path[-1].target != ref.model:
                raise QueryError(f"'{ref.text}': the path {path_text(model, path)} ends at {path[-1].target}, not {ref.model}",
                                 code="invalid_path", location=Location(field=field))
            paths[ident] = (ref, path)
            if fan_out is None and any(step.fans_out for step in path):
                fan_out = path_text(model, path)
        dedupe = fan_out is not None and bool(aggs)
        if dedupe and not self.layer.models[model].primary_key:
            raise QueryError(
                f"{model} has no primary_key, but this query joins across a one_to_many step ({fan_out}); "
                f"its measures would be counted more than once. Declare primary_key on {model}",
                code="fan_out_without_primary_key", location=Location(field=origin),
            )
        time_filters: tuple[Filter, ...] = ()
        if cumulative is not None:  # filters on its time dimension choose periods, not rows
            time_filters = tuple(f for f in where if f.dimension_refs()
                                 and all(d.dimension.qualified_name == cumulative.time_dimension for d in f.dimension_refs()))
        reads = CumulativeRead(cumulative, time_filters) if cumulative is not None else RowsRead()
        return Aggregation(gid, model, aggs, metric_filters, tuple(paths.values()), dedupe, fan_out, group_keys, where, reads)


    def _check_fine_grains(self, group_keys: tuple[DimRef, ...], where: tuple[Filter, ...], smq: SMQ) -> None:
        """What is not read at a grain, refused naming both: a conversion metric below a day (its window counts days) or
        by a custom granularity; join_to_timespine by a custom granularity. Below a day the spine is read at the query's
        grain (render/spine_periods.py); cumulative metrics and offsets read a custom granularity's days."""
        custom = self.layer.time_spine.custom_grains if self.layer.time_spine is not None else {}
        named = [(r, f"group_by[{i}]") for i, r in enumerate(group_keys)]
        named += [(r, f.field) for f in where for r in f.dimension_refs()]
        for ref, at in named:
            if ref.grain not in custom and ref.grain not in SUB_DAILY_GRAINS:
                continue
            below = ref.grain in SUB_DAILY_GRAINS
            what = next((w for t in smq.metrics if (w := self._reads_spine(t, frozenset(), fill=not below))), None)
            if what is None:
                continue
            kind = f"grain '{ref.grain}'" if below else "a custom granularity"
            raise QueryError(f"'{ref.text}': {kind} with {what}, which reads the time spine by day: "
                             "use day or a standard grain", code="unsupported_grain", location=Location(field=at),
                             suggestions=[ref.text.rsplit("__", 1)[0] + "__day"])

    def _reads_spine(self, name: str, seen: frozenset[str], fill: bool = True) -> str | None:
        """What in this metric (or an input at any depth) reads the time spine by day where a query's grain cannot
        change it: a conversion metric, join_to_timespine (unless `fill` is False); None when nothing does."""
        metric = self.layer.metrics.get(name)
        if metric is None or name in seen:
            return None
        if metric.type == "conversion":
            return f"conversion metric '{name}'"
        if fill and metric.join_to_timespine:
            return f"join_to_timespine (metric '{name}')"
        return next((w for n in metric.inputs() if (w := self._reads_spine(n, seen | {name}, fill))), None)

    def _check_engine(self, groups: tuple[Aggregation, ...], smq: SMQ) -> None:
        """What the target engine cannot compute, refused naming the query field that reads it."""
        if self.dialect.percentiles != "none":
            return
        for group in groups:
            for column in group.columns:
                if column.measure.agg in PERCENTILE_AGGS:
                    raise QueryError(
                        f"measure {column.measure.qualified_name} is a {column.measure.agg} ({column.measure.percentile_kind}), and "
                        f"{self.dialect.display} has no percentile aggregate; query it on an engine that has one (DuckDB, "
                        "PostgreSQL, Snowflake, Spark, ...)", code="unsupported_aggregation",
                        location=Location(field=reading_field(self.layer, smq, column.measure.qualified_name)))


def check_custom_cumulative(layer: SemanticLayer, metric: Metric, keys: tuple[DimRef, ...], dim: Dimension, origin: str) -> None:
    """A cumulative metric by a custom granularity, or to date of one, is read day by day from the spine's column:
    refused below a day (the generated hour spine has no custom columns)."""
    custom = layer.time_spine.custom_grains if layer.time_spine is not None else {}
    fine = next((r for r in keys if r.dimension is dim and r.grain in SUB_DAILY_GRAINS), None)
    mixed = metric.grain_to_date in custom or any(r.dimension is dim and r.grain in custom for r in keys)
    if fine is not None and mixed:
        raise QueryError(f"cumulative metric '{metric.name}': a custom granularity is read by day, not by {fine.grain} ('{fine.text}'); "
                         "group by day or coarser", code="unsupported_grain", location=Location(field=origin),
                         suggestions=[fine.text.rsplit("__", 1)[0] + "__day"])


def all_time(metric: Metric) -> bool:
    """A cumulative metric over all history: neither a window nor a grain to date."""
    return metric.window is None and not metric.grain_to_date


def reading_field(layer: SemanticLayer, smq: SMQ, measure: str) -> str:
    """`metrics[i]`: the first of the query's metrics that reads `measure` (itself or through its inputs), else the
    measure's name (a metric filter's)."""
    def reads(name: str, seen: set[str]) -> bool:
        if name == measure:
            return True
        metric = layer.metrics.get(name)
        if metric is None or name in seen:
            return False
        seen.add(name)
        return any(reads(n, seen) for n in (*metric.inputs(), *(i.name for i in metric.input_specs)))

    return next((f"metrics[{i}]" for i, name in enumerate(smq.metrics) if reads(name, set())), measure)
