"""Mixed queries with the embedded store: some aggregations of a query answered from rollups in the DuckDB file, the
others from the facts in the warehouse (docs/rollups.md, "Mixed queries").

The two are different databases, so no one SQL text reads both. The engine combines them the way it combines any
aggregations: the warehouse's query is the facts-only plan with each rollup-answered aggregation's leaf replaced by a
table of given rows (plan node `Given`), and that table is filled, just before the query runs, with the rows the
rollup's part query returned from the store (its group keys g0.. and its measures a..), each value written as a
literal cast to the type DuckDB gave it. The merge above (UNION ALL, GROUP BY the keys: NULL-safe, as a full outer
join on the keys) and the metric math are the facts-only plan's own, so the numbers are the same.

Only where that is provable: the warehouse is DuckDB too (the literals keep their exact types: DECIMAL, HUGEINT,
DOUBLE, DATE, TIMESTAMP), and the rollup holds at most `MIX_ROWS` rows (the part query has no more groups than its
rollup has rows, and they travel inside the SQL text). Otherwise the query is answered from the facts, and explain
says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

MIX_DIALECTS = frozenset({"duckdb"})
MIX_ROWS = 10_000
TYPE_SUFFIX = "__type"
_PREFIX = "__smq_rollup_rows_"


def mix_refusal(warehouse_dialect: str, rollup: str, rows: int | None) -> str | None:
    """None when the rows of `rollup` (stored in the embedded file) may be given to a warehouse query, else why not."""
    if warehouse_dialect not in MIX_DIALECTS:
        return (f"mixing the embedded store with a {warehouse_dialect} warehouse is refused: the two engines type dates "
                "and numbers differently, so the group keys could not be proven to match; a query is answered from the "
                "stored rollups only when all its aggregations are")
    if rows is None or rows > MIX_ROWS:
        return (f"rollup {rollup} holds {rows if rows is not None else 'an unknown number of'} rows, more than the "
                f"{MIX_ROWS} a mixed query gives to the warehouse; a query is answered from the stored rollups only when "
                "all its aggregations are")
    return None


def part_table(aggregation: str) -> str:
    """The placeholder table a rollup-answered aggregation's rows are given in."""
    return _PREFIX + aggregation


@dataclass(frozen=True)
class Part:
    """One aggregation of a mixed query answered from the embedded store: its query there (DuckDB's dialect; each
    column as text beside its type) and the placeholder table of the warehouse's query its rows fill."""

    table: str
    rollup: str
    query: exp.Query
    columns: tuple[str, ...]  # g0.., then the aggregation's a..

    @property
    def sql(self) -> str:
        return self.query.sql(dialect="duckdb", pretty=True)


def part_select(columns: Sequence[str], source: str) -> exp.Select:
    """SELECT each column as text and its DuckDB type, from the aggregation's CTE `source`."""
    projection: list[exp.Expr] = []
    for name in columns:
        column = exp.column(exp.to_identifier(name, quoted=True))
        projection.append(exp.alias_(exp.cast(column.copy(), "VARCHAR"), name, quoted=True))
        projection.append(exp.alias_(exp.Anonymous(this="typeof", expressions=[column]), name + TYPE_SUFFIX, quoted=True))
    return exp.Select(expressions=projection).from_(exp.Table(this=exp.to_identifier(source, quoted=True)), copy=False)


def given_rows(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> exp.Query:
    """The part's rows (each value's text and type, as `part_select` gives them) as a query of literals for a DuckDB
    warehouse: `SELECT CAST('..' AS type) AS g0, ...` per row, UNION ALL; no row: one that WHERE FALSE drops."""
    if not rows:
        empty = exp.Select(expressions=[exp.alias_(exp.Null(), c, quoted=True) for c in columns])
        return empty.where(exp.false(), copy=False)
    selects: list[exp.Select] = []
    for row in rows:
        values = []
        for i, name in enumerate(columns):
            text, kind = row[2 * i], row[2 * i + 1]
            to = exp.DataType.build(str(kind), dialect="duckdb", udt=True)
            value = exp.Null() if text is None else exp.Literal.string(str(text))
            values.append(exp.alias_(exp.Cast(this=value, to=to), name, quoted=True))
        selects.append(exp.Select(expressions=values))
    query: exp.Query = selects[0]
    for more in selects[1:]:
        query = exp.union(query, more, distinct=False, copy=False)
    return query


def fill(tree: exp.Query, given: Mapping[str, exp.Query]) -> exp.Query:
    """The warehouse's query with each placeholder table replaced by its given rows (a copy; `tree` is kept)."""

    def fn(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and not node.args.get("db") and node.name in given:
            return exp.Subquery(this=given[node.name].copy(), alias=exp.TableAlias(this=exp.to_identifier(node.name, quoted=True)))
        return node

    filled = tree.copy().transform(fn, copy=False)
    assert isinstance(filled, exp.Query)
    return filled
