"""The time spine read at a grain: the daily table itself, or below a day its periods generated from it.

MetricFlow reads a spine declared at the query's grain (`mf_time_spine_hour`); here the layer declares one daily
spine, and an hour, minute or second spine is that spine's days each crossed with the 24 hours (1,440 minutes,
86,400 seconds) of the day: the same periods a complete finer spine holds over the same days, so windows, offsets
and filled gaps below a day give MetricFlow's numbers without a table per grain. The series is built from a table
of ten digits (UNION ALL of literals), which every engine reads; a caller passes conditions on the spine's day
(`days`) so that only the days it needs are multiplied out.
"""

from __future__ import annotations

from sqlglot import exp

from ..dialects.base import Dialect
from ..layer.model import SUB_DAILY_GRAINS, TimeSpine
from .sqltree import aliased, col, ident

_PER_DAY = {"hour": 24, "minute": 24 * 60, "second": 24 * 60 * 60}


def spine_at(spine: TimeSpine, dialect: Dialect, grain: str, days: list[exp.Expression] | tuple[exp.Expression, ...] = ()) -> exp.Expression:
    """A FROM item aliased `spine` whose column `spine.column` is each period's start at `grain` (a day or coarser:
    the table, one row per day; below a day: one row per hour, minute or second of each day). `days`: conditions
    on `spine.<column>` (the day) that keep only some days (for the generated series: before multiplying)."""
    if grain not in SUB_DAILY_GRAINS:
        return aliased(spine.table_node, "spine")
    count = _PER_DAY[grain]
    width = len(str(count - 1))
    digits = exp.union(*[exp.Select(expressions=[exp.alias_(exp.Literal.number(d), "d", quoted=True)]) for d in range(10)],
                       distinct=False)
    number: exp.Expression = col("d", "n0")
    for i in range(1, width):
        number = exp.Add(this=number, expression=exp.Mul(this=col("d", f"n{i}"), expression=exp.Literal.number(10 ** i)))
    numbers = exp.Select(expressions=[exp.alias_(number, "n", quoted=True)]).from_(
        exp.Subquery(this=digits.copy(), alias=exp.TableAlias(this=ident("n0"))), copy=False)
    for i in range(1, width):
        numbers = numbers.join(exp.Subquery(this=digits.copy(), alias=exp.TableAlias(this=ident(f"n{i}"))), join_type="CROSS", copy=False)
    numbers = numbers.where(exp.LT(this=number.copy(), expression=exp.Literal.number(count)), copy=False)
    day = col(spine.column, "day_spine")
    series = (exp.Select(expressions=[exp.alias_(dialect.add_time(day, col("n", "steps"), grain), spine.column, quoted=True)])
              .from_(aliased(spine.table_node, "day_spine"), copy=False)
              .join(exp.Subquery(this=numbers, alias=exp.TableAlias(this=ident("steps"))), join_type="CROSS", copy=False))
    conditions = [c.transform(lambda n: day.copy() if _is_spine_day(n, spine) else n) for c in days]
    if conditions:
        series = series.where(*conditions, copy=False)
    return exp.Subquery(this=series, alias=exp.TableAlias(this=ident("spine")))


def _is_spine_day(node: exp.Expression, spine: TimeSpine) -> bool:
    return isinstance(node, exp.Column) and node.name == spine.column and node.table == "spine"


def finest(grains: list[str] | tuple[str, ...]) -> str:
    """The grain the spine is read at for these query grains: the finest below a day, else day."""
    below = [g for g in grains if g in SUB_DAILY_GRAINS]
    return min(below, key=SUB_DAILY_GRAINS.index) if below else "day"
