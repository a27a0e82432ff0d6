"""ClickHouse: its own date functions (case-sensitive, a Date for every grain), quantile* aggregates,
`join_use_nulls = 1` for SQL NULLs on LEFT JOIN, and the table functions refused there.

ClickHouse's `readonly = 1` stops writes and SET, not table functions that read files, URLs, object stores or
other databases, nor `executable` (runs a script): these are refused by `denied_functions`.
"""

from __future__ import annotations

from sqlglot import exp

from ..trees import fresh
from . import Engine
from .base import Dialect, call, portable_step

FILE = "file access"
NETWORK = "network access"
SYSTEM = "runs programs or reads server internals"

COMPILER_SETTING = "join_use_nulls = 1"  # the one query-level setting compiled SQL carries

_TRUNCATE = {"day": "toDate", "week": "toMonday", "month": "toStartOfMonth", "quarter": "toStartOfQuarter",
             "year": "toStartOfYear", "hour": "toStartOfHour", "minute": "toStartOfMinute", "second": "toStartOfSecond"}
_ADD = {"day": "addDays", "month": "addMonths", "year": "addYears", "hour": "addHours", "minute": "addMinutes", "second": "addSeconds"}
_INEQUALITIES = (exp.LT, exp.LTE, exp.GT, exp.GTE)


class ClickHouse(Dialect):
    engine = Engine.CLICKHOUSE
    display = "ClickHouse"
    executor = "smq_db.executors.clickhouse:from_settings"
    denied_functions = {
        "file": FILE, "hdfs": FILE, "hdfscluster": FILE, "filecluster": FILE, "iceberg": FILE, "deltalake": FILE,
        "hudi": FILE, "input": FILE, "format": FILE,
        "url": NETWORK, "urlcluster": NETWORK, "s3": NETWORK, "s3cluster": NETWORK, "gcs": NETWORK, "azureblobstorage": NETWORK,
        "remote": NETWORK, "remotesecure": NETWORK, "cluster": NETWORK, "clusterallreplicas": NETWORK,
        "mysql": NETWORK, "postgresql": NETWORK, "mongodb": NETWORK, "redis": NETWORK, "odbc": NETWORK, "jdbc": NETWORK,
        "sqlite": FILE, "dictionary": SYSTEM, "executable": SYSTEM, "executablepool": SYSTEM,
        "getsetting": SYSTEM, "getmacro": SYSTEM, "sleep": SYSTEM, "sleepeachrow": SYSTEM, "throwif": SYSTEM,
    }
    raw_sql_functions = frozenset(name.lower() for name in (
        # emitted by the compiler
        "toDate", "toMonday", "quantileExactInclusive", "quantileExact", "quantilesExactInclusive", "groupArray",
        "arraySort", "arrayElement", "toUInt64", "toStartOfMonth", "toStartOfQuarter", "toStartOfYear",
        "toStartOfHour", "toStartOfMinute", "toStartOfSecond", "toDateTime64", "addDays", "addMonths", "addHours", "addMinutes", "addSeconds",
        "addYears", "CAST", "nullIf", "coalesce", "count", "sum", "min", "max", "avg", "trim", "upper", "lower", "row_number",
        # common in layer expressions and filters
        "abs", "round", "floor", "ceil", "greatest", "least", "concat", "substring", "length", "replaceAll",
        "formatDateTime", "toYear", "toMonth", "toDayOfMonth", "toDayOfWeek", "toQuarter", "dateDiff", "today", "now",
        "if", "ifNull", "multiIf", "uniq", "uniqExact", "quantile", "median", "stddevPop", "varPop", "lagInFrame",
        "leadInFrame", "rank", "dense_rank", "extract", "splitByChar",
    ))
    allowed_settings = (COMPILER_SETTING,)
    correlated_group_keys = False  # "Correlated subqueries in aggregation keys are not supported"

    def truncate_date(self, value: exp.Expression, grain: str) -> exp.Expression:
        """DATE_TRUNC returns a DateTime for a DateTime; toMonday is the ISO week."""
        return call(_TRUNCATE[grain], value)

    def truncate_time(self, value: exp.Expression, grain: str) -> exp.Expression:
        """toStartOfHour gives a DateTime (whole seconds, read back as a number): as DateTime64 like the column."""
        return call("toDateTime64", call(_TRUNCATE[grain], value), exp.Literal.number(6))

    def add_time(self, value: exp.Expression, count: exp.Expression, unit: str) -> exp.Expression:
        """addHours(toDateTime64(x, 6), n): a DateTime64 like truncate_time's, so the two compare as equals."""
        return call(_ADD[unit], call("toDateTime64", value, exp.Literal.number(6)), count)

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        count, unit = portable_step(count, unit)
        return call(_ADD[unit], value, exp.Literal.number(count))

    def exact_percentile(self, value: exp.Expression, p: exp.Expression, discrete: bool) -> exp.Expression:
        if not discrete:
            return exp.ParameterizedAgg(this="quantileExactInclusive", expressions=[p], params=[value])
        # PERCENTILE_DISC: the ceil(n * p)-th smallest value (ClickHouse's quantileExact* pick other positions)
        count = exp.Count(this=fresh(value))
        index = call("toUInt64", call("greatest", call("ceil", exp.Mul(this=count, expression=fresh(p))), exp.Literal.number(1)))
        picked = call("arrayElement", call("arraySort", call("groupArray", value)), index)
        return exp.If(this=exp.EQ(this=fresh(count), expression=exp.Literal.number(0)), true=exp.Null(), false=picked)

    def approximate_percentile(self, value: exp.Expression, fraction: float, p: exp.Expression) -> exp.Expression:
        return exp.ParameterizedAgg(this="quantile", expressions=[p], params=[value])

    def finish(self, query: exp.Query) -> exp.Query:
        """ClickHouse fills a LEFT JOIN's non-matching rows with the column type's default ('' and 0) instead of NULL
        unless `join_use_nulls = 1`: "no nation" would group as an empty string and sums over missing rows would count
        zeros. The setting goes in the query's own SETTINGS clause (on its last SELECT, where ClickHouse reads it for the
        whole query, a UNION included), so the SQL means the same whether our executor or a user's client runs it."""
        for join in query.find_all(exp.Join):
            _split_lone_inequality(join)
        last: exp.Expr = query
        while isinstance(last, exp.SetOperation) and not last.args.get("order") and not last.args.get("limit"):
            last = last.expression
        if not isinstance(last, exp.Select):  # a union with its own ORDER BY/LIMIT: settings go around it
            query = exp.select("*").from_(query.subquery("smq_q"))
            last = query
        settings = list(last.args.get("settings") or [])
        settings.append(exp.EQ(this=exp.column("join_use_nulls"), expression=exp.Literal.number(1)))
        last.set("settings", settings)
        return query


def _split_lone_inequality(join: exp.Join) -> None:
    """ClickHouse plans a JOIN ON made of one inequality (`r.t < period + 1 month`, the running total of a cumulative
    metric) as an equi-join and refuses it ("Cannot determine join keys"); with two conditions over both sides it plans
    a join on the condition, LEFT rows kept. The condition is stated twice (`c AND c`): same rows, a plan it has."""
    on = join.args.get("on")
    if isinstance(on, _INEQUALITIES):
        join.set("on", exp.and_(on, fresh(on)))
