"""The column-statistics query and the top-values query, built once as sqlglot trees.

Profiling a compiled query's columns (agent/profiling.py), the `profileColumn` and `getColValues`
tools (agent/explore.py) and `smq init`'s profiling (smq_authoring/profile.py) all ask the same two
questions of a table: how many rows, non-NULL values and distinct values a column has, with its
smallest and largest value; and which values it holds most often. The trees are built here without
a dialect; callers render them in the database's dialect (after applying an access role when one
is in force), so the same query runs on every backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp


@dataclass(frozen=True)
class ColumnStats:
    """What one column holds; `low`/`high` are None when its range was not asked for (or it is all NULL)."""

    non_null: int
    distinct: int
    low: Any = None
    high: Any = None


@dataclass(frozen=True)
class TableStats:
    rows: int | None  # None when the query did not count rows
    columns: dict[str, ColumnStats]


@dataclass(frozen=True)
class ColumnStatsQuery:
    """One aggregate over `relation`: COUNT(*), then per column COUNT and COUNT(DISTINCT), then MIN and MAX.

    `relation` is what to select FROM: a table, or an aliased subquery (a sample). `ranged` names the
    columns whose MIN/MAX are read (types without an order are left out); by default all of them.
    """

    relation: exp.Expr
    columns: tuple[str, ...]
    ranged: tuple[str, ...] | None = None
    count_rows: bool = True

    @property
    def _ranged(self) -> tuple[str, ...]:
        return self.columns if self.ranged is None else self.ranged

    def tree(self) -> exp.Select:
        projections: list[exp.Expression] = [exp.Count(this=exp.Star())] if self.count_rows else []
        for name in self.columns:
            projections += [exp.Count(this=_column(name)), exp.Count(this=exp.Distinct(expressions=[_column(name)]))]
        for name in self._ranged:
            projections += [exp.Min(this=_column(name)), exp.Max(this=_column(name))]
        return exp.select(*projections).from_(self.relation.copy())

    def read(self, row: Sequence[Any]) -> TableStats:
        """The query's one result row, by column (NULL counts read as 0)."""
        values = list(row)
        rows = _count(values.pop(0)) if self.count_rows else None
        counts = {name: (_count(values[2 * i]), _count(values[2 * i + 1])) for i, name in enumerate(self.columns)}
        offset = 2 * len(self.columns)
        ranges = {name: (values[offset + 2 * i], values[offset + 2 * i + 1]) for i, name in enumerate(self._ranged)}
        return TableStats(rows, {name: ColumnStats(*counts[name], *ranges.get(name, (None, None))) for name in self.columns})


def column_stats_query(relation: exp.Expr, column: str) -> ColumnStatsQuery:
    """Row count, non-NULL count, distinct count, min and max of one column."""
    return ColumnStatsQuery(relation, (column,))


def top_values_query(relation: exp.Expr, subject: exp.Expression, limit: int, *,
                     where: exp.Expr | None = None, skip_nulls: bool = False) -> exp.Select:
    """`subject`'s values with their row counts (columns `value`, `count`), most frequent first, ties by value.

    `subject` is a column or an expression over one (`TRIM(status)`); `where` narrows the rows
    counted; `skip_nulls` leaves out the NULL group.
    """
    count = exp.Count(this=exp.Star())
    query = exp.select(subject.copy().as_("value"), count.copy().as_("count")).from_(relation.copy())
    if where is not None:
        query = query.where(where.copy())
    if skip_nulls:
        query = query.where(exp.Not(this=exp.Is(this=subject.copy(), expression=exp.Null())))
    return (query.group_by(subject.copy())
            .order_by(exp.Ordered(this=count.copy(), desc=True), exp.Ordered(this=subject.copy()))
            .limit(exp.Literal.number(limit)))  # a literal: an int would be parsed as SQL text


def _column(name: str) -> exp.Column:
    return exp.column(name, quoted=True)


def _count(value: Any) -> int:
    return int(value or 0)
