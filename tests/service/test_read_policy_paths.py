"""One read policy (engine.readpolicy): the same refused SQL gets the same code on every raw-SQL path.

REST /execute, the read_query tool (REST tools route; MCP runs the same Explorer) and the agent's
final-SQL guard used to keep their own catalog lists and codes; a fix in one missed the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.guards import GuardRefusal, RunGuards
from engine import load_layers
from engine.readpolicy import policy_for
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
        tool = api.post("/v1/databases/shop/tools/read_query", json={"sql": sql}, headers=KEY)
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
    tool = api.post("/v1/databases/shop/tools/read_query", json={"sql": sql}, headers=KEY)
    assert (tool.status_code, tool.json()["code"]) == (403, code), tool.text
    with pytest.raises(GuardRefusal) as refused:
        guards.check_final(sql)
    assert refused.value.code == code
