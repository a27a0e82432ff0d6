"""Percentile and median aggregates, per dialect.

A percentile is exact continuous (interpolated, PERCENTILE_CONT), exact discrete (a value of the
column, PERCENTILE_DISC) or approximate. Engines differ: BigQuery and Trino only have approximate
percentile aggregates (used for every kind there); PostgreSQL has no approximate one (the exact one
answers an approximate request); SQLite and MySQL/MariaDB have no percentile aggregate at all, and a
query asking for one is refused naming the dialect. Percentiles do not re-aggregate: the renderer
never folds them per day (cumulative) and reads them over deduplicated rows (fan-out).
"""

from __future__ import annotations

from fractions import Fraction

from sqlglot import exp

from ..errors import Location, QueryError
from ..layer.model import Measure

PERCENTILE_AGGS = ("percentile", "median")
# engines without any percentile aggregate
UNSUPPORTED = {"sqlite": "SQLite", "mysql": "MySQL/MariaDB"}
# engines with approximate percentiles only
APPROXIMATE_ONLY = ("bigquery", "trino")


def _f(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _within_group(func: type[exp.Expression], p: exp.Expression, value: exp.Expression) -> exp.Expression:
    """PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY value): the SQL standard's ordered-set aggregate."""
    order = exp.Order(expressions=[exp.Ordered(this=value, nulls_first=False)])
    return exp.WithinGroup(this=func(this=p), expression=order)


def fraction_of(measure: Measure) -> float:
    """The measure's percentile as a fraction (a median is 0.5)."""
    return 0.5 if measure.agg == "median" or measure.percentile is None else measure.percentile


def percentile_aggregate(measure: Measure, value: exp.Expression, dialect: str) -> exp.Expression:
    """The aggregate of `value` at the measure's percentile in `dialect`, or a QueryError naming it."""
    if dialect in UNSUPPORTED:
        raise QueryError(
            f"measure {measure.qualified_name} is a {measure.agg} ({_kind(measure)}), and {UNSUPPORTED[dialect]} has no "
            f"percentile aggregate; query it on an engine that has one (DuckDB, PostgreSQL, Snowflake, Spark, ...)",
            code="unsupported_aggregation", location=Location(field=measure.qualified_name))
    fraction = fraction_of(measure)
    p = exp.Literal.number(repr(fraction))
    if not measure.discrete:  # interpolated: a float (DuckDB would round it to the input's decimal scale)
        value = exp.Cast(this=value, to=exp.DataType.build("DOUBLE"))
    approximate = measure.approximate or dialect in APPROXIMATE_ONLY
    if approximate:
        return _approximate(value, fraction, p, dialect)
    if dialect == "duckdb":
        return _f("QUANTILE_DISC" if measure.discrete else "QUANTILE_CONT", value, p)
    if dialect in ("spark", "databricks"):
        if measure.discrete:
            return _within_group(exp.PercentileDisc, p, value)
        return _f("PERCENTILE", value, p)
    if dialect == "clickhouse":
        if not measure.discrete:
            return exp.ParameterizedAgg(this="quantileExactInclusive", expressions=[p], params=[value])
        # PERCENTILE_DISC: the ceil(n * p)-th smallest value (ClickHouse's quantileExact* pick other positions)
        count = exp.Count(this=value.copy())
        index = _f("toUInt64", _f("greatest", _f("ceil", exp.Mul(this=count, expression=p.copy())), exp.Literal.number(1)))
        picked = _f("arrayElement", _f("arraySort", _f("groupArray", value)), index)
        return exp.If(this=exp.EQ(this=count.copy(), expression=exp.Literal.number(0)), true=exp.Null(), false=picked)
    return _within_group(exp.PercentileDisc if measure.discrete else exp.PercentileCont, p, value)


def _approximate(value: exp.Expression, fraction: float, p: exp.Expression, dialect: str) -> exp.Expression:
    if dialect == "duckdb":
        return _f("APPROX_QUANTILE", value, p)
    if dialect in ("snowflake", "trino"):
        return _f("APPROX_PERCENTILE", value, p)
    if dialect in ("spark", "databricks"):
        return _f("PERCENTILE_APPROX", value, p)
    if dialect == "clickhouse":
        return exp.ParameterizedAgg(this="quantile", expressions=[p], params=[value])
    if dialect == "bigquery":  # APPROX_QUANTILES(x, n)[OFFSET(k)] with k / n = p
        ratio = Fraction(repr(fraction)).limit_denominator(10000)
        buckets = exp.Literal.number(ratio.denominator)
        quantiles = _f("APPROX_QUANTILES", value, buckets)
        return exp.Bracket(this=quantiles, expressions=[exp.Literal.number(ratio.numerator)], offset=0, safe=False)
    # PostgreSQL: no approximate percentile; the exact one is an answer to an approximate request
    return _within_group(exp.PercentileCont, p, value)


def _kind(measure: Measure) -> str:
    if measure.agg == "median":
        return "continuous median"
    words = ["approximate" if measure.approximate else "exact", "discrete" if measure.discrete else "continuous"]
    return f"{' '.join(words)} percentile {fraction_of(measure)}"
