"""Percentile and median aggregates.

A percentile is exact continuous (interpolated, PERCENTILE_CONT), exact discrete (a value of the column,
PERCENTILE_DISC) or approximate. Engines differ (each dialect's `percentiles` and `percentile`): some have only
approximate percentile aggregates (used for every kind there), PostgreSQL has no approximate one (the exact one
answers an approximate request), SQLite and MySQL/MariaDB have none, and a query asking for one there is refused
naming the engine. Percentiles do not re-aggregate: the renderer never folds them per day (cumulative) and reads
them over deduplicated rows (fan-out).
"""

from __future__ import annotations

from sqlglot import exp

from ..dialects.base import Dialect
from ..errors import Location, QueryError
from ..layer.model import Measure

PERCENTILE_AGGS = ("percentile", "median")


def fraction_of(measure: Measure) -> float:
    """The measure's percentile as a fraction (a median is 0.5)."""
    return 0.5 if measure.agg == "median" or measure.percentile is None else measure.percentile


def percentile_aggregate(measure: Measure, value: exp.Expression, dialect: Dialect) -> exp.Expression:
    """The aggregate of `value` at the measure's percentile in `dialect`, or a QueryError naming it."""
    if dialect.percentiles == "none":
        raise QueryError(
            f"measure {measure.qualified_name} is a {measure.agg} ({_kind(measure)}), and {dialect.display} has no "
            f"percentile aggregate; query it on an engine that has one (DuckDB, PostgreSQL, Snowflake, Spark, ...)",
            code="unsupported_aggregation", location=Location(field=measure.qualified_name))
    return dialect.percentile(value, fraction_of(measure), measure.discrete, measure.approximate)


def _kind(measure: Measure) -> str:
    if measure.agg == "median":
        return "continuous median"
    words = ["approximate" if measure.approximate else "exact", "discrete" if measure.discrete else "continuous"]
    return f"{' '.join(words)} percentile {fraction_of(measure)}"
