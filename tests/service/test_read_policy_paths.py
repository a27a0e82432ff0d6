"""One read policy (engine.access.readpolicy): the same refused SQL gets the same code on every raw-SQL path.

REST /execute, the readQuery tool (REST tools route; MCP runs the same Explorer) and the agent's
final-SQL guard used to keep their own catalog lists and codes; a fix in one missed the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.guards import GuardRefusal, RunGuards
from engine import load_layers
from engine.access.readpolicy import policy_for
from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth
from tests.service.test_tools_api import with_tools

KEY = auth("shop-key")


@pytest.fixture(scope="module")
def api(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    app = with_tools(create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, query_timeout_s=20)))
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="module")
def guards(models_dir: Path) -> RunGuards:
    layer = load_layers(models_dir)["shop"]
    return RunGuards(layer.dialect, layer.models, policy=policy_for(layer.semantic))


@pytest.mark.parametrize(("sql", "status", "code"), [
    ("SELECT * FROM information_schema.tables", 403, "catalog_refused"),
    ("SELECT * FROM pg_catalog.pg_class", 403, "catalog_refused"),
    ("SELECT * FROM duckdb_settings()", 403, "table_function_refused"),
    ("SELECT name FROM sqlite_master", 403, "catalog_refused"),
    ("SELECT COUNT(*) FROM OrdersModel", 400, "not_a_table"),
])
def test_one_refusal_one_code_on_every_path(api: TestClient, guards: RunGuards, sql: str, status: int | None,
                                            code: str) -> None:
    if status is not None:
        rest = api.post("/v1/databases/shop/execute", json={"sql": sql}, headers=KEY)
        assert (rest.status_code, rest.json()["code"]) == (status, code), rest.text
        tool = api.post("/v1/databases/shop/tools/readQuery", json={"sql": sql}, headers=KEY)
        assert tool.json()["code"] == code, tool.text
    with pytest.raises(GuardRefusal) as refused:
        guards.check_final(sql)
    assert refused.value.code == code


def test_the_agent_keeps_its_advice_for_the_run(guards: RunGuards) -> None:
    with pytest.raises(GuardRefusal) as refused:
        guards.check_final("SELECT * FROM OrdersModel")
    assert "compile an SMQ over OrdersModel" in refused.value.message and refused.value.code == "not_a_table"


def test_what_runs_is_regenerated_from_the_checked_tree(api: TestClient) -> None:
    r = api.post("/v1/databases/shop/execute", json={"sql": "SELECT 1 AS a -- a note\n/* another */"}, headers=KEY)
    assert r.status_code == 200 and r.json()["sql"] == "SELECT 1 AS a", r.text


@pytest.mark.parametrize(("sql", "code"), [
    ("SELECT current_setting('temp_directory')", "function_not_allowed"),
    ("SELECT * FROM pragma_storage_info('customers')", "table_function_refused"),
    ("SELECT json_serialize_plan('SELECT 1')", "function_not_allowed"),
])
def test_functions_off_the_allow_list_are_refused_on_every_path(api: TestClient, guards: RunGuards, sql: str,
                                                                 code: str) -> None:
    rest = api.post("/v1/databases/shop/execute", json={"sql": sql}, headers=KEY)
    assert (rest.status_code, rest.json()["code"]) == (403, code), rest.text
    assert "raw_sql" in rest.json()["detail"]
    tool = api.post("/v1/databases/shop/tools/readQuery", json={"sql": sql}, headers=KEY)
    assert (tool.status_code, tool.json()["code"]) == (403, code), tool.text
    with pytest.raises(GuardRefusal) as refused:
        guards.check_final(sql)
    assert refused.value.code == code


DE = auth("de-key")
SHADOW = ("WITH nations AS (SELECT unnest(range(0, 1000)) AS nation_id, 'Germany' AS nation_name) "
          "SELECT count(*) FROM orders")


@pytest.mark.parametrize("sql", [
    SHADOW,  # issue 13 item 2: the role's filter subquery joins `nations`; this CTE stood in for it
    "SELECT count(*) FROM orders WHERE 1 IN (WITH nations AS (SELECT 1 AS nation_id) SELECT 1)",  # nested WITH
    "SELECT count(*) FROM (WITH customers AS (SELECT 1 AS customer_id) SELECT * FROM customers) t",
    "WITH \"Nations\" AS (SELECT 1 AS nation_id) SELECT count(*) FROM orders",
])
@pytest.mark.parametrize("key", ["de-key", "shop-key"])
def test_a_cte_may_not_take_the_name_of_a_table_of_the_layer(api: TestClient, sql: str, key: str) -> None:
    r = api.post("/v1/databases/shop/execute", json={"sql": sql}, headers=auth(key))
    assert (r.status_code, r.json()["code"]) == (403, "raw_sql_refused"), r.text
    assert "rename the CTE" in r.json()["detail"]


def test_a_cte_of_another_scope_does_not_hide_a_table_outside_the_layer(api: TestClient) -> None:
    sql = "SELECT * FROM (WITH secret AS (SELECT 1 AS a) SELECT a FROM secret) q, secret"
    r = api.post("/v1/databases/shop/execute", json={"sql": sql}, headers=KEY)
    assert (r.status_code, r.json()["code"]) == (403, "raw_sql_refused"), r.text
    assert "'secret' is not a table of this database's semantic layer" in r.json()["detail"]
    later = "WITH a AS (SELECT * FROM secret), secret AS (SELECT 1 AS x) SELECT * FROM a"  # a later sibling
    assert api.post("/v1/databases/shop/execute", json={"sql": later}, headers=KEY).json()["code"] == "raw_sql_refused"


@pytest.mark.parametrize("sql", [
    "SELECT * FROM some_other_table",
    "SELECT * FROM other_schema.orders",  # a qualifier the layer does not use is another table
    "SELECT * FROM histogram(customers, customer_name)",  # issue 13 item 5
    "SELECT * FROM pragma_storage_info('customers')",
    "SELECT * FROM duckdb_views()",
])
@pytest.mark.parametrize("key", ["de-key", "shop-key"])
def test_only_the_layers_tables_and_allowed_table_functions(api: TestClient, sql: str, key: str) -> None:
    r = api.post("/v1/databases/shop/execute", json={"sql": sql}, headers=auth(key))
    assert r.status_code == 403 and r.json()["code"] in ("raw_sql_refused", "table_function_refused"), r.text


def test_own_ctes_defaults_and_allowed_table_functions_still_work(api: TestClient) -> None:
    for sql in ("WITH x AS (SELECT customer_id FROM customers) SELECT count(*) FROM x",
                "SELECT count(*) FROM main.orders", "SELECT count(*) FROM shop.main.orders",
                "SELECT count(*) FROM range(3)", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r "
                "WHERE n < 3) SELECT count(*) FROM r"):
        r = api.post("/v1/databases/shop/execute", json={"sql": sql}, headers=KEY)
        assert r.status_code == 200, (sql, r.text)
        if "range" not in sql:  # the role itself refuses table functions for row-filtered roles (engine/access.py)
            assert api.post("/v1/databases/shop/execute", json={"sql": sql}, headers=DE).status_code == 200, sql


def test_the_agent_refuses_a_seen_table_outside_the_layer(guards: RunGuards) -> None:
    guards.seen[("some_other_table",)] = "some_other_table"  # shown by an exploration tool
    with pytest.raises(GuardRefusal) as refused:
        guards.check_final("SELECT * FROM some_other_table")
    assert refused.value.code == "raw_sql_refused"
