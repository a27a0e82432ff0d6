"""An offset input's aggregation: the measure's rows joined to the time spine shifted by the offset.

MetricFlow's semantics: the spine's day `d` takes the rows whose day is `d - window` (offset_window)
or `DATE_TRUNC(grain, d)` (offset_to_grain), with an INNER JOIN, and the query's periods are the
spine's. When the query's finest grain on the time axis is the offset's own grain, the join is made
at that grain instead (MetricFlow joins after aggregating then), so `1 month` by month reads the
whole previous month. Group keys on the shifted time dimension read the spine's period; filters on it
hold for both the period and the rows read. Nested offsets apply their steps in turn (`read_period`).
"""

from __future__ import annotations

from typing import cast

from sqlglot import exp

from ..dialects.base import Dialect
from ..errors import Location, QueryError
from ..layer.inputs import Offset
from ..layer.model import SUB_DAILY_GRAINS, TIME_GRAINS, Dimension, SemanticLayer
from ..resolve.filters import Filter
from ..resolve.names import DimRef
from ..resolve.offsets import is_custom_offset, offset_join_grain
from ..resolve.resolved import Aggregation
from ..trees import fresh
from .cumulative import cumulative_ctes
from .render import JoinTree, Renderer, cumulative_metric, cumulative_of, qualify
from .spine_periods import spine_at
from .sqltree import aliased, col, ident


def join_grain(offset: Offset, keys: tuple[DimRef, ...], dim: Dimension) -> str:
    """Day, or the queried grain where the offset moves whole periods of it (plan/offsets.py offset_join_grain)."""
    grains = [ref.grain or "day" for ref in keys if ref.dimension is dim and not ref.keys and not ref.date_part
              and (ref.grain or "day") in TIME_GRAINS]  # a custom granularity is read from the day
    finest = min(grains, key=TIME_GRAINS.index) if grains else "day"
    grain = offset_join_grain(offset, finest)
    assert grain is not None, "planned: nested offsets the spine cannot join exactly are refused"
    return grain


def read_period(period: exp.Expression, offset: Offset, dialect: Dialect, sub_daily: bool = False) -> exp.Expression:
    """The period a spine period reads: each step of the offset applied in turn (outermost first); `sub_daily`:
    the periods are timestamps (an hour moved by a day stays an hour)."""
    for step in offset.steps:
        if step.window is not None:
            shift = dialect.shift_time if sub_daily else dialect.shift
            period = shift(period, -step.window.count, step.window.unit)
        else:
            period = dialect.truncate(period, str(step.to_grain))
    return period


def offset_ctes(renderer: Renderer, group: Aggregation, keys: tuple[DimRef, ...], where: tuple[Filter, ...]) -> list[tuple[str, exp.Select]]:
    """`<id>_periods` (the spine at the join grain) and `<id>` (keys and aggregates, periods shifted)."""
    offset = group.offset
    layer, dialect = renderer.layer, renderer.dialect
    assert offset is not None and layer.time_spine is not None, "validated: an offset input needs a time spine"
    model = layer.models[group.model]
    dim = model.time_dimension_of(group.columns[0].measure)
    assert dim is not None, "planned: an offset input's measure has a time dimension"
    grain = join_grain(offset, keys, dim)
    spine = layer.time_spine
    spine_col = col(spine.column, "spine")
    periods_name = f"{group.id}_periods"
    period_expr = dialect.truncate(spine_col, grain)  # a DATE, as the other aggregations group by
    periods = exp.Select(expressions=[exp.alias_(period_expr, "period", quoted=True)]).from_(spine_at(spine, dialect, grain), copy=False)
    if grain != "day":
        periods = periods.distinct(copy=False)
    custom = is_custom_offset(layer, offset)
    # each period with the period it reads as a column: a lookup, not an expression; for a custom granularity by
    # row position (custom_offset_periods), on an engine joining by nested loops (SQLite) so that the join is on a
    # column it indexes (automatic index of the CTE, materialized: DISTINCT), not a whole pass per row read
    looked_up = custom or dialect.loop_joins
    if custom:
        periods = custom_offset_periods(layer, dialect, offset)
    elif dialect.loop_joins:
        periods.select(exp.alias_(read_period(fresh(period_expr), offset, dialect, grain in SUB_DAILY_GRAINS), "read", quoted=True),
                       copy=False).distinct(copy=False)

    paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in group.paths}
    tree = JoinTree(model, list(group.paths), layer, renderer.source_for)
    period = col("period", "p")

    def render_ref(ref: DimRef) -> exp.Expression:
        if ref.dimension is dim and not ref.keys:  # the shifted axis: the spine's period
            if ref.date_part:
                return dialect.date_part(period.copy(), ref.date_part)
            if ref.grain is None and grain in SUB_DAILY_GRAINS:  # the time itself: below a day, the finest period
                return period.copy()
            return period.copy() if (ref.grain or "day") == grain else renderer.period(period.copy(), ref.grain or "day")
        return renderer.dim_expr(ref, tree, paths[(ref.dimension.qualified_name, ref.keys)])

    row_time = qualify(dim.node, tree.root_alias)
    row_period = dialect.to_date(row_time) if grain == "day" else dialect.truncate(row_time, grain)
    read = col("read", "p") if looked_up else read_period(period.copy(), offset, dialect, grain in SUB_DAILY_GRAINS)
    on = exp.EQ(this=read, expression=row_period)
    query = tree.select().join(exp.Join(this=exp.Table(this=ident(periods_name), alias=exp.TableAlias(this=ident("p"))),
                                        on=on, kind="INNER"), copy=False)
    conditions = [renderer.filter_expr(f, render_ref) for f in (*where, *group.metric_filters)]
    # a filter on the shifted axis holds for the rows read too (at their own time), as MetricFlow filters
    # them before joining the spine: `metric_time >= '2024-01-01'` gives January nothing from December
    conditions += [renderer.filter_expr(f, lambda ref: renderer.dim_expr(ref, tree, paths[(ref.dimension.qualified_name, ref.keys)]))
                   for f in where if any(ref.dimension is dim and not ref.keys for ref in f.dimension_refs())]
    conditions += _one_day_per_period(offset, keys, dim, grain, period, dialect)
    if conditions:
        query = query.where(*conditions, copy=False)
    key_exprs = [render_ref(ref) for ref in keys]
    if not dialect.correlated_group_keys:  # a custom granularity's lookups as joins of the spine (render.py)
        query, key_exprs = renderer.joined_lookups(query, key_exprs)
    if group.dedupe:  # one row per (primary key, spine day) and group before aggregating, as group_parts does
        projection = [exp.alias_(qualify(pk, tree.root_alias), f"__pk{i}", quoted=True) for i, pk in enumerate(model.primary_key_nodes)]
        projection.append(exp.alias_(fresh(period), "__period", quoted=True))
        projection += [exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_exprs)]
        projection += [exp.alias_(renderer.measure_input(a, tree.root_alias), f"i{a.id[1:]}", quoted=True)
                       for a in group.columns]
        inner = query.select(*projection, copy=False).distinct(copy=False)
        query = exp.Select().from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("dedup"))), copy=False)
        key_exprs = [col(f"g{i}", "dedup") for i in range(len(key_exprs))]
        aggs = {a.id: renderer.aggregate(a.measure.agg, col(f"i{a.id[1:]}", "dedup")) for a in group.columns}
    else:
        aggs = {a.id: renderer.aggregate(a.measure.agg, renderer.measure_input(a, tree.root_alias)
                                         if a.measure.node is not None else None) for a in group.columns}
    projection = [exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_exprs)]
    projection += [exp.alias_(v, k, quoted=True) for k, v in aggs.items()]
    final = query.select(*projection, copy=False).group_by(*[fresh(k) for k in key_exprs], copy=False)
    return [(periods_name, periods), (group.id, final)]


def custom_offset_periods(layer: SemanticLayer, dialect: Dialect, offset: Offset) -> exp.Select:
    """`period` (a spine day) and `read` (the day whose rows it reports), for an offset in a custom granularity, as
    MetricFlow maps them: the day at the same position (row number by day) in the period `count` periods earlier
    (periods ordered by the custom column's value); none where that period is shorter. offset_to_grain: the first
    day of the day's own period."""
    spine = layer.time_spine
    assert spine is not None and offset.grain in spine.custom_grains
    value = col(spine.custom_grains[offset.grain].column, "spine")
    day = col(spine.column, "spine")
    ranked = exp.Select(expressions=[
        exp.alias_(day.copy(), "day", quoted=True),
        exp.alias_(exp.Window(this=exp.Anonymous(this="DENSE_RANK"), order=exp.Order(expressions=[exp.Ordered(this=value.copy())])),
                   "k", quoted=True),
        exp.alias_(exp.Window(this=exp.RowNumber(), partition_by=[value.copy()], order=exp.Order(expressions=[exp.Ordered(this=day.copy())])),
                   "rn", quoted=True),
    ]).from_(aliased(spine.table_node, "spine"), copy=False).where(exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())), copy=False)
    back = offset.window.count if offset.window is not None else 0
    on = exp.and_(exp.EQ(this=col("k", "b"), expression=exp.Sub(this=col("k", "a"), expression=exp.Literal.number(back)) if back else col("k", "a")),
                  exp.EQ(this=col("rn", "b"), expression=col("rn", "a") if offset.window is not None else exp.Literal.number(1)))
    return (exp.Select(expressions=[exp.alias_(dialect.to_date(col("day", "a")), "period", quoted=True),
                                    exp.alias_(dialect.to_date(col("day", "b")), "read", quoted=True)])
            .from_(exp.Subquery(this=ranked, alias=exp.TableAlias(this=ident("a"))), copy=False)
            .join(exp.Subquery(this=ranked.copy(), alias=exp.TableAlias(this=ident("b"))), on=on, join_type="INNER", copy=False))


def _one_day_per_period(offset: Offset, keys: tuple[DimRef, ...], dim: Dimension, grain: str,
                        period: exp.Column, dialect: Dialect) -> list[exp.Expression]:
    """offset_to_grain joined by day but queried above it: keep one spine day per queried period (its first),
    else every day of the period would read the same rows again (MetricFlow's filter)."""
    if offset.to_grain is None or offset.then is not None or grain != "day":  # nested: only by day (plan/offsets.py)
        return []
    grains = [ref.grain or "day" for ref in keys if ref.dimension is dim and not ref.keys and not ref.date_part]
    if not grains or "day" in grains:
        return []
    tests: list[exp.Expression] = [exp.EQ(this=dialect.truncate(fresh(period), g), expression=fresh(period)) for g in dict.fromkeys(grains)]
    return [cast(exp.Expression, exp.or_(*tests)) if len(tests) > 1 else tests[0]]



def offset_cumulative(renderer: Renderer, group: Aggregation, keys: tuple[DimRef, ...]) -> list[tuple[str, exp.Select]]:
    """A cumulative metric read at an offset: its running values (the last CTE) looked up at the shifted period,
    for each period of the spine (an inner join, as for any offset input). The query groups its time dimension
    at one grain: by day, or (offset_window) by the window's own unit, where periods map one to one; a date part
    of it is the reported period's. A filter on the time dimension picks the periods reported, as MetricFlow
    filters the final periods: the values looked up are the running values, whatever the filter (computed
    only for the periods looked up)."""
    offset, metric = group.offset, cumulative_metric(group)
    assert offset is not None and metric is not None and renderer.layer.time_spine is not None
    dialect = renderer.dialect
    time_keys = [i for i, ref in enumerate(keys) if ref.dimension.qualified_name == metric.time_dimension]
    grains = {keys[i].grain or "day" for i in time_keys if not keys[i].date_part}
    grain = next(iter(grains)) if len(grains) == 1 else ""
    if grain not in ("day", offset.grain if offset.window is not None else "day"):
        raise QueryError(f"cumulative metric '{metric.name}' read at an offset ({offset}) is supported by day"
                         + (f" or by {offset.grain}" if offset.window is not None and offset.grain != "day" else "")
                         + f", with its time dimension in group_by at one grain (got {', '.join(sorted(grains)) or 'none'})",
                         code="unsupported_offset", location=Location(field="group_by"))
    spine = renderer.layer.time_spine
    day = col(spine.column, "spine")
    unshifted = f"{group.id}_unshifted"
    periods_name = f"{group.id}_shifted_periods"
    periods = (exp.Select(expressions=[exp.alias_(dialect.truncate(fresh(day), grain), "period", quoted=True)])
               .from_(aliased(spine.table_node, "spine"), copy=False).distinct(copy=False))
    if cumulative_of(group).time_filters:
        periods = periods.where(*[renderer.filter_expr(f, renderer.on_spine(day)) for f in cumulative_of(group).time_filters], copy=False)
    period = col("period", "p")
    looked_up = (dialect.shift(fresh(period), -offset.window.count, offset.window.unit) if offset.window is not None
                 else dialect.truncate(fresh(period), str(offset.to_grain)))
    read = (exp.Select(expressions=[fresh(looked_up)]).from_(exp.Table(this=ident(periods_name), alias=exp.TableAlias(this=ident("p"))), copy=False)
            if cumulative_of(group).time_filters else None)
    ctes = cumulative_ctes(renderer, group, keys, group.where, cumulative_of(group).time_filters, read)
    join_key = next(i for i in time_keys if not keys[i].date_part)
    key_exprs = [col(f"g{i}", "c") if i not in time_keys else dialect.date_part(fresh(period), str(keys[i].date_part))
                 if keys[i].date_part else fresh(period) for i in range(len(keys))]
    final = (exp.Select(expressions=[*[exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_exprs)],
                                     *[exp.alias_(col(a.id, "c"), a.id, quoted=True) for a in group.columns]])
             .from_(exp.Table(this=ident(periods_name), alias=exp.TableAlias(this=ident("p"))), copy=False)
             .join(exp.Table(this=ident(unshifted), alias=exp.TableAlias(this=ident("c"))),
                   on=exp.EQ(this=col(f"g{join_key}", "c"), expression=looked_up), join_type="INNER", copy=False))
    name, last = ctes[-1]
    return [(periods_name, periods), *ctes[:-1], (unshifted, last), (name, final)]
