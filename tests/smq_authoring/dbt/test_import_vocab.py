"""`smq import dbt` maps MetricFlow's percentile/median measures, semi-additive measures
(non_additive_dimension) and a simple metric's fill_nulls_with / join_to_timespine; the imported
metrics answer like SQL written by hand over MetricFlow's own test data."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine import load_layers
from smq_authoring.dbt import ImportRefused, import_dbt

from .test_import import SIMPLE, answer, close, imported, mf_db, needs_mf, truth  # noqa: F401 - fixtures

CASES = [
    ({"metrics": ["median_booking_value", "booking_value_p99", "discrete_booking_value_p99"], "group_by": ["bookings_source__is_instant"]},
     "SELECT is_instant, QUANTILE_CONT(booking_value, 0.5), QUANTILE_CONT(booking_value, 0.99), QUANTILE_DISC(booking_value, 0.99) "
     "FROM fct_bookings GROUP BY 1"),
    # window_choice: min, no window grouping: the first day's balances, per month
    ({"metrics": ["total_account_balance_first_day"], "group_by": ["accounts_source__ds__month"]},
     "WITH f AS (SELECT DATE_TRUNC('month', ds) AS m, MIN(CAST(ds AS DATE)) AS d FROM fct_accounts GROUP BY 1) "
     "SELECT CAST(f.m AS DATE), SUM(a.account_balance) FROM f JOIN fct_accounts a ON CAST(a.ds AS DATE) = f.d GROUP BY 1"),
    # a group without a row on the chosen day is not listed (MetricFlow joins on the day before grouping)
    ({"metrics": ["total_account_balance_first_day"], "group_by": ["accounts_source__account_type"]},
     "WITH f AS (SELECT MIN(CAST(ds AS DATE)) AS d FROM fct_accounts) "
     "SELECT a.account_type, SUM(a.account_balance) FROM fct_accounts a JOIN f ON CAST(a.ds AS DATE) = f.d GROUP BY 1"),
    # window_choice: max per user (the `user` entity): each user's latest balances, summed
    ({"metrics": ["current_account_balance_by_user"]},
     "WITH l AS (SELECT user_id, MAX(CAST(ds AS DATE)) AS d FROM fct_accounts GROUP BY 1) "
     "SELECT SUM(a.account_balance) FROM fct_accounts a JOIN l ON a.user_id = l.user_id AND CAST(a.ds AS DATE) = l.d"),
    # join_to_timespine + fill_nulls_with: 0 on every day of the time spine, as MetricFlow
    ({"metrics": ["bookings_fill_nulls_with_0"], "group_by": ["bookings_source__ds__day"]},
     "SELECT CAST(s.ds AS DATE), COALESCE(b.c, 0) FROM mf_time_spine s LEFT JOIN "
     "(SELECT CAST(ds AS DATE) AS d, COUNT(*) AS c FROM fct_bookings GROUP BY 1) b ON b.d = s.ds"),
]


@needs_mf
@pytest.mark.parametrize("smq,sql", CASES, ids=[", ".join(c[0]["metrics"]) for c in CASES])
def test_vocabulary_imports_and_answers_like_hand_written_sql(imported: Path, mf_db: Path, smq: dict, sql: str) -> None:
    got, want = answer(imported, mf_db, smq), truth(mf_db, sql)
    assert close(got, want), (got, want)


@needs_mf
def test_measure_vocabulary_keeps_metricflow_words(imported: Path) -> None:
    text = (imported / "mf" / "models" / "bookings_source.yml").read_text(encoding="utf-8")
    assert "agg: median" in text and "percentile: 0.99" in text and "use_discrete_percentile: true" in text
    accounts = (imported / "mf" / "models" / "accounts_source.yml").read_text(encoding="utf-8")
    assert "window_choice: max" in accounts and "- user" in accounts


def test_bad_percentile_and_window_are_refused_with_their_line(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: proj\nmodel-paths: [models]\n", encoding="utf-8")
    (project / "models" / "sm.yml").write_text(
        "semantic_models:\n"
        "  - name: accounts\n"
        "    model: ref('accounts')\n"
        "    defaults: {agg_time_dimension: ds}\n"
        "    entities: [{name: account, type: primary, expr: account_id}]\n"
        "    dimensions: [{name: ds, type: time, type_params: {time_granularity: day}}]\n"
        "    measures:\n"
        "      - name: p_too_big\n"
        "        agg: percentile\n"
        "        expr: balance\n"
        "        agg_params: {percentile: 99}\n"
        "      - name: balance\n"
        "        agg: sum\n"
        "        non_additive_dimension: {name: ds, window_groupings: [nobody]}\n", encoding="utf-8")
    with pytest.raises(ImportRefused) as refused:
        import_dbt(project, "proj", tmp_path / "out" / "proj")
    lines = refused.value.errors
    assert any(line.split(":")[1] == "11" and "agg_params.percentile, a fraction from 0 to 1 (got 99)" in line for line in lines), lines
    assert any(line.split(":")[1] == "14" and "window_groupings 'nobody' is not an entity or dimension of accounts" in line
               for line in lines), lines


def test_fill_nulls_with_zero_on_a_cumulative_measure_input_is_kept(tmp_path: Path) -> None:
    """`fill_nulls_with: 0` is given (0 == False in Python: it was once read as absent and silently dropped); a
    cumulative metric takes it as a simple one does, and so does a conversion metric's measure input."""
    project = tmp_path / "proj"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: proj\nmodel-paths: [models]\n", encoding="utf-8")
    (project / "models" / "sm.yml").write_text(
        "models:\n"
        "  - name: spine\n"
        "    time_spine: {standard_granularity_column: date_day}\n"
        "    columns: [{name: date_day, granularity: day}]\n"
        "semantic_models:\n"
        "  - name: orders\n"
        "    model: ref('orders')\n"
        "    defaults: {agg_time_dimension: ds}\n"
        "    entities: [{name: order, type: primary, expr: order_id}, {name: customer, type: foreign, expr: customer_id}]\n"
        "    dimensions: [{name: ds, type: time, type_params: {time_granularity: day}}]\n"
        "    measures: [{name: n, agg: count, expr: order_id}, {name: amount, agg: sum}]\n"
        "metrics:\n"
        "  - name: zero_filled\n"
        "    type: simple\n"
        "    type_params: {measure: {name: n, fill_nulls_with: 0}}\n"
        "  - name: running\n"
        "    type: cumulative\n"
        "    type_params:\n"
        "      measure: {name: amount, fill_nulls_with: 0, join_to_timespine: true}\n"
        "  - name: converted\n"
        "    type: conversion\n"
        "    type_params:\n"
        "      conversion_type_params: {base_measure: n, conversion_measure: {name: n, fill_nulls_with: 0}, entity: customer}\n",
        encoding="utf-8")
    import_dbt(project, "proj", tmp_path / "out" / "proj")  # nothing refused: a conversion metric's inputs take them too
    metrics = yaml.safe_load((tmp_path / "out" / "proj" / "models" / "orders.yml").read_text(encoding="utf-8"))["metrics"]
    running = next(m for m in metrics if m["name"] == "running")
    assert running["fill_nulls_with"] == 0 and running["join_to_timespine"] is True
    converted = next(m for m in metrics if m["name"] == "converted")
    assert converted["base_measure"] == "orders__n" and converted["conversion_measure"] == {"name": "orders__n", "fill_nulls_with": 0}


def test_a_categorical_condition_dimension_stands_alone_in_a_filter(tmp_path: Path) -> None:
    """`expr: shipped_at IS NOT NULL` is a condition: imported as boolean, so `{{ Dimension(...) }}` alone filters a
    query, even when no metric's filter used it that way (which was the only case that typed it before)."""
    project = tmp_path / "proj"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: proj\nmodel-paths: [models]\n", encoding="utf-8")
    (project / "models" / "sm.yml").write_text(
        "semantic_models:\n"
        "  - name: orders\n"
        "    model: ref('orders')\n"
        "    defaults: {agg_time_dimension: ds}\n"
        "    entities: [{name: order, type: primary, expr: order_id}]\n"
        "    dimensions:\n"
        "      - {name: ds, type: time, type_params: {time_granularity: day}}\n"
        "      - {name: is_shipped, type: categorical, expr: shipped_at IS NOT NULL}\n"
        "      - {name: status, type: categorical}\n"
        "    measures: [{name: n, agg: count, expr: order_id}]\n"
        "metrics:\n"
        "  - name: orders_count\n"
        "    type: simple\n"
        "    type_params: {measure: n}\n", encoding="utf-8")
    result = import_dbt(project, "proj", tmp_path / "out" / "proj")
    assert not result.refusals and result.metrics >= 1
    model = (tmp_path / "out" / "proj" / "models" / "orders.yml").read_text(encoding="utf-8")
    assert "name: is_shipped" in model and "type: boolean" in model.split("name: is_shipped", 1)[1].split("- name:", 1)[0]
    assert "type: boolean" not in model.split("name: status", 1)[1].split("- name:", 1)[0]
    (tmp_path / "out" / "proj" / "database.yml").write_text(
        (tmp_path / "out" / "proj" / "database.yml").read_text(encoding="utf-8").replace("dialect: snowflake", "dialect: duckdb"),
        encoding="utf-8")
    layer = load_layers(tmp_path / "out")["proj"]
    sql = layer.compile({"metrics": ["orders_count"], "filters": ["{{ Dimension('order__is_shipped') }}"]}, dialect="duckdb")
    assert "WHERE" in sql and "shipped_at IS NULL" in sql  # NOT ... IS NULL, as sqlglot writes IS NOT NULL
