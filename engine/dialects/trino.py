"""Trino: DATE_ADD('unit', n, d), DOW for the ISO day of week, typed NULLs in a UNION, approximate percentiles only."""

from __future__ import annotations

from sqlglot import exp

from . import Engine
from .base import Dialect, call, lit, null_of_column, num, portable_step


class Trino(Dialect):
    engine = Engine.TRINO
    display = "Trino"
    executor = "smq_db.executors.trino:from_settings"
    percentiles = "approximate"
    extract_units = {"dow": "DOW", "doy": "DOY"}

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        count, unit = portable_step(count, unit)
        return call("DATE_ADD", lit(unit), num(count), value)

    def typed_null(self, cte: str, column: str) -> exp.Expression:
        """Trino, like PostgreSQL, types an all-NULL union branch before it meets the numeric one."""
        return null_of_column(cte, column)

    def approximate_percentile(self, value: exp.Expression, fraction: float, p: exp.Expression) -> exp.Expression:
        return call("APPROX_PERCENTILE", value, p)
