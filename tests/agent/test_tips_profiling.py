"""Profiling of the columns a compiled query filters, groups or ranks on, over the real demo database:
NULL-heavy columns, single-valued filters (through the access role), string filters that match nothing,
dates outside the data; attached to compile results as `warnings` and shown in the trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import AgentConfig, run_agent
from agent.profiling import Profiler, column_uses, literal_predicates
from agent.providers.scripted import ScriptedProvider, call
from tests.agent.fixtures import QUESTION

BY_CHANNEL = "SELECT channel, COUNT(order_id) AS orders FROM orders GROUP BY channel"
SHIPPED_BY_SEGMENT = {"metrics": ["OrderItemsModel__revenue", "OrdersModel__orderCount"], "group_by": ["CustomersModel__segment"],
                      "filters": ["OrdersModel__shippedAt >= DATE '2024-01-01'"], "order_by": ["-OrderItemsModel__revenue"], "limit": 3}


def labels(uses) -> set[tuple[str, str]]:
    return {(u.label("duckdb"), u.clause) for u in uses}


def test_columns_are_found_in_where_group_by_and_through_ctes_for_the_ranking(layer):
    tree = layer.compile_expression(SHIPPED_BY_SEGMENT, "duckdb", None)
    found = labels(column_uses(tree, "duckdb"))
    assert {("orders.shipped_at", "filter"), ("customers.segment", "group")} <= found
    # the outer ORDER BY ranks on a merged CTE column: lineage traces it to the order lines' columns
    assert {("order_items.quantity", "rank"), ("order_items.unit_price", "rank")} <= found
    guarded = {u.label("duckdb"): u.guarded for u in column_uses(tree, "duckdb")}
    assert guarded["order_items.discount"] is True  # COALESCE(discount, 0): its NULLs are handled


def test_literal_predicates_are_single_table_comparisons(layer):
    tree = layer.compile_expression({"metrics": ["OrdersModel__orderCount"], "filters": [
        "OrdersModel__status = 'Shipped'", "OrdersModel__orderDate >= DATE '2030-01-01'"]}, "duckdb", None)
    preds = {(p.column, p.kind) for p in literal_predicates(tree)}
    assert preds == {("status", "text"), ("order_date", "range")}


def test_warnings_for_a_null_heavy_filter_and_group_column(layer, executor):
    report = Profiler(layer, executor).inspect(layer.compile_expression(SHIPPED_BY_SEGMENT, "duckdb", None))
    text = "\n".join(report.warnings)
    assert "orders.shipped_at (filter column) is NULL in 15% of 5000 rows" in text
    assert "customers.segment (group column) is NULL in 5% of 600 rows: they form one NULL group" in text
    assert "discount" not in text  # guarded by COALESCE
    profile = {p["column"]: p for p in report.profiles}
    assert profile["orders.shipped_at"]["null_share"] == pytest.approx(0.152) and profile["customers.segment"]["distinct"] == 3


def test_a_single_valued_filter_under_the_role(layer, executor):
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
           "filters": ["NationsModel__country = 'Germany'"]}
    report = Profiler(layer, executor, role="de_analyst").inspect(layer.compile_expression(smq, "duckdb", None))
    assert any("nations.nation_name (filter column) holds a single value ('Germany') in every row you can see" in w
               for w in report.warnings)
    unrestricted = Profiler(layer, executor).inspect(layer.compile_expression(smq, "duckdb", None))
    assert not any("single value" in w for w in unrestricted.warnings)  # 15 nations without the role


def test_a_string_filter_matching_nothing_names_the_stored_spelling(layer, executor):
    tree = layer.compile_expression({"metrics": ["OrdersModel__orderCount"], "filters": ["OrdersModel__status = 'Shipped'"]},
                                    "duckdb", None)
    warnings = Profiler(layer, executor).inspect(tree).warnings
    assert any("no row of orders matches TRIM(\"orders\".status) = 'Shipped'; values that look alike: 'shipped'" in w
               for w in warnings)


def test_a_date_filter_outside_the_data(layer, executor):
    tree = layer.compile_expression({"metrics": ["OrdersModel__orderCount"],
                                     "filters": ["OrdersModel__orderDate >= DATE '2030-01-01'"]}, "duckdb", None)
    warnings = Profiler(layer, executor).inspect(tree).warnings
    assert any("keeps no row: orders.order_date only runs from 2023-01-01 to 2024-12-31" in w for w in warnings)
    inside = layer.compile_expression({"metrics": ["OrdersModel__orderCount"],
                                       "filters": ["OrdersModel__orderDate >= DATE '2024-01-01'"]}, "duckdb", None)
    assert not Profiler(layer, executor).inspect(inside).warnings


def test_results_are_cached_warnings_not_repeated_and_queries_capped(layer, executor):
    profiler = Profiler(layer, executor)
    tree = layer.compile_expression(SHIPPED_BY_SEGMENT, "duckdb", None)
    first = profiler.inspect(tree)
    queries = profiler.queries
    again = profiler.inspect(tree)
    assert profiler.queries == queries and again.warnings == [] and again.profiles == first.profiles
    assert profiler.inspect(tree, repeat=True).warnings == first.warnings


class Failing:
    """An executor whose profiling queries fail (a driver error): compiles must still work."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def execute(self, sql: str, **kwargs: Any) -> Any:
        if "COUNT(DISTINCT" in sql or sql.startswith("SELECT COUNT(*)"):
            raise RuntimeError("driver exploded")
        return self.inner.execute(sql, **kwargs)


def run(layer, executor, script, tmp_path: Path, role: str | None = None, **config: Any):
    provider = ScriptedProvider(script)
    config.setdefault("tips", False)
    return run_agent(layer, executor, provider, QUESTION, AgentConfig(trace_dir=tmp_path / "traces", **config),
                     role=role), provider


def test_compile_results_carry_warnings_and_the_trace_shows_the_profiles(layer, executor, tmp_path):
    script = [call("convertSmqToSql", "Revenue by segment since 2024.", smq=SHIPPED_BY_SEGMENT), call("execute", "e", sql=BY_CHANNEL)]
    result, provider = run(layer, executor, script, tmp_path)
    assert result.status == "answered"
    compiled = result.trace.turns[0]
    assert any("orders.shipped_at" in w for w in compiled.result["warnings"]) and compiled.profiles
    assert provider.requests[1]["messages"][-1].result["warnings"] == compiled.result["warnings"]
    md = result.trace_path.read_text()
    assert "Profile warnings:" in md and "column profiles" in md and "| orders.shipped_at | filter | 5000 | 15.2% |" in md


def test_profiling_applies_the_role_in_a_run(layer, executor, tmp_path):
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"], "filters": ["NationsModel__country = 'Germany'"]}
    final = call("execute", "", sql="SELECT COUNT(*) AS orders FROM orders")
    result, _ = run(layer, executor, [call("convertSmqToSql", "", smq=smq), final], tmp_path, role="de_analyst")
    assert result.status == "answered"
    assert any("single value ('Germany')" in w for w in result.trace.turns[0].result["warnings"])


def test_profiling_off_auto_and_failing_queries(layer, executor, tmp_path):
    script = [call("convertSmqToSql", "", smq=SHIPPED_BY_SEGMENT), call("execute", "", sql=BY_CHANNEL)]
    off, _ = run(layer, executor, list(script), tmp_path, profile=False)
    assert off.status == "answered" and "warnings" not in off.trace.turns[0].result and off.trace.turns[0].profiles == []
    broken, _ = run(layer, Failing(executor), list(script), tmp_path)
    assert broken.status == "answered" and broken.trace.turns[0].result["preview"] is not None
    assert "warnings" not in broken.trace.turns[0].result
    assert AgentConfig().profile_enabled("duckdb") and not AgentConfig().profile_enabled("snowflake")
    assert not AgentConfig().profile_enabled("BigQuery") and AgentConfig(profile=True).profile_enabled("bigquery")
