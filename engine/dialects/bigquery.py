"""BigQuery: DATE()/DATE_TRUNC(date, UNIT), ISOWEEK, Sunday-first day numbers, approximate percentiles only."""

from __future__ import annotations

from fractions import Fraction

from sqlglot import exp

from . import Engine
from .base import Dialect, call, data_type, num, portable_step


class BigQuery(Dialect):
    engine = Engine.BIGQUERY
    display = "BigQuery"
    executor = "smq_db.executors.bigquery:from_settings"
    billed = True
    percentiles = "approximate"
    extract_units = {"dow": "DAYOFWEEK", "doy": "DAYOFYEAR"}

    def to_date(self, value: exp.Expression) -> exp.Expression:
        return call("DATE", value)

    def truncate_time(self, value: exp.Expression, grain: str) -> exp.Expression:
        return call("TIMESTAMP_TRUNC", value, exp.var(grain.upper()))

    def truncate_date(self, value: exp.Expression, grain: str) -> exp.Expression:
        if grain == "day":
            return self.to_date(value)
        unit = "ISOWEEK" if grain == "week" else grain.upper()
        return call("DATE_TRUNC", call("DATE", value), exp.var(unit))

    def date_part(self, value: exp.Expression, part: str) -> exp.Expression:
        if part == "dow":  # BigQuery: Sunday 1; shifted to Monday 1
            extracted = exp.Extract(this=exp.var("DAYOFWEEK"), expression=value)
            return exp.Add(this=exp.Mod(this=exp.Paren(this=exp.Add(this=extracted, expression=num(5))), expression=num(7)),
                           expression=num(1))
        return super().date_part(value, part)

    def add_time(self, value: exp.Expression, count: exp.Expression, unit: str) -> exp.Expression:
        """TIMESTAMP_ADD(ts, INTERVAL n HOUR): BigQuery's DATE_ADD takes only a DATE."""
        return call("TIMESTAMP_ADD", exp.Cast(this=value, to=data_type("TIMESTAMP")), exp.Interval(this=count, unit=exp.var(unit.upper())))

    def add_date(self, value: exp.Expression, count: int, unit: str) -> exp.Expression:
        count, unit = portable_step(count, unit)
        return call("DATE_ADD", value, exp.Interval(this=num(count), unit=exp.var(unit.upper())))

    def approximate_percentile(self, value: exp.Expression, fraction: float, p: exp.Expression) -> exp.Expression:
        """APPROX_QUANTILES(x, n)[OFFSET(k)] with k / n = the fraction."""
        ratio = Fraction(repr(fraction)).limit_denominator(10000)
        quantiles = call("APPROX_QUANTILES", value, exp.Literal.number(ratio.denominator))
        return exp.Bracket(this=quantiles, expressions=[exp.Literal.number(ratio.numerator)], offset=0, safe=False)
