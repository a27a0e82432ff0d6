"""`smq import dbt` of MetricFlow's offsets, conversion metrics and cumulative period_agg: what the layer says."""

from __future__ import annotations

from pathlib import Path

from engine.layer.yamlpos import load_yaml
from smq_authoring.layerdoc import plain

from .test_import import imported, mf_db, needs_mf  # noqa: F401 - fixtures

__all__ = ["imported", "mf_db"]


def _metric(imported: Path, model: str, name: str) -> dict:  # noqa: F811
    body = plain(load_yaml(imported / "mf" / "models" / f"{model}.yml", f"{model}.yml"))
    return next(m for m in body["metrics"] if m["name"] == name)


@needs_mf
def test_offset_inputs_keep_their_alias_and_offset(imported: Path) -> None:  # noqa: F811
    assert _metric(imported, "bookings_source", "bookings_growth_2_weeks")["inputs"] == [
        {"name": "bookings", "alias": "bookings_2_weeks_ago", "offset_window": "14 days"}]
    month_start = _metric(imported, "bookings_source", "bookings_month_start_compared_to_1_month_prior")
    assert month_start["expr"] == "month_start_bookings - bookings_1_month_ago"
    assert month_start["inputs"] == [{"name": "bookings", "alias": "month_start_bookings", "offset_to_grain": "month"},
                                     {"name": "bookings", "alias": "bookings_1_month_ago", "offset_window": "1 month"}]


@needs_mf
def test_conversion_metrics_name_both_measures_and_properties(imported: Path) -> None:  # noqa: F811
    metric = _metric(imported, "visits_source", "visit_buy_conversion_rate_by_session")
    assert metric == {"name": "visit_buy_conversion_rate_by_session", "type": "conversion",
                      "description": "conversion rate on visits-buys on a 7 day window held by a constant session_id",
                      "window": "7 days", "base_measure": "visits_source__visits", "conversion_measure": "buys_source__buys",
                      "entity": "user", "calculation": "conversion_rate",
                      "constant_properties": [{"base_property": "visits_source__session",
                                               "conversion_property": "buys_source__session_id"}]}


@needs_mf
def test_cumulative_metrics_say_metricflow_s_period_agg(imported: Path) -> None:  # noqa: F811
    all_time = _metric(imported, "bookings_source", "bookings_all_time")
    assert all_time["period_agg"] == "first" and all_time["periods"] == "nonempty_window"  # MetricFlow's defaults
    assert _metric(imported, "revenue", "trailing_2_months_revenue")["period_agg"] == "average"


@needs_mf
def test_conversion_filters_and_monthly_time_dimensions_are_mapped(imported: Path) -> None:  # noqa: F811
    metric = _metric(imported, "visits_source", "visit_buy_conversion_rate_with_filter")  # was refused before
    assert metric["type"] == "conversion" and metric["filters"] == ["visit__referrer_id = 'fb_ad_1'"]
    buys = plain(load_yaml(imported / "mf" / "models" / "buys_source.yml", "buys_source.yml"))
    ds_month = next(d for d in buys["dimensions"] if d["name"] == "ds_month")
    assert ds_month["time_granularity"] == "month"  # conversions compare at its grain (MetricFlow's)
