"""Row filters that cannot be outrun: attacks on the role's subqueries, on the real engines.

A planner that evaluates a caller's predicate below the role's filter raises errors on rows the
role may not see: the error's text or its mere occurrence (a division by zero) answers a question
about them. Each attack below errs on PostgreSQL, MariaDB or SQLite without the fence
(`engine.access.fence`); with it, every engine answers within the role's rows. The target is a
customer outside Germany, which `de_analyst` (Germany only) must not learn anything about.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
import sqlglot

from engine import QueryError, load_layers
from engine.access.roles import apply_role_to_sql, default_schema
from engine.facade import Layer
from engine.layer.model import Role

from ...conftest import DEMO_MODELS

SHOP = load_layers(DEMO_MODELS)["shop"]
ENGINES = ("duckdb", "sqlite", "postgres", "mysql")
SCHEMA = f"smq_engine_test_{os.getpid()}"  # where tests/conftest.py loads the demo on the servers
CONNECTIONS = {"duckdb": {"backend": "duckdb"}, "sqlite": {"backend": "sqlite"},
               "postgres": {"backend": "postgres", "schema": SCHEMA}, "mysql": {"backend": "mysql", "database": SCHEMA}}


def layer_for(dialect: str, **changes: Any) -> Layer:
    """The demo layer as if it were deployed on `dialect` (the runners hold the same data there)."""
    return Layer(dataclasses.replace(SHOP.semantic, dialect=dialect, connection=CONNECTIONS.get(dialect, {}), **changes))


@pytest.fixture(scope="module")
def target(duckdb_runner: Any) -> tuple[int, str, str]:
    """(customer_id, customer_code, segment) of the first customer outside Germany."""
    _, rows = duckdb_runner("SELECT c.customer_id, c.customer_code, c.segment FROM customers c "
                            "JOIN nations n ON c.nation_id = n.nation_id WHERE n.nation_name <> 'Germany' ORDER BY 1 LIMIT 1")
    return rows[0]


@pytest.fixture(scope="module")
def german(duckdb_runner: Any) -> dict[str, int]:
    """What de_analyst may count: German customers and their orders."""
    _, [[customers]] = duckdb_runner("SELECT COUNT(*) FROM customers c JOIN nations n ON c.nation_id = n.nation_id "
                                     "WHERE n.nation_name = 'Germany'")
    return {"customers": customers}


def raw_attacks(dialect: str, target: tuple[int, str, str]) -> dict[str, str]:
    """Raw SQL a de_analyst key sends; each errs on the target's row if the planner evaluates it there."""
    cid, _, segment = target
    out = {
        # the issue's request: the failed cast quotes the target's code and segment
        "cast": f"SELECT COUNT(*) FROM customers WHERE CASE WHEN customer_id = {cid} "
                "THEN CAST(customer_code || '/' || segment AS INT) ELSE 0 END = 1",
        # one bit per request: does the target have this segment?
        "division": f"SELECT COUNT(*) FROM customers WHERE 1 / (CASE WHEN customer_id = {cid} AND segment = '{segment}' "
                    "THEN 0 ELSE 1 END) = 1",
        "overflow": f"SELECT COUNT(*) FROM customers WHERE customer_id = {cid} AND "
                    f"9223372036854775807 + (CASE WHEN segment = '{segment}' THEN 1 ELSE 0 END) > 0",
    }
    if dialect == "sqlite":
        out["json"] = (f"SELECT COUNT(*) FROM customers WHERE json(CASE WHEN customer_id = {cid} AND segment = '{segment}' "
                       "THEN '[' ELSE '1' END) = 1")
    return out


def smq_attacks(target: tuple[int, str, str]) -> dict[str, str]:
    """The same questions as SMQ filters (only allowed functions): `/query` must not answer them either."""
    _, code, segment = target
    guess = f"CustomersModel__customerCode = '{code}' AND CustomersModel__segment = '{segment}'"
    return {
        "cast": f"CASE WHEN CustomersModel__customerCode = '{code}' THEN "
                "CAST(CustomersModel__customerCode || '/' || CustomersModel__segment AS INT) ELSE 0 END = 1",
        "division": f"1 / (CASE WHEN {guess} THEN 0 ELSE 1 END) = 1",
        "overflow": f"9223372036854775807 + (CASE WHEN {guess} THEN 1 ELSE 0 END) > 0",
        "abs": f"ABS(CASE WHEN {guess} THEN -9223372036854775807 - 1 ELSE 0 END) >= 0",
    }


@pytest.mark.parametrize("dialect", ENGINES)
def test_raw_sql_attacks_see_only_the_roles_rows(dialect: str, runners: Callable[[str], Any],
                                                  target: tuple[int, str, str], german: dict[str, int]) -> None:
    run = runners(dialect)
    layer = layer_for(dialect)
    for name, sql in raw_attacks(dialect, target).items():
        rewritten = apply_role_to_sql(sqlglot.parse_one(sql, read=dialect), layer.semantic, layer.graph, layer.role("de_analyst"))
        _, [[count]] = run(rewritten.sql(dialect=dialect))  # without the fence: an error about the target's row
        assert count == (german["customers"] if name == "division" else 0), (dialect, name)


@pytest.mark.parametrize("dialect", ENGINES)
def test_smq_filter_attacks_see_only_the_roles_rows(dialect: str, runners: Callable[[str], Any],
                                                     target: tuple[int, str, str], german: dict[str, int]) -> None:
    run = runners(dialect)
    layer = layer_for(dialect)
    for name, condition in smq_attacks(target).items():
        sql = layer.compile({"metrics": ["CustomersModel__customerCount"], "filters": [condition]}, role="de_analyst")
        _, [[count]] = run(sql)
        assert count == (0 if name == "cast" else german["customers"]), (dialect, name)


def test_postgres_plan_evaluates_the_callers_condition_above_the_filter(postgres_runner: Any, target: tuple) -> None:
    layer = layer_for("postgres")
    sql = apply_role_to_sql(sqlglot.parse_one(raw_attacks("postgres", target)["division"], read="postgres"),
                            layer.semantic, layer.graph, layer.role("de_analyst")).sql(dialect="postgres")
    _, [[plan]] = postgres_runner(f"EXPLAIN (FORMAT JSON) {sql}")
    plan = plan if isinstance(plan, list) else json.loads(plan)

    def nodes(node: dict, depth: int = 0) -> list[tuple[int, dict]]:
        return [(depth, node)] + [n for child in node.get("Plans", []) for n in nodes(child, depth + 1)]

    found = nodes(plan[0]["Plan"])
    caller = [(d, n) for d, n in found if "1 / CASE" in n.get("Filter", "")]
    role = [(d, n) for d, n in found if "Germany" in n.get("Filter", "")]
    assert caller and role
    assert all(n["Node Type"] == "Subquery Scan" for _, n in caller)
    assert max(d for d, _ in caller) < min(d for d, _ in role)  # the caller's condition sits above the role's


def test_mariadb_materialises_the_roles_rows_before_the_callers_condition(mysql_runner: Any, target: tuple) -> None:
    layer = layer_for("mysql")
    sql = apply_role_to_sql(sqlglot.parse_one(raw_attacks("mysql", target)["overflow"], read="mysql"),
                            layer.semantic, layer.graph, layer.role("de_analyst")).sql(dialect="mysql")
    _, [[plan]] = mysql_runner(f"EXPLAIN FORMAT=JSON {sql}")
    text = json.dumps(json.loads(plan))
    assert '"materialized"' in text and "<derived" in text
    outer = json.loads(plan)["query_block"]
    assert "9223372036854775807" in json.dumps(outer)
    derived = text[text.index('"materialized"'):]
    assert "9223372036854775807" not in derived  # nothing of the caller's condition inside the role's rows


def test_duckdb_plan_keeps_a_limit_between_the_filter_and_the_callers_condition(duckdb_runner: Any, target: tuple) -> None:
    layer = layer_for("duckdb")
    sql = apply_role_to_sql(sqlglot.parse_one(raw_attacks("duckdb", target)["cast"], read="duckdb"),
                            layer.semantic, layer.graph, layer.role("de_analyst")).sql(dialect="duckdb")
    _, rows = duckdb_runner(f"EXPLAIN {sql}")
    plan = rows[0][1].lower()
    assert plan.index("cast(") < plan.index("limit") < plan.index("germany")  # printed top-down


@pytest.mark.parametrize("dialect", ["snowflake", "bigquery", "trino"])
def test_engines_without_a_proven_fence_refuse_raw_sql_to_row_filtered_roles(dialect: str) -> None:
    layer = layer_for(dialect)
    with pytest.raises(QueryError, match="use an SMQ instead") as caught:
        apply_role_to_sql(sqlglot.parse_one("SELECT COUNT(*) FROM orders"), layer.semantic, layer.graph, layer.role("de_analyst"))
    assert caught.value.code == "raw_sql_refused"
    assert layer.compile({"metrics": ["OrdersModel__orderCount"]}, role="de_analyst")  # SMQ still works


ISSUE_CTE = ("WITH nations AS (SELECT unnest(range(0, 1000)) AS nation_id, 'Germany' AS nation_name) "
             "SELECT count(*) FROM orders")


def test_a_cte_named_after_a_table_the_filter_reads_is_refused() -> None:
    with pytest.raises(QueryError, match="CTE named 'nations' shadows") as caught:
        apply_role_to_sql(sqlglot.parse_one(ISSUE_CTE, read="duckdb"), SHOP.semantic, SHOP.graph, SHOP.role("de_analyst"))
    assert caught.value.code == "raw_sql_refused"


@pytest.mark.parametrize("dialect", ENGINES)
def test_filter_subqueries_name_their_tables_schema_qualified(dialect: str, runners: Callable[[str], Any]) -> None:
    layer = layer_for(dialect)
    tree = apply_role_to_sql(sqlglot.parse_one("SELECT COUNT(*) FROM orders", read=dialect), layer.semantic, layer.graph,
                             layer.role("de_analyst"))
    schema = default_schema(layer.semantic)
    tables = list(tree.find_all(sqlglot.exp.Table))
    assert schema and {t.name for t in tables} == {"orders", "customers", "nations"}
    assert all(t.db == schema[0] for t in tables)
    runners(dialect)(tree.sql(dialect=dialect))  # the qualified names resolve on the real engine


HIDDEN_ONLY = Role(name="no_names", row_filters=(), row_filter_nodes=(), hidden=("CustomersModel__customerName",),
                   location=SHOP.semantic.roles["de_analyst"].location)


def test_hidden_only_roles_get_the_same_protections_on_raw_sql(duckdb_runner: Any) -> None:
    layer = layer_for("duckdb", roles={**SHOP.semantic.roles, "no_names": HIDDEN_ONLY})
    role = layer.role("no_names")

    def rewrite(sql: str) -> str:
        return apply_role_to_sql(sqlglot.parse_one(sql, read="duckdb"), layer.semantic, layer.graph, role).sql(dialect="duckdb")

    sql = rewrite("SELECT * FROM customers")
    assert "OFFSET 0" in sql and "main.customers" in sql and "customer_name" not in sql
    assert "customer_name" not in duckdb_runner(sql)[0]
    for refused in ("SELECT * FROM duckdb_tables()", "SELECT * FROM some_view_outside_the_layer",
                    "WITH customers AS (SELECT 1 AS customer_id) SELECT * FROM orders"):
        with pytest.raises(QueryError) as caught:
            rewrite(refused)
        assert caught.value.code == "raw_sql_refused", refused
    # engines without a fence: nothing is filtered, and a hidden column is absent from the projection
    snow = layer_for("snowflake", roles={**SHOP.semantic.roles, "no_names": HIDDEN_ONLY})
    assert apply_role_to_sql(sqlglot.parse_one("SELECT * FROM customers"), snow.semantic, snow.graph, snow.role("no_names"))
