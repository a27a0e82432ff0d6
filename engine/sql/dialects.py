"""The few things sqlglot does not get right by itself on every engine, per dialect.

Date truncation (SQLite and MySQL have no DATE_TRUNC; ISO weeks start on Monday
everywhere), date arithmetic, typed date literals and floating-point division. Every
function returns a sqlglot expression; nothing here glues SQL text.
"""

from __future__ import annotations

from sqlglot import exp

SUPPORTED_DIALECTS = ("sqlite", "duckdb", "postgres", "mysql", "snowflake", "bigquery", "trino", "spark", "databricks", "clickhouse")

# Spark SQL as Databricks runs it: the same functions, so the same quirks
SPARK_FAMILY = ("spark", "databricks")

# ClickHouse's own functions return a Date for every grain; their names are case-sensitive
_CLICKHOUSE_TRUNCATE = {"day": "toDate", "week": "toMonday", "month": "toStartOfMonth",
                        "quarter": "toStartOfQuarter", "year": "toStartOfYear"}
_CLICKHOUSE_ADD = {"day": "addDays", "month": "addMonths", "year": "addYears"}


_TYPES: dict[str, exp.DataType] = {}


def _type(name: str) -> exp.DataType:
    """A DataType node; built (parsed) once per name, copied after: building parses the text."""
    proto = _TYPES.get(name)
    if proto is None:
        proto = _TYPES[name] = exp.DataType.build(name)
    return proto.copy()


def _lit(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _num(value: int) -> exp.Expression:  # a negative number is Neg(Literal)
    return exp.Literal.number(value)


def _f(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def to_date(value: exp.Expression, dialect: str) -> exp.Expression:
    """A date/timestamp value as a plain DATE (the day it falls on)."""
    if dialect in ("sqlite", "mysql", "bigquery"):
        return _f("DATE", value)
    return exp.Cast(this=value, to=_type("DATE"))


def truncate(value: exp.Expression, grain: str, dialect: str) -> exp.Expression:
    """The first day of the period (day, ISO week from Monday, month, quarter, year) as a DATE."""
    if dialect == "sqlite":
        if grain == "day":
            return _f("DATE", value)
        if grain == "week":  # next Sunday (or today if Sunday), then back six days: Monday
            return _f("DATE", value, _lit("weekday 0"), _lit("-6 days"))
        if grain == "month":
            return _f("DATE", value, _lit("start of month"))
        if grain == "year":
            return _f("DATE", value, _lit("start of year"))
        # quarter: start of month, minus (month - 1) % 3 months
        month = exp.Cast(this=_f("STRFTIME", _lit("%m"), value), to=_type("INT"))
        # parenthesised: in SQLite || binds tighter than %
        back = exp.Paren(this=exp.Mod(this=exp.Paren(this=exp.Sub(this=month, expression=_num(1))), expression=_num(3)))
        modifier = exp.DPipe(this=exp.DPipe(this=_lit("-"), expression=back), expression=_lit(" months"))
        return _f("DATE", value, _lit("start of month"), modifier)
    if dialect == "mysql":
        day = _f("DATE", value)
        if grain == "day":
            return day
        if grain == "week":  # WEEKDAY(): Monday = 0
            return exp.DateSub(this=day, expression=_f("WEEKDAY", value), unit=exp.var("DAY"))
        if grain == "month":
            return exp.DateSub(this=day, expression=exp.Sub(this=_f("DAYOFMONTH", value), expression=_num(1)), unit=exp.var("DAY"))
        year_start = _f("MAKEDATE", _f("YEAR", value), _num(1))
        if grain == "year":
            return year_start
        return exp.DateAdd(this=year_start, expression=exp.Sub(this=_f("QUARTER", value), expression=_num(1)), unit=exp.var("QUARTER"))
    if dialect == "clickhouse":  # DATE_TRUNC returns a DateTime for a DateTime; toMonday is the ISO week
        return _f(_CLICKHOUSE_TRUNCATE[grain], value)
    if grain == "day":
        return to_date(value, dialect)
    if dialect == "bigquery":
        unit = "ISOWEEK" if grain == "week" else grain.upper()
        return _f("DATE_TRUNC", _f("DATE", value), exp.var(unit))
    if dialect == "snowflake" and grain == "week":
        # DATE_TRUNC('WEEK') follows the WEEK_START session parameter; ISO day numbers do not
        day = exp.Cast(this=value, to=_type("DATE"))
        shift = exp.Sub(this=_f("DAYOFWEEKISO", day), expression=_num(1))
        return exp.Cast(this=_f("DATEADD", exp.var("DAY"), exp.Neg(this=exp.Paren(this=shift)), day), to=_type("DATE"))
    # postgres, duckdb, trino, snowflake, spark (its 'week' starts on Monday too): DATE_TRUNC('unit', x), cast back to DATE (it returns a timestamp for timestamps)
    return exp.Cast(this=_f("DATE_TRUNC", _lit(grain), value), to=_type("DATE"))


def date_part(value: exp.Expression, part: str, dialect: str) -> exp.Expression:
    """A date part as an integer, as MetricFlow numbers them: dow 1 (Monday) to 7 (Sunday), doy from 1."""
    if dialect == "sqlite":
        def number(fmt: str) -> exp.Expression:
            return exp.Cast(this=_f("STRFTIME", _lit(fmt), value.copy()), to=_type("INT"))
        if part == "quarter":
            return exp.Div(this=exp.Paren(this=exp.Add(this=number("%m"), expression=_num(2))), expression=_num(3), typed=True)
        if part == "dow":  # %w: Sunday 0 .. Saturday 6
            return exp.Add(this=exp.Paren(this=exp.Mod(this=exp.Paren(this=exp.Add(this=number("%w"), expression=_num(6))),
                                                       expression=_num(7))), expression=_num(1))
        return number({"year": "%Y", "month": "%m", "day": "%d", "doy": "%j"}[part])
    if dialect == "mysql":
        if part == "dow":  # WEEKDAY(): Monday 0
            return exp.Add(this=_f("WEEKDAY", value), expression=_num(1))
        return _f({"year": "YEAR", "quarter": "QUARTER", "month": "MONTH", "day": "DAYOFMONTH", "doy": "DAYOFYEAR"}[part], value)
    if dialect == "snowflake" and part in ("dow", "doy"):
        return _f("DAYOFWEEKISO" if part == "dow" else "DAYOFYEAR", value)
    unit = {"dow": "ISODOW", "doy": "DOY"}.get(part, part.upper())
    if dialect == "bigquery":
        unit = {"ISODOW": "DAYOFWEEK", "DOY": "DAYOFYEAR"}.get(unit, unit)
        if part == "dow":  # BigQuery: Sunday 1
            extracted = exp.Extract(this=exp.var(unit), expression=value)
            return exp.Add(this=exp.Mod(this=exp.Paren(this=exp.Add(this=extracted, expression=_num(5))), expression=_num(7)),
                           expression=_num(1))
    if dialect == "trino":
        unit = {"ISODOW": "DOW", "DOY": "DOY"}.get(unit, unit)
    if dialect in SPARK_FAMILY:  # Spark has no ISODOW field: DAYOFWEEK_ISO is Monday 1
        unit = {"ISODOW": "DAYOFWEEK_ISO"}.get(unit, unit)
    return exp.Cast(this=exp.Extract(this=exp.var(unit), expression=value), to=_type("INT"))


def add_interval(value: exp.Expression, count: int, unit: str, dialect: str) -> exp.Expression:
    """value + count units, as a DATE. Weeks become 7 days and quarters 3 months (portable units)."""
    if unit == "week":
        count, unit = count * 7, "day"
    elif unit == "quarter":
        count, unit = count * 3, "month"
    if dialect == "sqlite":
        return _f("DATE", value, _lit(f"{count:+d} {unit}s"))
    if dialect == "mysql":
        return exp.DateAdd(this=value, expression=_num(count), unit=exp.var(unit.upper()))
    if dialect == "bigquery":
        return _f("DATE_ADD", value, exp.Interval(this=_num(count), unit=exp.var(unit.upper())))
    if dialect == "snowflake":
        return exp.Cast(this=_f("DATEADD", exp.var(unit.upper()), _num(count), value), to=_type("DATE"))
    if dialect == "trino":
        return _f("DATE_ADD", _lit(unit), _num(count), value)
    if dialect in SPARK_FAMILY:  # DATE_ADD(d, days) and ADD_MONTHS(d, months) return a DATE on every Spark
        if unit == "day":
            return _f("DATE_ADD", value, _num(count))
        return _f("ADD_MONTHS", value, _num(count * 12 if unit == "year" else count))
    if dialect == "clickhouse":
        return _f(_CLICKHOUSE_ADD[unit], value, _num(count))
    if dialect == "postgres":
        shifted = exp.Add(this=value, expression=exp.Interval(this=_lit(f"{count} {unit}"), unit=None))
        return exp.Cast(this=shifted, to=_type("DATE"))
    # duckdb and anything else sqlglot transpiles well
    shifted = exp.Add(this=value, expression=exp.Interval(this=_lit(str(count)), unit=exp.var(unit.upper())))
    return exp.Cast(this=shifted, to=_type("DATE"))


def shift(value: exp.Expression, count: int, unit: str, dialect: str) -> exp.Expression:
    """value + count units as a DATE; a month/year step past a month's end lands on its last day on every
    engine (SQLite's date() would roll over into the next month)."""
    if dialect != "sqlite" or unit not in ("month", "quarter", "year"):
        return add_interval(value, count, unit, dialect)
    months = count * {"month": 1, "quarter": 3, "year": 12}[unit]
    moved = _f("DATE", value, _lit(f"{months:+d} months"))
    rolled = exp.NEQ(this=_f("STRFTIME", _lit("%d"), moved.copy()), expression=_f("STRFTIME", _lit("%d"), value.copy()))
    last_day = _f("DATE", moved.copy(), _lit("start of month"), _lit("-1 days"))
    return exp.Case(ifs=[exp.If(this=rolled, true=last_day)], default=moved)


def date_literal(value: exp.Literal, type_: str, dialect: str) -> exp.Expression:
    """A string literal compared with a date/timestamp dimension, typed where the engine needs it.

    SQLite keeps dates as ISO text (a CAST would turn them into numbers); Trino and others
    refuse or misjudge date = varchar comparisons, so there the literal becomes a typed value.
    """
    if dialect in ("sqlite", "mysql"):
        return value
    return exp.Cast(this=value, to=_type("DATE" if type_ == "date" else "TIMESTAMP"))


def typed_null(cte: str, column: str, dialect: str) -> exp.Expression:
    """A NULL with the type of `cte.column`, for the padding columns of a UNION ALL.

    PostgreSQL types `NULL UNION ALL NULL` as text before it meets the numeric branch and then
    refuses the union; a scalar subquery that returns no row is a NULL of the right type.
    """
    if dialect in ("postgres", "trino"):
        probe = exp.Select(expressions=[exp.column(exp.to_identifier(column, quoted=True))]).from_(exp.to_identifier(cte, quoted=True))
        return exp.Subquery(this=probe.where(exp.false(), copy=False))
    return exp.Null()


def float_division(numerator: exp.Expression, denominator: exp.Expression) -> exp.Expression:
    """numerator / denominator in floating point; NULL when the denominator is zero."""
    return exp.Div(
        this=exp.Cast(this=numerator, to=_type("DOUBLE")),
        expression=exp.Nullif(this=denominator, expression=_num(0)),
    )


def finish(query: exp.Query, dialect: str) -> exp.Query:
    """Settings a whole compiled query needs on its engine, carried in the SQL itself.

    ClickHouse fills a LEFT JOIN's non-matching rows with the column type's default ('' and 0)
    instead of NULL unless ``join_use_nulls = 1``: "no nation" would group as an empty string
    and sums over missing rows would count zeros. The setting goes in the query's own SETTINGS
    clause (on its last SELECT, where ClickHouse reads it for the whole query, a UNION included),
    so the SQL means the same whether our executor or a user's client runs it.
    """
    if dialect != "clickhouse":
        return query
    for join in query.find_all(exp.Join):
        _split_lone_inequality(join)
    last: exp.Expr = query
    while isinstance(last, exp.SetOperation) and not last.args.get("order") and not last.args.get("limit"):
        last = last.expression
    if not isinstance(last, exp.Select):  # a union with its own ORDER BY/LIMIT: settings go around it
        query = exp.select("*").from_(query.subquery("smq_q"))
        last = query
    settings = list(last.args.get("settings") or [])
    settings.append(exp.EQ(this=exp.column("join_use_nulls"), expression=_num(1)))
    last.set("settings", settings)
    return query


_INEQUALITIES = (exp.LT, exp.LTE, exp.GT, exp.GTE)


def _split_lone_inequality(join: exp.Join) -> None:
    """ClickHouse plans a JOIN ON made of one inequality (``r.t < period + 1 month``, the running
    total of a cumulative metric) as an equi-join and refuses it ("Cannot determine join keys");
    with two conditions over both sides it plans a join on the condition, LEFT rows kept. The
    condition is stated twice (``c AND c``): same rows, a plan ClickHouse has."""
    on = join.args.get("on")
    if isinstance(on, _INEQUALITIES):
        join.set("on", exp.and_(on, on.copy()))
