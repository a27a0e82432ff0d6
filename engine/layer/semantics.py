"""A layer's `semantics:` (database.yml): smq's own, or MetricFlow's where the two differ on purpose (docs/dbt.md).

The loader reads the setting and applies the layer-level defaults here; the render step reads `SemanticLayer.semantics`
for the differences that are in the SQL (division by zero, dimension-only queries across models)."""

from __future__ import annotations

from dataclasses import replace

from .model import Metric

SEMANTICS = ("native", "metricflow")  # database.yml `semantics:` (SemanticLayer.semantics)


def with_metricflow_defaults(metric: Metric) -> Metric:
    """`semantics: metricflow`: a cumulative metric that does not say gets MetricFlow's period_agg (`first`) and periods
    (`nonempty_window`) instead of smq's (`last`, the data's range)."""
    if metric.type != "cumulative":
        return metric
    return replace(metric, period_agg=metric.period_agg or "first", periods=metric.periods or "nonempty_window")
