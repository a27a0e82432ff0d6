"""Spark SQL (and Databricks, which runs the same functions): DATE_ADD/ADD_MONTHS, DAYOFWEEK_ISO, PERCENTILE,
and the functions refused there (files, network, JVM reflection)."""

from __future__ import annotations

from sqlglot import exp

from . import Engine
from .base import Dialect, call, data_type, num, portable_step, within_group

FILE = "file access"
SYSTEM = "runs JVM code or programs"
NETWORK = "network access"


class Spark(Dialect):
    engine = Engine.SPARK
    display = "Spark"
    executor = "smq_db.executors.spark:from_settings"
    extract_units = {"dow": "DAYOFWEEK_ISO", "doy": "DOY"}  # Spark has no ISODOW field: DAYOFWEEK_ISO is Monday 1
    denied_functions = {
        "reflect": SYSTEM, "java_method": SYSTEM, "try_reflect": SYSTEM, "transform": SYSTEM,
        "read_files": FILE, "input_file_name": FILE, "input_file_block_start": FILE, "input_file_block_length": FILE,
        "http_request": NETWORK, "ai_query": NETWORK, "secret": SYSTEM, "current_user": SYSTEM,
    }
    raw_sql_functions = frozenset(name.lower() for name in (
        # emitted by the compiler
        "date_trunc", "date_add", "add_months", "timestampadd", "cast", "nullif", "coalesce", "count", "sum", "min", "max", "avg",
        "trim", "upper", "lower", "case", "row_number",
        # common in layer expressions and filters
        "abs", "round", "floor", "ceil", "greatest", "least", "concat", "substring", "substr", "length", "replace",
        "date_format", "to_date", "to_timestamp", "year", "month", "day", "dayofweek", "weekofyear", "quarter",
        "datediff", "months_between", "current_date", "current_timestamp", "if", "ifnull", "nvl", "percentile_approx",
        "approx_count_distinct", "stddev", "variance", "median", "regexp_extract", "split", "lag", "lead", "rank", "dense_rank",
    ))

    def add_time(self, value: exp.Expression, count: exp.Expression, unit: str) -> exp.Expression:
        """TIMESTAMPADD(HOUR, n, ts): Spark's DATE_ADD(ts, n) would add days and return a DATE."""
        return call("TIMESTAMPADD", exp.var(unit.upper()), count, exp.Cast(this=value, to=data_type("TIMESTAMP")))

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        """DATE_ADD(d, days) and ADD_MONTHS(d, months) return a DATE on every Spark."""
        count, unit = portable_step(count, unit)
        if unit == "day":
            return call("DATE_ADD", value, num(count))
        return call("ADD_MONTHS", value, num(count * 12 if unit == "year" else count))

    def average(self, value: exp.Expression) -> exp.Expression:
        """AVG over a DECIMAL(p, s) answers at scale s + 4 on Spark (0.050081 where other engines give 0.0500813...):
        the mean of a DOUBLE, as the others compute it."""
        return exp.Avg(this=exp.Cast(this=value, to=exp.DataType.build("DOUBLE")))

    def exact_percentile(self, value: exp.Expression, p: exp.Expression, discrete: bool) -> exp.Expression:
        if discrete:
            return within_group(exp.PercentileDisc, p, value)
        return call("PERCENTILE", value, p)

    def approximate_percentile(self, value: exp.Expression, fraction: float, p: exp.Expression) -> exp.Expression:
        return call("PERCENTILE_APPROX", value, p)
