"""Snowflake: DATEADD, ISO day numbers, a session-dependent week start, approximate percentiles by name."""

from __future__ import annotations

from sqlglot import exp

from . import Engine
from .base import Dialect, call, data_type, num, portable_step


class Snowflake(Dialect):
    engine = Engine.SNOWFLAKE
    display = "Snowflake"
    executor = "smq_db.executors.snowflake:from_settings"
    billed = True
    bulk_load = "json"  # rows as one JSON array per statement, unpacked server side (a statement's text is capped at 1 MB)

    def truncate_date(self, value: exp.Expression, grain: str) -> exp.Expression:
        if grain != "week":
            return super().truncate_date(value, grain)
        # DATE_TRUNC('WEEK') follows the WEEK_START session parameter; ISO day numbers do not
        day = exp.Cast(this=value, to=data_type("DATE"))
        back = exp.Sub(this=call("DAYOFWEEKISO", day), expression=num(1))
        return exp.Cast(this=call("DATEADD", exp.var("DAY"), exp.Neg(this=exp.Paren(this=back)), day), to=data_type("DATE"))

    def date_part(self, value: exp.Expression, part: str) -> exp.Expression:
        if part in ("dow", "doy"):
            return call("DAYOFWEEKISO" if part == "dow" else "DAYOFYEAR", value)
        return super().date_part(value, part)

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        count, unit = portable_step(count, unit)
        return exp.Cast(this=call("DATEADD", exp.var(unit.upper()), num(count), value), to=data_type("DATE"))

    def storage_type(self, portable: exp.DataType) -> exp.DataType:
        """A plain TIMESTAMP would follow the session's TIMESTAMP_TYPE_MAPPING: no time zone, always."""
        if portable.this == exp.DataType.Type.TIMESTAMP:
            return exp.DataType(this=exp.DataType.Type.TIMESTAMPNTZ)
        return portable

    def approximate_percentile(self, value: exp.Expression, fraction: float, p: exp.Expression) -> exp.Expression:
        return call("APPROX_PERCENTILE", value, p)
