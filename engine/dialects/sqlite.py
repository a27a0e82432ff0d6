"""SQLite: dates are ISO text handled by date()/strftime(), no DATE_TRUNC, no percentile aggregate."""

from __future__ import annotations

from sqlglot import exp

from ..trees import fresh
from . import Engine
from .base import Dialect, call, data_type, lit, num, portable_step

# the largest row count SQLite accepts in LIMIT: "every row", yet a LIMIT all the same
_ALL_ROWS = 9223372036854775807


class SQLite(Dialect):
    engine = Engine.SQLITE
    display = "SQLite"
    aliases = ("sqlite3",)
    url_schemes = ("sqlite", "sqlite3")
    file_based = True
    default_schema = "main"
    executor = "smq_db.executors.sqlite:from_settings"
    introspector = "smq_db.catalog:introspect_sqlite"
    information_schema = False
    affinity_typing = True
    loop_joins = True  # no hash join: an offset joins its periods on a column (render/offsets.py)
    integer_booleans = True
    percentiles = "none"
    fenced = True
    has_schemas = False
    paramstyle = "qmark"
    raw_sql_functions = frozenset("""
        strftime julianday unixepoch ifnull group_concat printf instr total likely unlikely likelihood
        char hex unicode zeroblob randomblob iif octet_length timediff
    """.split())
    raw_sql_table_functions = frozenset(("json_each", "json_tree"))

    def to_date(self, value: exp.Expression) -> exp.Expression:
        return call("DATE", value)

    def truncate_time(self, value: exp.Expression, grain: str) -> exp.Expression:
        """Timestamps are ISO text: STRFTIME keeps the fields down to the grain."""
        keep = {"hour": "%Y-%m-%d %H:00:00", "minute": "%Y-%m-%d %H:%M:00", "second": "%Y-%m-%d %H:%M:%S"}[grain]
        return call("STRFTIME", lit(keep), value)

    def truncate_date(self, value: exp.Expression, grain: str) -> exp.Expression:
        if grain == "day":
            return call("DATE", value)
        if grain == "week":  # next Sunday (or today if Sunday), then back six days: Monday
            return call("DATE", value, lit("weekday 0"), lit("-6 days"))
        if grain == "month":
            return call("DATE", value, lit("start of month"))
        if grain == "year":
            return call("DATE", value, lit("start of year"))
        # quarter: start of month, minus (month - 1) % 3 months
        month = exp.Cast(this=call("STRFTIME", lit("%m"), value), to=data_type("INT"))
        # parenthesised: in SQLite || binds tighter than %
        back = exp.Paren(this=exp.Mod(this=exp.Paren(this=exp.Sub(this=month, expression=num(1))), expression=num(3)))
        modifier = exp.DPipe(this=exp.DPipe(this=lit("-"), expression=back), expression=lit(" months"))
        return call("DATE", value, lit("start of month"), modifier)

    def date_part(self, value: exp.Expression, part: str) -> exp.Expression:
        def number(fmt: str) -> exp.Expression:
            return exp.Cast(this=call("STRFTIME", lit(fmt), fresh(value)), to=data_type("INT"))

        if part == "quarter":
            return exp.Div(this=exp.Paren(this=exp.Add(this=number("%m"), expression=num(2))), expression=num(3), typed=True)
        if part == "dow":  # %w: Sunday 0 .. Saturday 6
            return exp.Add(this=exp.Paren(this=exp.Mod(this=exp.Paren(this=exp.Add(this=number("%w"), expression=num(6))),
                                                       expression=num(7))), expression=num(1))
        return number({"year": "%Y", "month": "%m", "day": "%d", "doy": "%j"}[part])

    def add_time(self, value: exp.Expression, count: exp.Expression, unit: str) -> exp.Expression:
        """DATETIME(value, n || ' hours'): ISO text with the time of day (DATE() would drop it)."""
        return call("DATETIME", value, exp.DPipe(this=exp.Paren(this=count), expression=lit(f" {unit}s")))

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        count, unit = portable_step(count, unit)
        return call("DATE", value, lit(f"{count:+d} {unit}s"))

    def shift(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        """SQLite's date() rolls a month step past a month's end over into the next month: clamp it to the last day."""
        if unit not in ("month", "quarter", "year"):
            return self.add_interval(value, count, unit)
        months = count * {"month": 1, "quarter": 3, "year": 12}[unit]
        moved = call("DATE", value, lit(f"{months:+d} months"))
        rolled = exp.NEQ(this=call("STRFTIME", lit("%d"), fresh(moved)), expression=call("STRFTIME", lit("%d"), fresh(value)))
        last_day = call("DATE", fresh(moved), lit("start of month"), lit("-1 days"))
        return exp.Case(ifs=[exp.If(this=rolled, true=last_day)], default=moved)

    def date_literal(self, value: exp.Literal, type_: str) -> exp.Expression:
        """Dates are ISO text: a CAST would turn them into numbers."""
        return value

    def storage_type(self, portable: exp.DataType) -> exp.DataType:
        """No exact decimals: REAL."""
        if portable.this == exp.DataType.Type.DECIMAL:
            return exp.DataType.build("REAL", dialect="sqlite")
        return portable

    def fence(self, query: exp.Select) -> exp.Select:
        """SQLite neither flattens a subquery with LIMIT (outer WHERE present) nor pushes terms into it."""
        query.set("limit", exp.Limit(expression=exp.Literal.number(_ALL_ROWS)))
        return query
