"""What every engine shares, and the hooks one engine's module overrides.

A `Dialect` is one engine's knowledge: how the compiler writes its dates, periods, percentiles and typed
NULLs (the few things sqlglot does not get right by itself), the fence that keeps a role's filtered rows
apart from a caller's predicates, which functions raw SQL may call there, how its URLs and backend names
are spelled, and where its executor and catalog reader live in smq_db. The defaults below are the common
SQL most engines run once sqlglot has transpiled it; each engine module overrides what its engine does
differently. Everything returns sqlglot expressions; nothing here glues SQL text.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect as SqlglotDialect

from ..trees import fresh

if TYPE_CHECKING:
    from . import Engine

_TYPES: dict[str, exp.DataType] = {}
SUB_DAILY = ("second", "minute", "hour")  # grains below a day (engine/layer/model.py SUB_DAILY_GRAINS)


def data_type(name: str) -> exp.DataType:
    """A DataType node; built (parsed) once per name, copied after: building parses the text."""
    proto = _TYPES.get(name)
    if proto is None:
        proto = _TYPES[name] = exp.DataType.build(name)
    return fresh(proto)


def lit(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def num(value: int) -> exp.Expression:
    """An integer literal (a negative number is Neg(Literal))."""
    return exp.Literal.number(value)


def call(name: str, *args: exp.Expression) -> exp.Expression:
    """A function call written exactly as named (sqlglot would rename a function it models)."""
    return exp.Anonymous(this=name, expressions=list(args))


def within_group(func: type[exp.Expression], p: exp.Expression, value: exp.Expression) -> exp.Expression:
    """PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY value): the SQL standard's ordered-set aggregate."""
    order = exp.Order(expressions=[exp.Ordered(this=value, nulls_first=False)])
    return exp.WithinGroup(this=func(this=p), expression=order)


def null_of_column(cte: str, column: str) -> exp.Expression:
    """A NULL typed as `cte.column`: a scalar subquery that returns no row (for engines that type an all-NULL
    UNION branch as text before they meet the numeric one, and then refuse the union)."""
    probe = exp.Select(expressions=[exp.column(exp.to_identifier(column, quoted=True))]).from_(exp.to_identifier(cte, quoted=True))
    return exp.Subquery(this=probe.where(exp.false(), copy=False))


def portable_step(count: int, unit: str) -> tuple[int, str]:
    """Weeks become 7 days and quarters 3 months: the units every engine's date arithmetic has."""
    if unit == "week":
        return count * 7, "day"
    if unit == "quarter":
        return count * 3, "month"
    return count, unit


def float_division(numerator: exp.Expression, denominator: exp.Expression) -> exp.Expression:
    """numerator / denominator in floating point; NULL when the denominator is zero (the same SQL on every engine)."""
    return exp.Div(this=exp.Cast(this=numerator, to=data_type("DOUBLE")), expression=exp.Nullif(this=denominator, expression=num(0)))


@cache
def _sqlglot_dialect(name: str) -> SqlglotDialect:
    return SqlglotDialect.get_or_raise(name)


class Dialect:
    """One engine's quirks and traits. Subclasses set the class attributes and override the methods."""

    engine: ClassVar[Engine]
    display: ClassVar[str]  # how messages name the engine
    aliases: ClassVar[tuple[str, ...]] = ()  # other names of its backend in database.yml (`postgresql`, `mariadb`)
    url_schemes: ClassVar[tuple[str, ...]] = ()  # `smq init --from` URL schemes (empty: not introspectable)
    file_based: ClassVar[bool] = False  # a `path:` connection (a file), not a server
    # an embedded engine whose own memory limit does not bound what its functions build: its queries run in worker
    # processes under a kernel limit unless `limits.isolation` says otherwise (smq_db/executors/worker.py)
    isolated_by_default: ClassVar[bool] = False
    default_port: ClassVar[int | None] = None
    # the schema unqualified tables are read from: fixed (`main`), or the connection key naming it
    default_schema: ClassVar[str | None] = None
    schema_setting: ClassVar[str | None] = None
    executor: ClassVar[str] = ""  # "module:function" in smq_db that builds its executor from a connection mapping
    full_join: ClassVar[bool] = True  # FULL OUTER JOIN exists (MetricFlow's dimension-only queries across models use it)
    introspector: ClassVar[str | None] = None  # "module:function" in smq_db reading one schema whole (smq init)
    information_schema: ClassVar[bool] = True  # its catalog answers information_schema.tables/columns
    declared_boolean_types: ClassVar[tuple[str, ...]] = ()  # column types that hold booleans though named otherwise
    schema_default: ClassVar[str | None] = None  # the schema a server connection reads when it names none (`public`)
    affinity_typing: ClassVar[bool] = False  # column types are hints and values compare by affinity (SQLite)
    integer_booleans: ClassVar[bool] = False  # booleans are stored as small integers (flags named is_/has_ ...)
    folds_unquoted_to_lower: ClassVar[bool] = False  # an unquoted mixed-case name is read in lower case
    billed: ClassVar[bool] = False  # every query scans data someone pays for (profiling off by default)
    type_names: ClassVar[Mapping[str, str]] = {}  # its driver's type names -> the SQL names clients expect
    percentiles: ClassVar[str] = "exact"  # "exact" | "approximate" (only approximate ones) | "none"
    # a correlated scalar subquery may be a GROUP BY key (a custom granularity is the spine's column looked up by day)
    correlated_group_keys: ClassVar[bool] = True
    # joins are nested loops over indexes, no hash join (SQLite): a join on an expression of both sides reads one
    # side whole for every row of the other, so an offset's shifted period is a column of its periods CTE, which
    # the engine indexes (render/offsets.py); where hash joins exist the expression joins as well
    loop_joins: ClassVar[bool] = False
    extract_units: ClassVar[Mapping[str, str]] = {"dow": "ISODOW", "doy": "DOY"}
    # raw SQL: what this engine adds to the common allow-list, and what is refused on it whatever a layer says
    raw_sql_functions: ClassVar[frozenset[str]] = frozenset()
    raw_sql_table_functions: ClassVar[frozenset[str]] = frozenset()
    denied_functions: ClassVar[Mapping[str, str]] = {}  # name -> why (files, network, programs)
    allowed_settings: ClassVar[tuple[str, ...] | None] = None  # query-level SETTINGS it accepts (None: it has no such clause)
    # the fence around a role's filtered subquery is proven on the real engine (tests/engine/access/test_access_fences.py)
    fenced: ClassVar[bool] = False
    # storing data (the embedded demo loaded into an engine, smq_db/demo/build.py)
    has_schemas: ClassVar[bool] = True  # tables can live in a named schema (SQLite: a database file each)
    text_collation: ClassVar[str | None] = None  # the collation text columns get, so text compares byte by byte everywhere
    paramstyle: ClassVar[str | None] = None  # its DB-API driver's placeholder style (None: ask the connection)
    bulk_load: ClassVar[str] = "rows"  # how many rows go in one statement: "rows" (executemany), "columns", "json"

    # -- names ------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """Its name in database.yml and for sqlglot (`postgres`)."""
        return self.engine.value

    def __repr__(self) -> str:
        return f"<dialect {self.name}>"

    @property
    def sqlglot(self) -> SqlglotDialect:
        """sqlglot's dialect object for it, made once: a dialect given by name is built anew for every `.sql()`."""
        return _sqlglot_dialect(self.name)

    # -- dates and periods ---------------------------------------------------------------------------
    def to_date(self, value: exp.Expression) -> exp.Expression:
        """A date/timestamp value as a plain DATE (the day it falls on)."""
        return exp.Cast(this=value, to=data_type("DATE"))

    def truncate(self, value: exp.Expression, grain: str) -> exp.Expression:
        """The first day of the period (day, ISO week from Monday, month, quarter, year) as a DATE; below a day
        (hour, minute, second) the period's first instant as a TIMESTAMP (truncate_time)."""
        if grain in SUB_DAILY:
            return self.truncate_time(value, grain)
        return self.truncate_date(value, grain)

    def truncate_date(self, value: exp.Expression, grain: str) -> exp.Expression:
        """The first day of a period of day or coarser, as a DATE (what an engine module overrides)."""
        if grain == "day":
            return self.to_date(value)
        # DATE_TRUNC('unit', x), cast back to DATE (it returns a timestamp for timestamps)
        return exp.Cast(this=call("DATE_TRUNC", lit(grain), value), to=data_type("DATE"))

    def truncate_time(self, value: exp.Expression, grain: str) -> exp.Expression:
        """A timestamp truncated to the hour, minute or second: DATE_TRUNC('hour', x) as a TIMESTAMP."""
        return exp.Cast(this=call("DATE_TRUNC", lit(grain), value), to=data_type("TIMESTAMP"))

    def date_part(self, value: exp.Expression, part: str) -> exp.Expression:
        """A date part as an integer, as MetricFlow numbers them: dow 1 (Monday) to 7 (Sunday), doy from 1."""
        unit = self.extract_units.get(part, part.upper())
        return exp.Cast(this=exp.Extract(this=exp.var(unit), expression=value), to=data_type("INT"))

    def add_interval(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        """value + count units: a DATE for a day or coarser unit (add_date), a TIMESTAMP for an hour, minute or
        second (add_time), so a window or offset below a day keeps its time of day."""
        if unit in SUB_DAILY:
            return self.add_time(value, num(count), unit)
        return self.add_date(value, count, unit)

    def add_time(self, value: exp.Expression, count: exp.Expression, unit: str) -> exp.Expression:
        """value + count units (hours, minutes, seconds; days, months, years) as a TIMESTAMP; `count` may be a
        column (a generated series)."""
        return exp.DateAdd(this=exp.Cast(this=value, to=data_type("TIMESTAMP")), expression=count, unit=exp.var(unit.upper()))

    def shift_time(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        """A timestamp moved by count units of any grain, kept a TIMESTAMP (a period below a day moved by days or
        months keeps its time of day; add_interval would make a day step a DATE)."""
        count, unit = portable_step(count, unit)
        return self.add_time(value, num(count), unit)

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        """value + count days, weeks, months, quarters or years, as a DATE (weeks and quarters in portable units)."""
        count, unit = portable_step(count, unit)
        shifted = exp.Add(this=value, expression=exp.Interval(this=lit(str(count)), unit=exp.var(unit.upper())))
        return exp.Cast(this=shifted, to=data_type("DATE"))

    def shift(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        """value + count units as a DATE; a month/year step past a month's end lands on its last day."""
        return self.add_interval(value, count, unit)

    def date_literal(self, value: exp.Literal, type_: str) -> exp.Expression:
        """A string literal compared with a date/timestamp dimension, typed where the engine needs it."""
        return exp.Cast(this=value, to=data_type("DATE" if type_ == "date" else "TIMESTAMP"))

    # -- assembling ---------------------------------------------------------------------------------
    def typed_null(self, cte: str, column: str) -> exp.Expression:
        """A NULL with the type of `cte.column`, for the padding columns of a UNION ALL."""
        return exp.Null()

    def finish(self, query: exp.Query) -> exp.Query:
        """Settings a whole compiled query needs on its engine, carried in the SQL itself."""
        return query

    # -- aggregates ----------------------------------------------------------------------------------
    def average(self, value: exp.Expression) -> exp.Expression:
        """A measure's AVG (agg: avg)."""
        return exp.Avg(this=value)

    # -- percentiles ---------------------------------------------------------------------------------
    def percentile(self, value: exp.Expression, fraction: float, discrete: bool, approximate: bool) -> exp.Expression:
        """The aggregate of `value` at a percentile (`percentiles` says which kinds exist; "none" is refused before)."""
        p = exp.Literal.number(repr(fraction))
        if not discrete:  # interpolated: a float (DuckDB would round it to the input's decimal scale)
            value = exp.Cast(this=value, to=data_type("DOUBLE"))
        if approximate or self.percentiles == "approximate":
            return self.approximate_percentile(value, fraction, p)
        return self.exact_percentile(value, p, discrete)

    def exact_percentile(self, value: exp.Expression, p: exp.Expression, discrete: bool) -> exp.Expression:
        return within_group(exp.PercentileDisc if discrete else exp.PercentileCont, p, value)

    def approximate_percentile(self, value: exp.Expression, fraction: float, p: exp.Expression) -> exp.Expression:
        """No approximate percentile here: the exact one answers an approximate request."""
        return within_group(exp.PercentileCont, p, value)

    # -- storing --------------------------------------------------------------------------------------
    def storage_type(self, portable: exp.DataType) -> exp.DataType:
        """The column type a portable type (DECIMAL(12,2), VARCHAR, TIMESTAMP ...) is stored as here."""
        return portable

    # -- access -------------------------------------------------------------------------------------
    def fence(self, query: exp.Select) -> exp.Select:
        """A role's subquery made opaque to the planner, so outer predicates see only filtered rows.

        Unchanged where no fence is proven; raw SQL is then refused for row-filtered roles (`fenced`)."""
        return query

