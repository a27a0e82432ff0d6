"""Percentile and median aggregates: exact continuous (interpolated, PERCENTILE_CONT), exact discrete (a value of the
column, PERCENTILE_DISC) or approximate, each engine's own spelling (engine/dialects `percentile`). An engine without
any is refused before (engine/resolve). Percentiles do not re-aggregate: the renderer never folds them per day
(cumulative) and reads them over deduplicated rows (fan-out).
"""

from __future__ import annotations

from sqlglot import exp

from ..dialects.base import Dialect
from ..layer.model import Measure


def percentile_aggregate(measure: Measure, value: exp.Expression, dialect: Dialect) -> exp.Expression:
    """The aggregate of `value` at the measure's percentile in `dialect`."""
    return dialect.percentile(value, measure.fraction, measure.discrete, measure.approximate)
