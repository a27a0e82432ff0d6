"""The conversions of a conversion metric, as MetricFlow counts them.

Every conversion event (a row of the conversion measure's model) is joined to the base events of the
same entity at or before it (`base day <= conversion day`, and `base day > conversion day - window`
with a window), with the constant properties equal on both; it is attributed to the closest preceding
base event only (the latest base day, one base row), whose group keys it takes. The conversion
measure is then aggregated over the attributed events per group. Days are compared, not timestamps.
"""

from __future__ import annotations

from typing import cast

from sqlglot import exp

from ..dialects.base import Dialect
from ..errors import Location, QueryError
from ..layer.exprs import parse_expression
from ..layer.model import GRAINS, Dimension, Measure, Model
from ..resolve.filters import Filter, MetricFilterRef
from ..resolve.names import DimRef
from ..resolve.resolved import Aggregation
from ..trees import fresh
from .metric_joins import join_metric_filters, metric_aware
from .offsets import _one_day_per_period, join_grain, read_period
from .render import JoinTree, Renderer, conversions_of, qualify
from .sqltree import aliased, col, ident


def _entity(model: Model, entity: str, alias: str, dialect: Dialect) -> exp.Expression:
    return qualify(parse_expression(model.entities[entity].expr, dialect.name), alias)


def conversion_ctes(renderer: Renderer, group: Aggregation, keys: tuple[DimRef, ...], where: tuple[Filter, ...]) -> list[tuple[str, exp.Select]]:
    """`<id>_base` (base events with their keys), `<id>_conversions` (conversion events), `<id>_attributed`
    (each conversion with its closest preceding base event) and `<id>` (the conversions per group)."""
    metric = conversions_of(group).metric
    assert metric is not None and metric.conversion is not None, "planned: a conversions group has its metric"
    params = metric.conversion
    layer, dialect = renderer.layer, renderer.dialect
    if group.dedupe:
        raise QueryError(f"conversion metric '{metric.name}': grouping across a one_to_many step ({group.fan_out_path}) would "
                         "repeat base events; this is not supported yet", code="fan_out_without_primary_key",
                         location=Location(field="group_by"))
    base_model = layer.models[group.model]
    base_measure = group.columns[0].measure
    conv_model_name, _, conv_name = params.conversion_measure.partition("__")
    conv_model = layer.models[conv_model_name]
    conv_measure = conv_model.measures[conv_name]
    base_time, conv_time = base_model.time_dimension_of(base_measure), conv_model.time_dimension_of(conv_measure)
    assert base_time is not None and conv_time is not None, "validated: both measures sit on a time axis"

    paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in group.paths}
    tree = JoinTree(base_model, list(group.paths), layer, renderer.source_for)

    @metric_aware  # a metric filter's value is its joined subquery's column
    def render_ref(ref: DimRef) -> exp.Expression:
        return renderer.dim_expr(ref, tree, paths[(ref.dimension.qualified_name, ref.keys)])

    grain = compare_grain(base_time, conv_time)
    shifted = {i for i, ref in enumerate(keys) if ref.dimension is base_time and not ref.keys} if group.offset else set()
    base_alias = tree.root_alias
    projection = [exp.alias_(_entity(base_model, params.entity, base_alias, dialect), "entity", quoted=True),
                  exp.alias_(_period(qualify(base_time.node, base_alias), grain, dialect), "t", quoted=True)]
    carried_refs = period_filter_refs(where, base_time) if group.offset else []
    if group.offset:  # the base event's day: where it lands once shifted, and what a filter on the period reads
        projection.append(exp.alias_(dialect.to_date(qualify(base_time.node, base_alias)), "d", quoted=True))
        # metric_aware renders a metric filter's value too
        projection += [exp.alias_(render_ref(cast(DimRef, ref)), f"f{i}", quoted=True) for i, ref in enumerate(carried_refs)]
    for i, (left, _) in enumerate(params.constant_properties):
        projection.append(exp.alias_(qualify(base_model.dimensions[left.partition("__")[2]].node, base_alias), f"c{i}", quoted=True))
    projection += [exp.alias_(exp.Null() if i in shifted else render_ref(ref), f"g{i}", quoted=True) for i, ref in enumerate(keys)]
    row_filters = (*where, *group.metric_filters)  # the query's filters and the metric's: on the base events
    base_rows = join_metric_filters(tree.select(), row_filters, render_ref, renderer).select(*projection, copy=False)
    conditions = [renderer.filter_expr(f, render_ref) for f in row_filters]
    if conditions:
        base_rows = base_rows.where(*conditions, copy=False)

    conv_rows = _conversion_events(renderer, group, conv_model, conv_measure, conv_time, grain)
    base_name, conv_name_cte, attributed_name = f"{group.id}_base", f"{group.id}_conversions", f"{group.id}_attributed"
    on: list[exp.Expression] = [exp.EQ(this=col("entity", "b"), expression=col("entity", "c")),
                                exp.LTE(this=col("t", "b"), expression=col("t", "c"))]
    if params.window is not None:
        on.append(exp.GT(this=col("t", "b"), expression=dialect.shift(col("t", "c"), -params.window.count, params.window.unit)))
    on += [exp.EQ(this=col(f"c{i}", "b"), expression=col(f"c{i}", "c")) for i in range(len(params.constant_properties))]
    closest = exp.Window(this=exp.RowNumber(), partition_by=[col("id", "c")],
                         order=exp.Order(expressions=[exp.Ordered(this=col("t", "b"), desc=True)]))
    carried = [col("d", "b"), *[col(f"f{i}", "b") for i in range(len(carried_refs))]] if group.offset else []
    attributed = (
        exp.Select(expressions=[col("v", "c"), *[col(f"g{i}", "b") for i in range(len(keys))], *carried,
                                exp.alias_(closest, "rn", quoted=True)])
        .from_(exp.Table(this=ident(base_name), alias=exp.TableAlias(this=ident("b"))), copy=False)
        .join(exp.Table(this=ident(conv_name_cte), alias=exp.TableAlias(this=ident("c"))), on=exp.and_(*on), join_type="INNER", copy=False)
    )
    if group.offset is not None:
        return [(base_name, base_rows), (conv_name_cte, conv_rows), (attributed_name, attributed),
                *shifted_conversions(renderer, group, keys, where, attributed_name, base_time, shifted, conv_measure.agg)]
    key_cols = [col(f"g{i}") for i in range(len(keys))]
    counted = (exp.Select(expressions=[*[exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_cols)],
                                       exp.alias_(renderer.aggregate(conv_measure.agg, col("v")), group.columns[0].id, quoted=True)])
               .from_(ident(attributed_name), copy=False).where(exp.EQ(this=col("rn"), expression=exp.Literal.number(1)), copy=False))
    if key_cols:
        counted = counted.group_by(*[fresh(k) for k in key_cols], copy=False)
    return [(base_name, base_rows), (conv_name_cte, conv_rows), (attributed_name, attributed), (group.id, counted)]


def _on_axis(f: Filter, dim: Dimension) -> bool:
    return any(r.dimension is dim and not r.keys for r in f.dimension_refs())


def period_filter_refs(where: tuple[Filter, ...], dim: Dimension) -> list[DimRef | MetricFilterRef]:
    """The other values query filters that read the shifted axis use: carried with each base event (`f<i>`), so such
    a filter holds for the spine period as it does for a simple metric's rows read at an offset (sql/offsets.py).
    A metric filter's value (metric_aware renders it) is carried as a dimension's is."""
    out: list[DimRef | MetricFilterRef] = []
    for f in where:
        if _on_axis(f, dim):
            for _, r in f.refs:
                axis = isinstance(r, DimRef) and r.dimension is dim and not r.keys
                if isinstance(r, DimRef | MetricFilterRef) and not axis and r not in out:
                    out.append(r)
    return out


def compare_grain(base_time: Dimension, conv_time: Dimension) -> str:
    """The grain base and conversion times are compared at: the coarsest grain either time dimension declares
    (MetricFlow's minimum queryable grain of the metric), else day."""
    declared = [g for g in (base_time.grain, conv_time.grain) if g]
    return max(declared, key=GRAINS.index) if declared else "day"


def _period(value: exp.Expression, grain: str, dialect: Dialect) -> exp.Expression:
    return dialect.to_date(value) if grain == "day" else dialect.truncate(value, grain)


def _conversion_events(renderer: Renderer, group: Aggregation, model: Model, measure: Measure, time: Dimension,
                       grain: str) -> exp.Select:
    """One row per conversion event (a numbered id, the entity, its period, its value, its constant properties),
    restricted by the conversion_measure's filters (their dimensions joined many_to_one)."""
    metric = conversions_of(group).metric
    assert metric is not None and metric.conversion is not None
    params, dialect = metric.conversion, renderer.dialect
    if conversions_of(group).filters:
        tree = JoinTree(model, list(conversions_of(group).paths), renderer.layer, renderer.source_for)
        alias = tree.root_alias
        paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in conversions_of(group).paths}

        @metric_aware
        def render_ref(ref: DimRef) -> exp.Expression:
            return renderer.dim_expr(ref, tree, paths[(ref.dimension.qualified_name, ref.keys)])

        rows = join_metric_filters(tree.select(), conversions_of(group).filters, render_ref, renderer)
        rows = rows.where(*[renderer.filter_expr(f, render_ref) for f in conversions_of(group).filters], copy=False)
    else:
        alias = "conversion_events"
        rows = exp.Select().from_(aliased(renderer.source_for(model), alias), copy=False)
    day = _period(qualify(time.node, alias), grain, dialect)
    value = qualify(measure.node, alias) if measure.node is not None else exp.Literal.number(1)
    projection = [
        exp.alias_(exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=[exp.Ordered(this=fresh(day))])), "id", quoted=True),
        exp.alias_(_entity(model, params.entity, alias, dialect), "entity", quoted=True),
        exp.alias_(day, "t", quoted=True),
        exp.alias_(value, "v", quoted=True),
    ]
    for i, (_, right) in enumerate(params.constant_properties):
        projection.append(exp.alias_(qualify(model.dimensions[right.partition("__")[2]].node, alias), f"c{i}", quoted=True))
    return rows.select(*projection, copy=False)


def shifted_conversions(renderer: Renderer, group: Aggregation, keys: tuple[DimRef, ...], where: tuple[Filter, ...], attributed: str,
                        dim: Dimension, shifted: set[int], agg: str) -> list[tuple[str, exp.Select]]:
    """A conversion metric read at an offset: each attributed conversion counts at the spine period whose shifted day
    (or grain start) is its base event's day, as a simple metric's rows do (sql/offsets.py); the other keys are the
    base event's. A query filter on the shifted axis alone holds for the period too (it held for the base events)."""
    offset, layer, dialect = group.offset, renderer.layer, renderer.dialect
    assert offset is not None and layer.time_spine is not None, "validated: an offset input needs a time spine"
    grain = join_grain(offset, keys, dim)
    periods_name = f"{group.id}_periods"
    periods = (exp.Select(expressions=[exp.alias_(dialect.truncate(col(layer.time_spine.column, "spine"), grain), "period", quoted=True)])
               .from_(aliased(layer.time_spine.table_node, "spine"), copy=False))
    if grain != "day":
        periods = periods.distinct(copy=False)
    period = col("period", "p")

    def on_axis(ref: DimRef) -> exp.Expression:
        if ref.date_part:
            return dialect.date_part(fresh(period), ref.date_part)
        return fresh(period) if (ref.grain or "day") == grain else dialect.truncate(fresh(period), ref.grain or "day")

    row_day = col("d", "a") if grain == "day" else dialect.truncate(col("d", "a"), grain)
    looked_up = read_period(fresh(period), offset, dialect)  # every step of a nested offset, outermost first
    conditions: list[exp.Expression] = [exp.EQ(this=col("rn", "a"), expression=exp.Literal.number(1))]
    carried = period_filter_refs(where, dim)

    def on_period(ref: DimRef) -> exp.Expression:  # the axis is the spine's period, any other value the base event's
        return on_axis(ref) if isinstance(ref, DimRef) and ref.dimension is dim and not ref.keys else col(f"f{carried.index(ref)}", "a")

    conditions += [renderer.filter_expr(f, on_period) for f in where if _on_axis(f, dim)]
    conditions += _one_day_per_period(offset, keys, dim, grain, period, dialect)
    key_exprs = [on_axis(ref) if i in shifted else col(f"g{i}", "a") for i, ref in enumerate(keys)]
    counted = (exp.Select(expressions=[*[exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_exprs)],
                                       exp.alias_(renderer.aggregate(agg, col("v", "a")), group.columns[0].id, quoted=True)])
               .from_(exp.Table(this=ident(attributed), alias=exp.TableAlias(this=ident("a"))), copy=False)
               .join(exp.Table(this=ident(periods_name), alias=exp.TableAlias(this=ident("p"))),
                     on=exp.EQ(this=looked_up, expression=row_day), join_type="INNER", copy=False)
               .where(*conditions, copy=False))
    if key_exprs:
        counted = counted.group_by(*[fresh(k) for k in key_exprs], copy=False)
    return [(periods_name, periods), (group.id, counted)]
