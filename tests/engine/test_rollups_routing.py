"""Routing: a query's aggregation is answered from a rollup only when provably the same as from the facts; each rule
that refuses one has a test here that the rollup is NOT used, and explain says why (no database: the store's state is
given to the layer as the store would give it)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from engine import Layer, RollupState, load_layer

SHOP = Path(__file__).resolve().parents[2] / "semantic_models" / "shop"
ROLLUPS = """
rollups:
  - name: orders_daily
    model: OrdersModel
    measures: [orderCount, customerCount]
    dimensions: [channel, status, CustomersModel__segment]
    time_dimension: orderDate
    grain: day
    refresh: {every: 1h}
  - name: items_monthly
    model: OrderItemsModel
    measures: [revenuePerUnit, averageUnitPrice, lineCount]
    dimensions: [OrdersModel__channel]
    time_dimension: OrdersModel__orderDate
    grain: month
    refresh: {every: 1d, max_staleness: 2d}
"""
ROLES = """
    web_only:
      row_filters: ["OrdersModel__channel = 'web'"]
"""


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    folder = tmp_path_factory.mktemp("routing") / "shop"
    shutil.copytree(SHOP, folder, ignore=shutil.ignore_patterns("data"))
    (folder / "rollups.yml").write_text(ROLLUPS)
    db = (folder / "database.yml").read_text().replace("  roles:\n", "  roles:\n" + ROLES.strip("\n") + "\n", 1)
    (folder / "database.yml").write_text(db)
    built = load_layer(folder)
    now = time.time()
    built.set_rollup_states({"orders_daily": RollupState(now, now + 3600), "items_monthly": RollupState(now, now + 7200)})
    return built


def used(layer: Layer, smq: dict, role: str | None = None) -> list[dict]:
    return layer.explain(smq, role=role)["rollups"]


def test_a_coarser_query_is_answered_from_the_rollup(layer: Layer) -> None:
    (entry,) = used(layer, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"],
                            "filters": ["OrdersModel__status = 'delivered'"]})
    assert entry == {"model": "OrdersModel", "rollup": "orders_daily", "why": "answered from rollup orders_daily"}
    routed = layer.compile_routed({"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate"]})
    assert routed.rollups == ("orders_daily",) and routed.dialect == "duckdb"  # a date read raw from a day grain


def test_count_distinct_at_another_grain_is_not_answered(layer: Layer) -> None:
    (entry,) = used(layer, {"metrics": ["OrdersModel__customerCount"], "group_by": ["OrdersModel__channel"]})
    assert entry["rollup"] is None and "does not re-aggregate" in entry["why"], entry
    exact = {"metrics": ["OrdersModel__customerCount"],
             "group_by": ["OrdersModel__orderDate__day", "CustomersModel__segment", "OrdersModel__status", "OrdersModel__channel"]}
    assert used(layer, exact)[0]["rollup"] == "orders_daily"  # exactly the rollup's keys: each group is one row


def test_a_dimension_outside_the_rollup_is_not_answered(layer: Layer) -> None:
    (entry,) = used(layer, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__isShipped"]})
    assert entry["rollup"] is None and "OrdersModel__isShipped is in no rollup of OrdersModel" in entry["why"]
    (entry,) = used(layer, {"metrics": ["OrdersModel__orderCount"], "filters": ["NationsModel__country = 'Germany'"]})
    assert entry["rollup"] is None and "NationsModel__country" in entry["why"]


def test_a_finer_or_misaligned_grain_is_not_answered(layer: Layer) -> None:
    by_week = used(layer, {"metrics": ["OrderItemsModel__lineCount"], "group_by": ["OrdersModel__orderDate__week"]})[0]
    assert by_week["rollup"] is None and "week" in by_week["why"]
    by_quarter = used(layer, {"metrics": ["OrderItemsModel__lineCount"], "group_by": ["OrdersModel__orderDate__quarter"]})[0]
    assert by_quarter["rollup"] == "items_monthly"


def test_a_role_filter_on_a_dimension_not_in_the_rollup_is_not_answered(layer: Layer) -> None:
    (entry,) = used(layer, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}, role="de_analyst")
    assert entry["rollup"] is None and "role" in entry["why"], entry
    (entry,) = used(layer, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}, role="web_only")
    assert entry["rollup"] == "orders_daily"  # its filter is on a rollup dimension: applied to the rollup's rows
    sql = layer.compile_routed({"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}, "web_only").sql
    assert "d_ordersmodel__channel = 'web'" in sql


def test_a_stale_rollup_past_its_allowance_is_not_answered(layer: Layer) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
    states = dict(layer._rollup_states)
    try:
        old = time.time() - 7200
        layer.set_rollup_states({**states, "orders_daily": RollupState(old, old + 3600, "built 7200 s ago")})
        (entry,) = used(layer, smq)
        assert entry["rollup"] is None and "stale past its refresh allowance" in entry["why"]
        layer.set_rollup_states({**states, "orders_daily": RollupState(old, time.time() + 60, "built 7200 s ago")})
        assert used(layer, smq)[0]["rollup"] == "orders_daily"  # stale, but within its allowance
        layer.set_rollup_states({})
        assert "not built" in used(layer, smq)[0]["why"]
    finally:
        layer.set_rollup_states(states)


def test_ratio_and_average_metrics_are_answered_from_their_parts(layer: Layer) -> None:
    smq = {"metrics": ["revenuePerUnit", "OrderItemsModel__averageUnitPrice"], "group_by": ["OrdersModel__channel"]}
    (entry,) = used(layer, smq)
    assert entry["rollup"] == "items_monthly"
    sql = layer.compile_routed(smq).sql
    assert "m_orderitemsmodel__averageunitprice__sum" in sql and "m_orderitemsmodel__averageunitprice__count" in sql


def test_each_aggregation_on_its_own_with_the_embedded_store(layer: Layer) -> None:
    smq = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__channel"]}
    entries = used(layer, smq)  # a DuckDB warehouse: mixed (tests/engine/test_rollups_mixed_routing.py)
    assert [e["rollup"] for e in entries] == ["orders_daily", None]
    assert entries[1]["why"] == "no rollup of PaymentsModel"
    both = {"metrics": ["OrdersModel__orderCount", "OrderItemsModel__lineCount"], "group_by": ["OrdersModel__channel"]}
    assert [e["rollup"] for e in used(layer, both)] == ["orders_daily", "items_monthly"]


def test_switched_off(layer: Layer) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
    assert "orders_daily" not in layer.compile(smq, rollups=False)
    assert layer.compile_routed(smq, rollups=False).rollups == ()
    assert layer.explain(smq, rollups=False)["rollups"][0]["why"] == "rollups are off for this query"
    # compile() is SQL for the warehouse: embedded rollups never appear in it
    assert "smq_rollups" not in layer.compile(smq)


def test_cumulative_and_offset_need_a_day_grain(layer: Layer) -> None:
    entries = used(layer, {"metrics": ["cumulativeRevenue"], "group_by": ["OrdersModel__orderDate__month"]})
    assert entries and all(e["rollup"] is None for e in entries)
    assert "day grain" in entries[0]["why"], entries
    (entry,) = used(layer, {"metrics": ["ordersYearToDate"], "group_by": ["OrdersModel__orderDate__month"]})
    assert entry["rollup"] == "orders_daily"  # a window over the daily rollup's days
