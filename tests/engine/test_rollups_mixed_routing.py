"""Mixed routing with the embedded store (engine/rollups/mix.py): each aggregation of a query is routed on its own; the
ones a rollup answers run on the store and their rows are given to the warehouse's query, the rest read the facts.
One test per rule that keeps an aggregation (or the whole query) on the facts, and explain's per-aggregation account.
No database: the store's state is given to the layer as the store would give it."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from engine import Layer, RollupState, load_layer
from engine.rollups.mix import MIX_ROWS, fill, given_rows, part_table

from .test_rollups_routing import ROLES, ROLLUPS, SHOP


def _layer(folder: Path, dialect: str = "duckdb") -> Layer:
    shutil.copytree(SHOP, folder, ignore=shutil.ignore_patterns("data"))
    (folder / "rollups.yml").write_text(ROLLUPS)
    db = (folder / "database.yml").read_text().replace("  roles:\n", "  roles:\n" + ROLES.strip("\n") + "\n", 1)
    if dialect != "duckdb":
        db = db.replace("dialect: duckdb", f"dialect: {dialect}", 1)
    (folder / "database.yml").write_text(db)
    return load_layer(folder)


def _fresh(rows: int = 100) -> dict[str, RollupState]:
    now = time.time()
    return {"orders_daily": RollupState(now, now + 3600, rows=rows), "items_monthly": RollupState(now, now + 7200, rows=rows)}


@pytest.fixture()
def layer(tmp_path: Path) -> Layer:
    built = _layer(tmp_path / "shop")
    built.set_rollup_states(_fresh())
    return built


BY_CHANNEL = ["OrdersModel__channel"]


def test_a_count_distinct_at_another_grain_stays_on_the_facts_while_its_sibling_uses_the_rollup(layer: Layer) -> None:
    smq = {"metrics": ["OrdersModel__customerCount", "OrderItemsModel__lineCount"], "group_by": BY_CHANNEL}
    orders, items = layer.explain(smq)["rollups"]
    assert orders["rollup"] is None and "does not re-aggregate" in orders["why"], orders
    assert items["rollup"] == "items_monthly" and "combined with the facts' aggregations" in items["why"], items
    routed = layer.compile_routed(smq)
    assert routed.store == "mixed" and routed.rollups == ("items_monthly",) and routed.dialect == "duckdb"
    (part,) = routed.parts
    assert part.rollup == "items_monthly" and "smq_rollups.items_monthly" in part.sql
    assert part.table in routed.sql and "smq_rollups" not in routed.sql  # the warehouse's query reads the given rows


@pytest.mark.parametrize(("built", "answered"), [("orders_daily", "OrdersModel"), ("items_monthly", "OrderItemsModel")])
def test_a_ratio_whose_numerator_or_denominator_alone_a_rollup_holds(layer: Layer, built: str, answered: str) -> None:
    layer.set_rollup_states({built: _fresh()[built]})  # the other rollup not built: its side reads the facts
    entries = layer.explain({"metrics": ["averageOrderValue"], "group_by": BY_CHANNEL})["rollups"]
    assert {e["model"]: e["rollup"] for e in entries} == {"OrdersModel": built if answered == "OrdersModel" else None,
                                                          "OrderItemsModel": built if answered == "OrderItemsModel" else None}
    other = next(e for e in entries if e["model"] != answered)
    assert "not built" in other["why"], other


def test_role_filters_hold_on_both_sides(layer: Layer) -> None:
    smq = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__status"]}
    routed = layer.compile_routed(smq, "web_only")
    assert routed.store == "mixed", routed.decisions
    (part,) = routed.parts
    assert "d_ordersmodel__channel = 'web'" in part.sql  # on the rollup's rows
    assert "'web'" in routed.sql.split(part.table)[1]  # and on the facts the warehouse reads
    # a role whose filter the rollup cannot evaluate: that aggregation reads the facts, and so does its sibling
    entries = layer.explain(smq, role="de_analyst")["rollups"]
    assert all(e["rollup"] is None for e in entries) and "role" in entries[0]["why"], entries
    assert layer.compile_routed(smq, "de_analyst").store == "warehouse"


def test_a_stale_rollup_past_its_allowance_leaves_the_whole_query_on_the_facts(layer: Layer) -> None:
    old = time.time() - 7200
    layer.set_rollup_states({**_fresh(), "orders_daily": RollupState(old, old + 3600, "built 7200 s ago", rows=100)})
    smq = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": BY_CHANNEL}
    entries = layer.explain(smq)["rollups"]
    assert entries[0]["rollup"] is None and "stale past its refresh allowance" in entries[0]["why"]
    routed = layer.compile_routed(smq)
    assert routed.store == "warehouse" and routed.parts == () and "__smq_rollup_rows_" not in routed.sql


def test_a_rollup_with_more_rows_than_a_mix_carries_is_not_mixed(layer: Layer) -> None:
    layer.set_rollup_states(_fresh(rows=MIX_ROWS + 1))
    smq = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": BY_CHANNEL}
    entries = layer.explain(smq)["rollups"]
    assert all(e["rollup"] is None for e in entries)
    assert f"more than the {MIX_ROWS}" in entries[0]["why"] and entries[1]["why"] == "no rollup of PaymentsModel"
    both = {"metrics": ["OrdersModel__orderCount", "OrderItemsModel__lineCount"], "group_by": BY_CHANNEL}
    assert layer.compile_routed(both).store == "rollups"  # all from the store: no rows travel, no cap


def test_another_warehouse_engine_is_not_mixed(tmp_path: Path) -> None:
    layer = _layer(tmp_path / "shop", "sqlite")
    layer.set_rollup_states(_fresh())
    smq = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": BY_CHANNEL}
    entries = layer.explain(smq)["rollups"]
    assert all(e["rollup"] is None for e in entries) and "sqlite warehouse is refused" in entries[0]["why"], entries
    assert layer.compile_routed(smq).store == "warehouse"


def test_explain_names_each_aggregation_and_the_part_run_on_the_store(layer: Layer) -> None:
    smq = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": BY_CHANNEL}
    out = layer.explain(smq)
    assert [(e["model"], e["rollup"]) for e in out["rollups"]] == [("OrdersModel", "orders_daily"), ("PaymentsModel", None)]
    (part,) = out["rollup_parts"]
    assert part["rollup"] == "orders_daily" and part["table"] in out["sql"] and "TYPEOF" in part["sql"]
    assert "rollup_parts" not in layer.explain(smq, rollups=False) and "__smq_rollup_rows_" not in layer.explain(smq, rollups=False)["sql"]


def test_given_rows_keep_their_types_and_an_empty_part_adds_no_row() -> None:
    rows = [["web", "VARCHAR", "2024-01-01", "DATE", "12.50", "DECIMAL(18,2)", None, "DOUBLE"]]
    sql = given_rows(["g0", "g1", "a0", "a1"], rows).sql(dialect="duckdb")
    assert "CAST('2024-01-01' AS DATE)" in sql and "CAST('12.50' AS DECIMAL(18, 2))" in sql and "CAST(NULL AS DOUBLE)" in sql
    from sqlglot import exp

    tree = exp.select("g0").from_(part_table("f0"))
    filled = fill(tree, {part_table("f0"): given_rows(["g0"], [])}).sql(dialect="duckdb")
    assert "WHERE FALSE" in filled and part_table("f0") in filled and tree.sql() == f"SELECT g0 FROM {part_table('f0')}"


def test_the_sql_shown_to_a_role_names_its_filter_values_on_the_rollup_too(layer: Layer) -> None:
    smq = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__status"]}
    assert layer.shows_filters("web_only")  # web_only sees its filters' values named, not spelled out
    (part,) = layer.explain(smq, role="web_only")["rollup_parts"]
    assert "'web'" not in part["sql"] and "web_only_filter1_value1" in part["sql"], part["sql"]
    # a query wholly from the rollup: shown named, run spelled out
    alone = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}
    assert "'web'" not in layer.compile_routed(alone, "web_only", shown=True).sql
    assert "d_ordersmodel__channel = 'web'" in layer.compile_routed(alone, "web_only").sql
    routed = layer.compile_routed(smq, "web_only")
    assert "'web'" in routed.parts[0].sql  # the part that runs filters the rollup's rows
