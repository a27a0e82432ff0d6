"""Cumulative metrics: a CTE of periods from the time spine joined to the rows in each period's window.

Two choices shape the SQL (engine/layer/elements.py reads them):
- `periods`: `data_range` (ours, the default) gives every period from the first to the last with rows, a period
  with nothing in its window included (NULL, or 0 for a count); `nonempty_window` (MetricFlow's) gives every
  period of the spine whose window holds some row, so an all-time total continues to the spine's end.
- `period_agg` above day grain: `last` (the default) reads the window ending with the period's last day,
  `first` its first day, `average` the mean of the period's daily values. The daily shape (a value per
  spine day, then one per period) is needed for `average`, and for `first`/`last` with `nonempty_window`,
  where MetricFlow takes the first/last day that has a value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from sqlglot import exp

from ..dialects.base import Dialect
from ..layer.model import GRAINS, SUB_DAILY_GRAINS, SUM_OF_COUNTS, TIME_GRAINS
from ..resolve.filters import Filter
from ..resolve.names import DimRef
from ..trees import fresh
from .metric_joins import join_metric_filters, metric_aware
from .render import JoinTree, cumulative_metric, qualify
from .spine_periods import spine_at
from .sqltree import add_group, add_join, add_select, add_where, aliased, col, conjunction, ident, set_from

if TYPE_CHECKING:
    from ..resolve.resolved import Aggregation
    from .render import Renderer

_REAGGREGATE = ("sum", "count", "min", "max", SUM_OF_COUNTS)  # the last: a rollup's stored counts
CTEs = list[tuple[str, exp.Select]]


def cumulative_ctes(renderer: Renderer, group: Aggregation, keys: tuple[DimRef, ...], where: tuple[Filter, ...],
                    time_filters: tuple[Filter, ...], read: exp.Select | None = None) -> CTEs:
    """The CTEs of one cumulative group; the last is named after the group, with columns g<i> and the aggregates.

    `read` (a cumulative read at an offset under a time filter): the periods it looks up, computed instead of
    the periods the time filters pick (those pick the shifted periods reported, offsets.offset_cumulative)."""
    metric = cumulative_metric(group)
    assert metric is not None, "only a cumulative group has cumulative CTEs"
    dialect = renderer.dialect
    model = renderer.layer.models[group.model]
    paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in group.paths}
    tree = JoinTree(model, list(group.paths), renderer.layer, renderer.source_for)
    time_ref = next((ref for ref, _ in group.paths if ref.dimension.qualified_name == metric.time_dimension and not ref.keys),
                    None) or next(ref for ref, _ in group.paths if ref.dimension.qualified_name == metric.time_dimension)

    @metric_aware
    def render_ref(ref: DimRef) -> exp.Expression:
        return renderer.dim_expr(ref, tree, paths[(ref.dimension.qualified_name, ref.keys)])

    # a date part of the time dimension is the period's (computed from it), as its grains are
    is_time = [ref.dimension.qualified_name == metric.time_dimension for ref in keys]
    spine = renderer.layer.time_spine
    assert spine is not None, "validated: a cumulative metric needs a time spine"
    # a custom granularity of the spine (a key, or grain_to_date): its value is the spine's column on each day
    custom = {i: spine.custom_grains[str(ref.grain)] for i, (ref, t) in enumerate(zip(keys, is_time))
              if t and not ref.date_part and ref.grain in spine.custom_grains}
    custom_to_date = spine.custom_grains.get(metric.grain_to_date or "")
    grains = [ref.grain or "day" for i, (ref, t) in enumerate(zip(keys, is_time)) if t and not ref.date_part and i not in custom]
    period_grain = min(grains, key=TIME_GRAINS.index) if grains else "day"
    sub_daily = period_grain in SUB_DAILY_GRAINS  # periods of a generated finer spine (spine_periods.py)
    nonempty = metric.periods == "nonempty_window"
    # a week beside a month, quarter or year (or a date part that changes within the finest period): the periods are
    # their intersections, as MetricFlow partitions by every time key (the week of 2024-09-30 is Sep 30 in Q3 and
    # Oct 1-6 in Q4), so the values are taken per day, then per intersection; a custom granularity straddles them all
    straddles = bool(custom) or any(not _constant_within(period_grain, ref) for i, (ref, t) in enumerate(zip(keys, is_time))
                                    if t and i not in custom)
    daily = not sub_daily and (bool(custom) or period_grain != "day" and (
        metric.period_agg == "average" or nonempty or straddles or custom_to_date is not None))
    step = "day" if daily else period_grain  # the grain of the spine periods joined to the rows

    # the rows: the time dimension's day, the other keys, each aggregate's input
    row_filters = [f for f in (*where, *group.metric_filters) if f not in time_filters]
    query = join_metric_filters(tree.select(), row_filters, render_ref, renderer)
    add_where(query, [renderer.filter_expr(f, render_ref) for f in row_filters])
    row_time = qualify(time_ref.dimension.node, tree.alias_of(paths[(time_ref.dimension.qualified_name, time_ref.keys)]))
    day = dialect.truncate(row_time, step) if sub_daily else dialect.to_date(row_time)  # below a day: the row's period
    projection = []
    if group.dedupe:
        projection += [exp.alias_(qualify(pk, tree.root_alias), f"__pk{i}", quoted=True, copy=False)
                       for i, pk in enumerate(model.primary_key_nodes)]
    projection.append(exp.alias_(day, "t", quoted=True, copy=False))
    projection += [exp.alias_(render_ref(ref), f"g{i}", quoted=True, copy=False) for i, (ref, t) in enumerate(zip(keys, is_time)) if not t]
    projection += [exp.alias_(renderer.measure_input(a, tree.root_alias), f"i{a.id[1:]}", quoted=True, copy=False)
                   for a in group.columns]
    if not dialect.correlated_group_keys:  # a custom granularity's lookups as joins of the spine (render.py)
        query, looked_up = renderer.joined_lookups(query, cast(list[exp.Expression], projection))
        projection = list(looked_up)
    rows = add_select(query, projection)
    if group.dedupe:
        rows = rows.distinct(copy=False)

    rows_name, periods_name = f"{group.id}_rows", f"{group.id}_periods"

    def shift(value: exp.Expression, count: int, unit: str) -> exp.Expression:
        """A period moved by a window: below a day a timestamp stays one, whatever the window's unit."""
        return dialect.shift_time(value, count, unit) if sub_daily else dialect.shift(value, count, unit)

    spine_col = col(spine.column, "spine")

    def rows_bound(agg: type[exp.Func]) -> exp.Expression:
        return exp.Subquery(this=set_from(exp.Select(expressions=[agg(this=col("t"))]), ident(rows_name)))

    bounds: list[exp.Expression] = [exp.GTE(this=fresh(spine_col), expression=rows_bound(exp.Min))]  # no window before the first row
    if not nonempty:  # every period from the first to the last with rows (all the days of those periods when daily)
        if daily:
            bounds = [exp.GTE(this=spine_col.copy(), expression=dialect.truncate(rows_bound(exp.Min), period_grain)),
                      exp.LT(this=spine_col.copy(), expression=dialect.add_interval(dialect.truncate(rows_bound(exp.Max), period_grain), 1, period_grain))]
            if custom and (not grains or period_grain == "day"):  # the day bounds of a standard grain hold only beside one
                bounds = []
            for custom_grain in custom.values():  # the whole custom periods from the first row's to the last row's
                value = col(custom_grain.column, "spine")
                bounds += [exp.GTE(this=value.copy(), expression=renderer.period(rows_bound(exp.Min), custom_grain.name)),
                           exp.LTE(this=value.copy(), expression=renderer.period(rows_bound(exp.Max), custom_grain.name))]
        else:
            bounds.append(exp.LTE(this=fresh(spine_col), expression=rows_bound(exp.Max)))
    elif metric.window is not None:  # past this, every window is empty (a loose bound: the join decides)
        bounds.append(exp.LTE(this=spine_col.copy(), expression=shift(rows_bound(exp.Max), metric.window.count + 1, metric.window.unit)))
    elif metric.grain_to_date and custom_to_date is None:  # a custom period may be of any length: no bound past the rows
        bounds.append(exp.LTE(this=spine_col.copy(), expression=shift(rows_bound(exp.Max), 1, metric.grain_to_date)))
    # below a day, the days the generated spine multiplies out: those of the bounds above (each a necessary condition)
    days: list[exp.Expression] = [(exp.GTE if isinstance(b, exp.GTE) else exp.LTE)(this=spine_col.copy(), expression=dialect.to_date(b.expression.copy()))
            for b in bounds] if sub_daily else []
    if read is None:
        bounds += [renderer.filter_expr(f, renderer.on_spine(spine_col)) for f in time_filters]
    else:  # only the periods an offset looks up (the days of those periods when daily)
        bounds.append(exp.In(this=dialect.truncate(spine_col.copy(), period_grain), query=exp.Subquery(this=read)))
    extra = [exp.alias_(col(grain.column, "spine"), f"c{i}", quoted=True) for i, grain in custom.items()]
    source = spine_at(spine, dialect, step, days)
    if custom_to_date is not None:  # each day with its custom period's first day, over the whole spine (before the bounds)
        first_day = exp.Window(this=exp.Min(this=col(spine.column, "whole")), partition_by=[col(custom_to_date.column, "whole")])
        source = exp.Subquery(this=exp.Select(expressions=[exp.Star(), exp.alias_(first_day, "__start", quoted=True)])
                              .from_(aliased(spine.table_node, "whole"), copy=False), alias=exp.TableAlias(this=ident("spine")))
        extra.append(exp.alias_(col("__start", "spine"), "start", quoted=True))
    periods = add_where(set_from(exp.Select(expressions=[exp.alias_(dialect.truncate(fresh(spine_col), step), "period", quoted=True,
                                                                    copy=False), *extra]), source), bounds)
    periods.set("distinct", exp.Distinct())  # .distinct(copy=False)

    period = col("period", "p")
    # the window ends with the period's last day, or its first with `period_agg: first` (MetricFlow's default)
    next_start = dialect.add_interval(period.copy(), 1, "day" if metric.period_agg == "first" and not sub_daily else step)
    on: list[exp.Expression] = [exp.LT(this=col("t", "r"), expression=next_start)]
    if metric.window is not None:
        # a month step past a month's end lands on its last day on every engine (SQLite's date() rolls over)
        on.append(exp.GTE(this=col("t", "r"), expression=shift(next_start.copy(), -metric.window.count, metric.window.unit)))
    elif custom_to_date is not None:  # since the first day of the period's custom period (read by day: step is day)
        on.append(exp.GTE(this=col("t", "r"), expression=col("start", "p")))
    elif metric.grain_to_date:
        period_end = dialect.add_interval(next_start.copy(), -1, step if sub_daily else "day")
        on.append(exp.GTE(this=col("t", "r"), expression=dialect.truncate(period_end, metric.grain_to_date)))
    other_keys = any(not t for t in is_time)
    ctes: CTEs = [(rows_name, rows), (periods_name, periods)]
    # Sums, counts, minima and maxima re-aggregate: fold the rows to one per day (and other key)
    # first, so each period joins a few hundred days instead of every row (40x on PostgreSQL).
    per_day = all(a.measure.agg in _REAGGREGATE for a in group.columns)
    joined = rows_name
    if per_day:
        joined = f"{group.id}_days"
        day_keys = [col("t")] + [col(f"g{i}") for i, t in enumerate(is_time) if not t]
        inputs = [exp.alias_(renderer.aggregate(a.measure.agg, col(f"i{a.id[1:]}")), f"i{a.id[1:]}", quoted=True, copy=False)
                  for a in group.columns]
        ctes.append((joined, add_group(set_from(exp.Select(expressions=[*[fresh(k) for k in day_keys], *inputs]), ident(rows_name)),
                                       day_keys)))
    join = exp.Join(this=exp.Table(this=ident(joined), alias=exp.TableAlias(this=ident("r"))), on=conjunction(on),
                    **({"kind": "INNER"} if other_keys or nonempty else {"side": "LEFT"}))
    key_exprs: list[exp.Expression] = []
    for i, (ref, t) in enumerate(zip(keys, is_time)):
        if not t:
            key_exprs.append(col(f"g{i}", "r"))
        elif daily:
            key_exprs.append(fresh(period))  # one time key per day here; the periods come after
        elif ref.date_part:
            key_exprs.append(dialect.date_part(fresh(period), ref.date_part))
        else:
            grain = ref.grain or "day"
            key_exprs.append(period.copy() if grain == period_grain else dialect.truncate(period.copy(), grain))
    if daily:  # the other keys, the day, and each custom granularity's value on it
        key_exprs = [k for k, t in zip(key_exprs, is_time) if not t] + [period.copy()] + [col(f"c{i}", "p") for i in custom]
    values = [exp.alias_(_reaggregate(a.measure.agg, col(f"i{a.id[1:]}", "r")) if per_day
                         else renderer.measure_aggregate(a.measure, col(f"i{a.id[1:]}", "r")), a.id, quoted=True, copy=False)
              for a in group.columns]
    names = ([f"g{i}" for i, t in enumerate(is_time) if not t] + ["day"] + [f"c{i}" for i in custom]) if daily \
        else [f"g{i}" for i in range(len(keys))]
    grouped = [fresh(k) for k in key_exprs]  # copied before the keys are aliased in place
    running = set_from(exp.Select(expressions=[*[exp.alias_(k, n, quoted=True, copy=False) for k, n in zip(key_exprs, names)],
                                               *values]),
                       exp.Table(this=ident(periods_name), alias=exp.TableAlias(this=ident("p"))))
    add_group(add_join(running, join), grouped)
    if not daily:
        return [*ctes, (group.id, running)]
    daily_name = f"{group.id}_daily"
    return [*ctes, (daily_name, running),
            (group.id, _per_period(group, keys, is_time, period_grain, daily_name, dialect, straddles, tuple(custom)))]


_PART_GRAIN = {"year": "year", "quarter": "quarter", "month": "month", "day": "day", "dow": "day", "doy": "day"}


def _constant_within(period_grain: str, ref: DimRef) -> bool:
    """Is this time key one value over each period of the finest grain (a coarser grain containing it)?"""
    grain = _PART_GRAIN[ref.date_part] if ref.date_part else (ref.grain or "day")
    if period_grain in ("day", *SUB_DAILY_GRAINS) or grain == period_grain:
        return True
    return period_grain != "week" and grain != "week" and GRAINS.index(grain) >= GRAINS.index(period_grain)


def _per_period(group: Aggregation, keys: tuple[DimRef, ...], is_time: list[bool], period_grain: str, daily: str,
                dialect: Dialect, straddles: bool = False, custom: tuple[int, ...] = ()) -> exp.Select:
    """One row per period (and other key) from the daily running values: their mean, or the first/last day's.
    `straddles`: a period is the intersection of the time keys, each read from the day."""
    metric = cumulative_metric(group)
    assert metric is not None
    day = col("day", "d")
    period = dialect.truncate(fresh(day), period_grain)  # a coarser time key is its period's (as without the daily step)
    if straddles:
        key_exprs = [col(f"g{i}", "d") if not t else col(f"c{i}", "d") if i in custom
                     else dialect.date_part(day.copy(), str(keys[i].date_part)) if keys[i].date_part
                     else dialect.truncate(day.copy(), keys[i].grain or "day") for i, t in enumerate(is_time)]
    else:
        key_exprs = [col(f"g{i}", "d") if not t else dialect.date_part(fresh(period), str(keys[i].date_part)) if keys[i].date_part
                     else fresh(period) if (keys[i].grain or "day") == period_grain else dialect.truncate(fresh(period), keys[i].grain or "day")
                     for i, t in enumerate(is_time)]
    source = exp.Table(this=ident(daily), alias=exp.TableAlias(this=ident("d")))
    if metric.period_agg == "average":
        return (exp.Select(expressions=[*[exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_exprs)],
                                        *[exp.alias_(exp.Avg(this=exp.Cast(this=col(a.id, "d"), to=exp.DataType.build("DOUBLE"))), a.id, quoted=True)
                                          for a in group.columns]])  # in floating point: MySQL's AVG of integers keeps 4 decimals
                .from_(source, copy=False).group_by(*[fresh(k) for k in key_exprs], copy=False))
    # first / last: the value of the period's first / last day that has one (ROW_NUMBER: every engine has it)
    partition = ([fresh(k) for k, t in zip(key_exprs, is_time) if t] if straddles else [fresh(period)]) + \
        [col(f"g{i}", "d") for i, t in enumerate(is_time) if not t]
    rank = exp.Window(this=exp.RowNumber(), partition_by=partition,
                      order=exp.Order(expressions=[exp.Ordered(this=fresh(day), desc=metric.period_agg != "first")]))
    ranked = exp.Select(expressions=[*[exp.alias_(k, f"g{i}", quoted=True) for i, k in enumerate(key_exprs)],
                                     *[exp.alias_(col(a.id, "d"), a.id, quoted=True) for a in group.columns],
                                     exp.alias_(rank, "__rank", quoted=True)]).from_(source, copy=False)
    return (exp.Select(expressions=[*[col(f"g{i}", "ranked") for i in range(len(keys))], *[col(a.id, "ranked") for a in group.columns]])
            .from_(exp.Subquery(this=ranked, alias=exp.TableAlias(this=ident("ranked"))), copy=False)
            .where(exp.EQ(this=col("__rank", "ranked"), expression=exp.Literal.number(1)), copy=False))


def _reaggregate(agg: str, partial: exp.Expression) -> exp.Expression:
    """The aggregate of per-day partial results: a count is the sum of counts (0, not NULL, for none)."""
    if agg in ("count", SUM_OF_COUNTS):
        return exp.Coalesce(this=exp.Sum(this=partial), expressions=[exp.Literal.number(0)])
    return cast(exp.Expression, {"sum": exp.Sum, "min": exp.Min, "max": exp.Max}[agg](this=partial))
