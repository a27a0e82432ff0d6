"""MySQL / MariaDB: no DATE_TRUNC, DATE_ADD/DATE_SUB arithmetic, no percentile aggregate, no FULL JOIN."""

from __future__ import annotations

from sqlglot import exp

from . import Engine
from .base import Dialect, call, data_type, lit, num, portable_step

_ALL_ROWS = 18446744073709551615  # the largest LIMIT it accepts


class MySQL(Dialect):
    engine = Engine.MYSQL
    display = "MySQL/MariaDB"
    aliases = ("mariadb",)
    full_join = False
    url_schemes = ("mysql", "mariadb")
    default_port = 3306
    schema_setting = "database"
    executor = "smq_db.executors.mysql:from_settings"
    introspector = "smq_db.catalog:introspect_mysql"
    integer_booleans = True
    declared_boolean_types = ("tinyint(1)",)  # BOOLEAN is TINYINT(1) here
    percentiles = "none"
    fenced = True
    paramstyle = "format"
    # what pymysql reports for a column -> the SQL type name clients expect
    type_names = {"LONGLONG": "BIGINT", "LONG": "INT", "INT24": "MEDIUMINT", "SHORT": "SMALLINT", "TINY": "TINYINT",
                  "NEWDECIMAL": "DECIMAL", "VAR_STRING": "VARCHAR", "STRING": "CHAR", "NEWDATE": "DATE", "YEAR": "SMALLINT"}
    raw_sql_functions = frozenset("""
        date_format str_to_date ifnull group_concat datediff timestampdiff timestampadd dayofmonth
        weekofyear yearweek char_length curdate curtime last_day makedate json_unquote json_search
        any_value bin oct conv format_bytes crc32 strcmp regexp_instr
    """.split())

    def to_date(self, value: exp.Expression) -> exp.Expression:
        return call("DATE", value)

    def truncate_time(self, value: exp.Expression, grain: str) -> exp.Expression:
        """No DATE_TRUNC: the fields down to the grain, as a DATETIME."""
        keep = {"hour": "%Y-%m-%d %H:00:00", "minute": "%Y-%m-%d %H:%i:00", "second": "%Y-%m-%d %H:%i:%s"}[grain]
        return exp.Cast(this=call("DATE_FORMAT", value, lit(keep)), to=data_type("DATETIME"))

    def truncate_date(self, value: exp.Expression, grain: str) -> exp.Expression:
        day = call("DATE", value)
        if grain == "day":
            return day
        if grain == "week":  # WEEKDAY(): Monday = 0
            return exp.DateSub(this=day, expression=call("WEEKDAY", value), unit=exp.var("DAY"))
        if grain == "month":
            return exp.DateSub(this=day, expression=exp.Sub(this=call("DAYOFMONTH", value), expression=num(1)), unit=exp.var("DAY"))
        year_start = call("MAKEDATE", call("YEAR", value), num(1))
        if grain == "year":
            return year_start
        return exp.DateAdd(this=year_start, expression=exp.Sub(this=call("QUARTER", value), expression=num(1)), unit=exp.var("QUARTER"))

    def date_part(self, value: exp.Expression, part: str) -> exp.Expression:
        if part == "dow":  # WEEKDAY(): Monday 0
            return exp.Add(this=call("WEEKDAY", value), expression=num(1))
        return call({"year": "YEAR", "quarter": "QUARTER", "month": "MONTH", "day": "DAYOFMONTH", "doy": "DAYOFYEAR"}[part], value)

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        count, unit = portable_step(count, unit)
        return exp.DateAdd(this=value, expression=num(count), unit=exp.var(unit.upper()))

    def date_literal(self, value: exp.Literal, type_: str) -> exp.Expression:
        """MySQL compares a date with its ISO text as dates."""
        return value

    def storage_type(self, portable: exp.DataType) -> exp.DataType:
        """A VARCHAR needs a length."""
        if portable.this == exp.DataType.Type.VARCHAR and not portable.expressions:
            return exp.DataType.build("VARCHAR(255)")
        return portable

    def fence(self, query: exp.Select) -> exp.Select:
        """MariaDB/MySQL never merge a derived table with LIMIT nor push conditions into it."""
        query.set("limit", exp.Limit(expression=exp.Literal.number(_ALL_ROWS)))
        return query
