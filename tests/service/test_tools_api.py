"""REST for the exploration tools: POST /v1/databases/{db}/tools/{name}, under the same keys and roles."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from service.app import create_app
from service.routes import tools
from service.settings import Settings
from tests.agent.sandbox_support import need_sandbox
from tests.service.conftest import auth


def with_tools(app: FastAPI) -> FastAPI:
    if not any(getattr(r, "path", "") == "/v1/databases/{db}/tools/{name}" for r in app.routes):
        app.include_router(tools.router)  # until create_app wires it
    return app


@pytest.fixture(scope="module")
def api(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    app = with_tools(create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, query_timeout_s=20)))
    with TestClient(app) as c:
        yield c


def test_describe_and_values(api):
    r = api.post("/v1/databases/shop/tools/describeTable", json={"table": "orders"}, headers=auth("shop-key"))
    assert r.status_code == 200 and r.json()["model"] == "OrdersModel"
    r = api.post("/v1/databases/shop/tools/getColValues", json={"table": "orders", "column": "channel"}, headers=auth("shop-key"))
    assert [v["value"] for v in r.json()["values"]] == ["web", "mobile", "store"]
    r = api.post("/v1/databases/shop/tools/listTables", headers=auth("shop-key"))  # no body at all
    assert r.status_code == 200 and any(t["table"] == "orders" for t in r.json()["tables"])
    r = api.post("/v1/databases/shop/tools/listModels", json={"question": "payments by method"}, headers=auth("shop-key"))
    assert {m["name"]: m["directive"] for m in r.json()["models"]}["PaymentsModel"] == "relevant"


def test_listing(api):
    r = api.get("/v1/databases/shop/tools", headers=auth("shop-key"))
    names = [t["name"] for t in r.json()["tools"]]
    assert "describeTable" in names and "python" not in names


def test_role_applies(api):
    r = api.post("/v1/databases/shop/tools/describeTable", json={"table": "customers"}, headers=auth("de-key"))
    assert "customer_name" not in {c["name"] for c in r.json()["columns"]}
    r = api.post("/v1/databases/shop/tools/getColValues", json={"table": "nations", "column": "nation_name"}, headers=auth("de-key"))
    assert [v["value"] for v in r.json()["values"]] == ["Germany"]
    r = api.post("/v1/databases/shop/tools/getColValues", json={"table": "customers", "column": "customer_name"},
                 headers=auth("de-key"))
    assert r.status_code == 400 and r.json()["code"] == "unknown_column"


@pytest.mark.parametrize("key, db, status, code", [
    (None, "shop", 401, "unauthorized"),
    ("wrong-key", "shop", 401, "unauthorized"),
    ("other-key", "shop", 403, "database_forbidden"),
    ("ghost-key", "shop", 403, "role_not_defined"),
    ("shop-key", "nope", 403, "database_forbidden"),
    ("all-key", "nope", 404, "unknown_database"),
])
def test_auth(api, key, db, status, code):
    r = api.post(f"/v1/databases/{db}/tools/listTables", json={}, headers=auth(key) if key else {})
    assert r.status_code == status and r.json()["code"] == code
    assert r.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize("name, body, status, code", [
    ("describeTable", {"table": "nope"}, 400, "unknown_table"),
    ("describeTable", {}, 400, "tool_error"),
    ("readQuery", {"sql": "SELECT * FROM information_schema.tables"}, 403, "catalog_refused"),
    ("readQuery", {"sql": "DROP TABLE orders"}, 400, "not_read_only"),
    ("python", {"code": "print(1)"}, 403, "tool_disabled"),
    ("execute", {"sql": "SELECT 1"}, 404, "unknown_tool"),
    ("bogus", {}, 404, "unknown_tool"),
])
def test_errors_are_problems(api, name, body, status, code):
    r = api.post(f"/v1/databases/shop/tools/{name}", json=body, headers=auth("shop-key"))
    assert r.status_code == status and r.json()["code"] == code, r.text


def test_python_when_enabled(models_dir, keys_file):
    need_sandbox()
    app = with_tools(create_app(Settings(models_dir=models_dir, api_keys_file=keys_file)))
    app.state.python_tool = True
    with TestClient(app) as c:
        r = c.post("/v1/databases/shop/tools/python", json={"code": "print(2 ** 10)"}, headers=auth("shop-key"))
        assert r.status_code == 200 and r.json()["stdout"] == "1024\n"



STRUCTURED_SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
                  "filters": [{"or": [{"member": "OrdersModel__channel", "operator": "equals", "values": ["web"]},
                                      {"member": "OrdersModel__channel", "operator": "equals", "values": ["store"]}]},
                              "OrdersModel__orderCount > 0"],
                  "order_by": ["OrdersModel__channel"]}


def test_the_convert_tool_declares_structured_filters_as_rest_compile_takes_them(api):
    from agent.tool_registry import specs

    (spec,) = specs(["convertSmqToSql"])
    items = spec.parameters["properties"]["smq"]["properties"]["filters"]["items"]["anyOf"]
    assert {"type": "string", "minLength": 1} in items
    condition = next(i for i in items if "member" in i.get("properties", {}))
    assert condition["required"] == ["member", "operator"] and "inDateRange" in condition["properties"]["operator"]["enum"]
    # the same SMQ on the REST route the tool stands for (PAPER_ROUTES): the filters reach the engine
    r = api.post("/v1/databases/shop/compile", json={"smq": STRUCTURED_SMQ}, headers=auth("shop-key"))
    assert r.status_code == 200, r.text
    assert [row[0] for row in r.json()["preview"]["rows"]] == ["store", "web"]
    r = api.post("/v1/databases/shop/tools/convertSmqToSql", json={"smq": STRUCTURED_SMQ}, headers=auth("shop-key"))
    assert r.status_code == 404 and "/compile" in r.json()["detail"]


def test_one_naming_style_and_the_old_names_still_answer(api):
    """Every REST and MCP tool is camelCase (#31); the exploration tools' old snake_case names are aliases."""
    from agent.tool_registry import EXPLORE_TOOLS, PAPER_TOOLS, canonical

    assert all("_" not in name for name in PAPER_TOOLS + EXPLORE_TOOLS)
    assert canonical("read_query") == "readQuery" and canonical("get_model_data_elements") == "getModelDataElements"
    old = api.post("/v1/databases/shop/tools/describe_table", json={"table": "orders"}, headers=auth("shop-key"))
    new = api.post("/v1/databases/shop/tools/describeTable", json={"table": "orders"}, headers=auth("shop-key"))
    assert old.status_code == new.status_code == 200 and old.json() == new.json()


def test_get_model_data_elements_takes_the_same_optional_arguments_as_rest() -> None:
    from agent.tool_registry import GET_ELEMENTS, TOOLS

    schema = TOOLS[GET_ELEMENTS].schema()
    assert "models" in schema["properties"] and "models" not in schema.get("required", [])
    assert TOOLS[GET_ELEMENTS].parse({}).models is None
