"""Profile the columns a compiled query filters, groups or ranks on, and warn about traps in them.

A five-row preview hides what sinks answers: a ranked column that is NULL in a third of the rows, a
filter on a column that holds one value, a string filter that matches no row at all (the stored
spelling differs), a date literal outside the data's range. APEX-SQL checks such hypotheses against
the data before trusting the SQL; this module does it mechanically for every compiled query:

1. find the columns in the sqlglot tree: WHERE and GROUP BY columns of every SELECT whose source is a
   physical table, and the ORDER BY columns of the outermost SELECT traced to their physical columns
   with `sqlglot.lineage` (the compiler orders by output names that live in CTEs);
2. run one small aggregate per column (row count, non-NULL count, distinct count, min, max) and one
   COUNT(*) per string predicate, through the executor with the caller's role applied
   (`engine.access.apply_role_to_sql`), cached for the run and capped per compile;
3. turn what they show into short warnings the model reads next to the compile result.

Profiling never fails a compile: a query the role may not run, a timeout or a driver error only
means fewer warnings.
"""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlglot import exp
from sqlglot.lineage import lineage
from sqlglot.optimizer.scope import Scope, traverse_scope

from engine import Layer
from engine.access.roles import apply_role_to_sql
from engine.errors import EngineError
from smq_db.executors import Executor
from smq_db.stats import column_stats_query, top_values_query

from .guards import table_key

log = logging.getLogger("smq.agent")

Clause = Literal["filter", "group", "rank"]
COUNTING_NAME = re.compile(r"(qty|quantit|count|num|units|amount|price|cost|age|stock|total|sales|revenue|weight|duration)", re.I)
TEXT_DATE = re.compile(r"^\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}")
ISO_DATE = re.compile(r"^(\d{4})-\d{2}-\d{2}")
CLAUSE_HINT = {
    "group": "they form one NULL group",
    "rank": "NULLs sort first in descending order on PostgreSQL/Snowflake and last on SQLite/DuckDB/MySQL: filter "
            "IS NOT NULL or add NULLS LAST",
    "filter": "a comparison never keeps NULL rows (use IS NULL or COALESCE if they belong in the answer)",
}


@dataclass(frozen=True)
class ProfileLimits:
    """Caps that keep profiling cheap: a few small aggregate queries per compile, each with a short timeout."""

    max_columns: int = 6  # new columns profiled per compile
    max_predicates: int = 4  # new string predicates checked per compile
    max_queries: int = 40  # per run
    null_share_warn: float = 0.05
    timeout_s: float = 10.0
    suggestions: int = 5


@dataclass(frozen=True)
class ColumnUse:
    """A physical column the query reads in a clause that matters; `guarded` when the query already handles its NULLs."""

    table: exp.Table  # without alias
    column: str
    clause: Clause
    guarded: bool = False

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        return table_key(self.table), self.column.lower()

    def label(self, dialect: str) -> str:
        return f"{self.table.sql(dialect=dialect)}.{self.column}"


@dataclass(frozen=True)
class Predicate:
    """A WHERE condition on one physical table that compares a column expression with literals."""

    table: exp.Table  # as the query wrote it, alias included: the predicate's columns refer to it
    node: exp.Expression
    subject: exp.Expression  # the side with the column(s): `TRIM(status)` in `TRIM(status) = 'x'`
    column: str
    literals: tuple[exp.Expression, ...]
    kind: Literal["text", "range"]


@dataclass
class ColumnProfile:
    label: str
    rows: int
    non_null: int
    distinct: int
    low: Any
    high: Any

    @property
    def null_share(self) -> float:
        return 1 - self.non_null / self.rows if self.rows else 0.0

    def to_dict(self, clause: str | None = None) -> dict[str, Any]:
        out = {"column": self.label, "rows": self.rows, "null_share": round(self.null_share, 4),
               "distinct": self.distinct, "min": _plain(self.low), "max": _plain(self.high)}
        return {**out, "clause": clause} if clause else out


@dataclass
class ProfileReport:
    """What one inspection found: warnings for the model, profiles for the trace."""

    warnings: list[str] = field(default_factory=list)
    profiles: list[dict[str, Any]] = field(default_factory=list)


# -- finding the columns --------------------------------------------------------------------------------
def _bare(table: exp.Table) -> exp.Table:
    return exp.Table(this=table.this.copy(), db=table.args.get("db"), catalog=table.args.get("catalog"))


def _own_select(node: exp.Expression) -> exp.Expression | None:
    return node.find_ancestor(exp.Select)


def _source(scope: Scope, column: exp.Column) -> exp.Table | None:
    """The physical table a column of this scope reads, or None (a CTE, a derived table, unresolvable)."""
    if column.table:
        source = scope.sources.get(column.table)
    else:
        tables = [s for s in scope.sources.values() if isinstance(s, exp.Table)]
        source = tables[0] if len(scope.sources) == 1 and tables else None
    return source if isinstance(source, exp.Table) else None


def _not_null_guards(tree: exp.Expr) -> set[str]:
    """Column names the query filters with IS NOT NULL (or wraps in COALESCE): their NULLs are handled."""
    out = set()
    for node in tree.find_all(exp.Not):
        if isinstance(node.this, exp.Is) and isinstance(node.this.this, exp.Column):
            out.add(node.this.this.name.lower())
    for coalesce in tree.find_all(exp.Coalesce):
        out.update(c.name.lower() for c in coalesce.find_all(exp.Column))
    return out


def column_uses(tree: exp.Expr, dialect: str) -> list[ColumnUse]:
    """The physical columns in WHERE and GROUP BY of every SELECT, and those the outermost ORDER BY ranks on."""
    guarded = _not_null_guards(tree)
    uses: dict[tuple[Any, str], ColumnUse] = {}

    def add(table: exp.Table, name: str, clause: Clause) -> None:
        use = ColumnUse(_bare(table), name, clause, name.lower() in guarded)
        uses.setdefault((use.key, clause), use)

    try:
        scopes = traverse_scope(tree)
    except Exception:  # noqa: BLE001 - sqlglot cannot scope every query; profile nothing then
        return []
    for scope in scopes:
        select = scope.expression
        if not isinstance(select, exp.Select):
            continue
        for arg, clause in (("where", "filter"), ("group", "group")):
            part = select.args.get(arg)
            for column in part.find_all(exp.Column) if part is not None else ():
                if _own_select(column) is select and (table := _source(scope, column)) is not None:
                    add(table, column.name, clause)  # type: ignore[arg-type]
    root = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    order = tree.args.get("order") if isinstance(tree, exp.Query) else None
    if order is not None and root is not None:
        aliases = {e.alias_or_name.lower(): e for e in tree.selects} if isinstance(tree, exp.Query) else {}
        for column in order.find_all(exp.Column):
            if column.table or column.name.lower() not in aliases:
                continue
            for table, name in _lineage_leaves(column.name, tree, dialect):
                add(table, name, "rank")
    return list(uses.values())


CLAUSE_PRIORITY: dict[str, int] = {"group": 0, "rank": 1, "filter": 2}


def _one_per_column(uses: list[ColumnUse]) -> list[ColumnUse]:
    """One use per column, keeping the clause whose trap matters most: a GROUP BY column the compiler also
    orders by is a grouping key (its NULL group), not a ranking."""
    best: dict[Any, ColumnUse] = {}
    for use in uses:
        kept = best.get(use.key)
        if kept is None or CLAUSE_PRIORITY[use.clause] < CLAUSE_PRIORITY[kept.clause]:
            best[use.key] = use if kept is None or not kept.guarded else ColumnUse(use.table, use.column, use.clause, True)
    return list(best.values())


def _lineage_leaves(name: str, tree: exp.Expr, dialect: str) -> list[tuple[exp.Table, str]]:
    try:
        node = lineage(name, tree.sql(dialect=dialect), {}, dialect=dialect)  # text: lineage qualifies its own copy
    except Exception:  # noqa: BLE001 - lineage gives up on some shapes (stars, UDTFs); skip the column
        return []
    out = []
    for step in node.walk():
        if isinstance(step.source, exp.Table) and isinstance(step.expression, exp.Table):
            out.append((step.source, step.name.split(".")[-1].strip('"`[]')))
    return out


def _literal(node: exp.Expression | None) -> exp.Expression | None:
    if isinstance(node, exp.Literal):
        return node
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal):
        return node
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return node
    return None


def literal_predicates(tree: exp.Expr) -> list[Predicate]:
    """WHERE conditions comparing one table's column expression with literals: what a data check can test."""
    out: list[Predicate] = []
    try:
        scopes = traverse_scope(tree)
    except Exception:  # noqa: BLE001
        return []
    for scope in scopes:
        select = scope.expression
        where = select.args.get("where") if isinstance(select, exp.Select) else None
        if where is None:
            continue
        for node in where.find_all(exp.EQ, exp.In, exp.Like, exp.ILike, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
            if _own_select(node) is not select:
                continue
            if isinstance(node, exp.In):
                subject, literals = node.this, [_literal(e) for e in node.expressions]
            elif isinstance(node, exp.Between):
                subject, literals = node.this, [_literal(node.args.get("low")), _literal(node.args.get("high"))]
            else:
                subject, literals = node.this, [_literal(node.expression)]
                if literals[0] is None and _literal(node.this) is not None:
                    subject, literals = node.expression, [_literal(node.this)]
            columns = list(subject.find_all(exp.Column)) if subject is not None else []
            if not columns or any(lit is None for lit in literals):
                continue
            tables = {_source(scope, c) for c in columns}
            if len(tables) != 1 or None in tables:
                continue
            table = tables.pop()
            text = all(isinstance(lit, exp.Literal) and lit.is_string for lit in literals)
            kind = "text" if text and isinstance(node, (exp.EQ, exp.In, exp.Like, exp.ILike)) else "range"
            out.append(Predicate(table, node, subject, columns[0].name, tuple(literals), kind))  # type: ignore[arg-type]
    return out


# -- running the checks -------------------------------------------------------------------------------------
class Profiler:
    """Profiles for one run: queries go through the role, results are cached, warnings are not repeated."""

    def __init__(self, layer: Layer, executor: Executor, *, role: str | None = None, limits: ProfileLimits | None = None,
                 timeout_s: float | None = None) -> None:
        self.layer = layer
        self.executor = executor
        self.role_obj = layer.role(role)
        self.limits = limits or ProfileLimits()
        self.timeout_s = min(self.limits.timeout_s, timeout_s) if timeout_s else self.limits.timeout_s
        self.queries = 0
        self._profiles: dict[Any, ColumnProfile | None] = {}
        self._matches: dict[str, int | None] = {}
        self._warned: set[str] = set()

    @property
    def dialect(self) -> str:
        return self.layer.dialect

    def inspect(self, tree: exp.Expr, *, repeat: bool = False) -> ProfileReport:
        """Warnings and profiles for a query; `repeat` shows warnings already given earlier in the run."""
        report = ProfileReport()
        new_columns = 0
        for use in _one_per_column(column_uses(tree, self.dialect)):
            if use.key not in self._profiles:
                if new_columns >= self.limits.max_columns:
                    continue
                new_columns += 1
            profile = self._profile(use)
            if profile is None:
                continue
            report.profiles.append(profile.to_dict(use.clause))
            for text in self._column_warnings(use, profile):
                self._warn(report, text, repeat)
        new_predicates = 0
        for pred in literal_predicates(tree):
            if pred.kind == "text":
                key = pred.node.sql(dialect=self.dialect)
                if key not in self._matches:
                    if new_predicates >= self.limits.max_predicates:
                        continue
                    new_predicates += 1
                warning = self._match_warning(pred)
            else:
                warning = self._range_warning(pred)
            if warning:
                self._warn(report, warning, repeat)
        return report

    def _warn(self, report: ProfileReport, text: str, repeat: bool) -> None:
        if text in report.warnings or (text in self._warned and not repeat):
            return
        self._warned.add(text)
        report.warnings.append(text)

    # -- queries -------------------------------------------------------------------------------------------
    def _run(self, query: exp.Expression, max_rows: int = 1) -> list[list[Any]] | None:
        if self.queries >= self.limits.max_queries:
            return None
        self.queries += 1
        try:
            safe = apply_role_to_sql(query, self.layer.semantic, self.layer.graph, self.role_obj)
            return self.executor.execute(safe.sql(dialect=self.dialect), max_rows=max_rows, timeout_s=self.timeout_s).rows
        except EngineError as err:
            log.debug("profiling query skipped: %s", err.message)
            return None
        except Exception:  # noqa: BLE001 - a driver's own error must not fail the compile it annotates
            log.debug("profiling query failed", exc_info=True)
            return None

    def _profile(self, use: ColumnUse) -> ColumnProfile | None:
        if use.key in self._profiles:
            return self._profiles[use.key]
        query = column_stats_query(use.table, use.column)
        rows = self._run(query.tree())
        profile = None
        if rows:
            stats = query.read(rows[0])
            col = stats.columns[use.column]
            profile = ColumnProfile(use.label(self.dialect), stats.rows or 0, col.non_null, col.distinct, col.low, col.high)
        self._profiles[use.key] = profile
        return profile

    # -- warnings ------------------------------------------------------------------------------------------
    def _column_warnings(self, use: ColumnUse, p: ColumnProfile) -> list[str]:
        out = []
        if p.rows == 0:
            return [f"{p.label} has no rows you can see"]
        if p.non_null == 0:
            return [f"{p.label} is NULL in every one of its {p.rows} rows"]
        if p.null_share >= self.limits.null_share_warn and not use.guarded:
            out.append(f"{p.label} ({use.clause} column) is NULL in {p.null_share:.0%} of {p.rows} rows: {CLAUSE_HINT[use.clause]}")
        if p.distinct == 1:
            what = "a single value" if p.null_share == 0 else "a single non-NULL value"
            out.append(f"{p.label} ({use.clause} column) holds {what} ({_plain(p.low)!r}) in every row you can see: "
                       f"{'filtering' if use.clause == 'filter' else 'grouping or ranking'} on it changes nothing")
        low = _number(p.low)
        if low is not None and low < 0 and COUNTING_NAME.search(use.column):
            out.append(f"{p.label} has negative values (min {_plain(p.low)}): returns or corrections? decide whether "
                       "they belong in the answer")
        years = [_year(p.low), _year(p.high)]
        if any(y is not None and (y < 1900 or y > dt.date.today().year + 10) for y in years):
            out.append(f"{p.label} runs from {_plain(p.low)} to {_plain(p.high)}: placeholder dates far outside the "
                       "data? exclude them where they distort the answer")
        if isinstance(p.low, str) and isinstance(p.high, str) and (TEXT_DATE.match(p.low) or TEXT_DATE.match(p.high)):
            out.append(f"{p.label} holds dates as text in a day/month form ({p.low!r} ... {p.high!r}): comparisons, "
                       "MIN/MAX and ORDER BY compare text, not dates")
        return out

    def _match_warning(self, pred: Predicate) -> str | None:
        shown = pred.node.sql(dialect=self.dialect)
        if shown not in self._matches:
            rows = self._run(exp.select(exp.Count(this=exp.Star())).from_(pred.table.copy()).where(pred.node.copy()))
            self._matches[shown] = int(rows[0][0]) if rows else None
        if self._matches[shown] != 0:
            return None
        similar = self._similar(pred, pred.subject)
        tail = (f"; values that look alike: {similar}" if similar else "")
        return f"no row of {_bare(pred.table).sql(dialect=self.dialect)} matches {shown}{tail}"

    def _similar(self, pred: Predicate, subject: exp.Expression) -> str:
        """The subject's most frequent values containing the literal's words (case-insensitive), else its top values."""
        words = [w for lit in pred.literals for w in re.findall(r"\w{3,}", str(lit.this).lower())][:3]
        text = exp.Lower(this=exp.Cast(this=subject.copy(), to=exp.DataType.build("text")))
        limit = self.limits.suggestions
        rows = None
        if words:
            alike = exp.or_(*[exp.Like(this=text.copy(), expression=exp.Literal.string(f"%{w}%")) for w in words])
            rows = self._run(top_values_query(pred.table, subject, limit, where=alike), limit)
        if not rows:
            rows = self._run(top_values_query(pred.table, subject, limit), limit)
            if rows:
                return "none; its most frequent values are " + ", ".join(f"{_plain(v)!r} ({n})" for v, n in rows)
        return ", ".join(f"{_plain(v)!r} ({n})" for v, n in rows or [])

    def _range_warning(self, pred: Predicate) -> str | None:
        """A comparison that no row can pass, judged from the column's min and max (a date outside the data)."""
        use = ColumnUse(_bare(pred.table), pred.column, "filter")
        profile = self._profiles.get(use.key)
        if profile is None or profile.non_null == 0 or not isinstance(pred.subject, exp.Column) or pred.subject is not pred.node.this:
            return None  # only `column <op> literal` as written: a swapped or wrapped side changes the comparison
        values = [_literal_value(lit) for lit in pred.literals]
        if any(v is None for v in values):
            return None
        low, high = _comparable(profile.low, values[0]), _comparable(profile.high, values[0])
        if low is None or high is None:
            return None
        node = pred.node
        try:
            if isinstance(node, (exp.GT, exp.GTE)):
                empty = values[0] > high or (isinstance(node, exp.GT) and values[0] == high)
            elif isinstance(node, (exp.LT, exp.LTE)):
                empty = values[0] < low or (isinstance(node, exp.LT) and values[0] == low)
            elif isinstance(node, exp.Between):
                empty = values[1] < low or values[0] > high
            else:  # = or IN
                empty = all(v < low or v > high for v in values)
        except TypeError:
            return None
        if not empty:
            return None
        return (f"the filter {node.sql(dialect=self.dialect)} keeps no row: {profile.label} only runs from "
                f"{_plain(profile.low)} to {_plain(profile.high)}")


# -- values -------------------------------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """A JSON-friendly value: dates as ISO text, decimals as floats."""
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, decimal.Decimal)):
        return float(value)
    return None


def _year(value: Any) -> int | None:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.year
    if isinstance(value, str) and (m := ISO_DATE.match(value)):
        return int(m.group(1))
    return None


def _literal_value(lit: exp.Expression) -> Any:
    """A literal's value: a number, or the text of a string / a CAST('...' AS DATE)."""
    if isinstance(lit, exp.Neg):
        inner = _literal_value(lit.this)
        return -inner if isinstance(inner, float) else None
    if isinstance(lit, exp.Cast):
        lit = lit.this
    if not isinstance(lit, exp.Literal):
        return None
    if lit.is_string:
        return lit.this
    try:
        return float(lit.this)
    except ValueError:
        return None


def _comparable(bound: Any, value: Any) -> Any:
    """The column's bound in the literal's terms (floats with floats, ISO text with date text), or None."""
    if isinstance(value, float):
        return _number(bound)
    if isinstance(value, str) and ISO_DATE.match(value):
        text = _plain(bound)
        if isinstance(text, str) and ISO_DATE.match(text):
            return text[: len(value)] if len(text) >= len(value) else text
    return None

