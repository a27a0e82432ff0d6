"""Saved queries run by name over REST (/query, /compile), Cube (/meta views, /load) and the agent tools; a role
applies to them as to the SMQ written out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth, copy_layer

SAVED = """saved_queries:
  - name: orders_by_status
    label: Orders by status
    description: Order count per status
    query:
      metrics: [OrdersModel__orderCount]
      group_by: [OrdersModel__status]
      order_by: [OrdersModel__status]
  - name: orders_by_country
    query:
      metrics: [OrdersModel__orderCount]
      group_by: [NationsModel__country]
  - name: orders_by_customer
    query:
      metrics: [OrdersModel__orderCount]
      group_by: [CustomersModel__customerName]
      limit: 3
"""
SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"], "order_by": ["OrdersModel__status"]}


@pytest.fixture(scope="module")
def saved_client(tmp_path_factory: pytest.TempPathFactory, served_duckdb: Path, keys_file: Path) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("saved_models")
    layer = copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(served_duckdb)})
    (layer / "saved_queries.yml").write_text(SAVED, encoding="utf-8")
    app = create_app(Settings(models_dir=root, api_keys_file=keys_file, max_rows=1000, query_timeout_s=20))
    with TestClient(app) as c:
        yield c


def _query(client: TestClient, smq: dict, key: str = "shop-key") -> dict:
    response = client.post("/v1/databases/shop/query", json={"smq": smq}, headers=auth(key))
    assert response.status_code == 200, response.text
    return response.json()


def test_a_saved_query_answers_as_the_smq_it_names(saved_client: TestClient) -> None:
    assert _query(saved_client, {"saved_query": "orders_by_status"})["rows"] == _query(saved_client, SMQ)["rows"]
    over = _query(saved_client, {"saved_query": "orders_by_status", "limit": 2, "order_by": ["-OrdersModel__orderCount"],
                                 "filters": ["OrdersModel__status <> 'cancelled'"]})
    expected = _query(saved_client, {**SMQ, "limit": 2, "order_by": ["-OrdersModel__orderCount"],
                                     "filters": ["OrdersModel__status <> 'cancelled'"]})
    assert over["rows"] == expected["rows"] and len(over["rows"]) == 2
    compiled = saved_client.post("/v1/databases/shop/compile", json={"smq": {"saved_query": "orders_by_status"}, "preview": False},
                                 headers=auth("shop-key")).json()
    assert compiled["sql"] == saved_client.post("/v1/databases/shop/compile", json={"smq": SMQ, "preview": False},
                                                headers=auth("shop-key")).json()["sql"]


def test_an_unknown_saved_query_names_the_nearest(saved_client: TestClient) -> None:
    response = saved_client.post("/v1/databases/shop/query", json={"smq": {"saved_query": "orders_by_statu"}}, headers=auth("shop-key"))
    assert response.status_code == 400
    assert "unknown saved query 'orders_by_statu'" in response.text and "orders_by_status" in response.json()["errors"][0]["suggestions"]
    fixed = saved_client.post("/v1/databases/shop/query", json={"smq": {"saved_query": "orders_by_status", "metrics": ["x"]}},
                              headers=auth("shop-key"))
    assert fixed.status_code == 400 and "cannot be given with 'saved_query'" in fixed.text


def test_a_role_applies_to_a_saved_query(saved_client: TestClient) -> None:
    by_role = _query(saved_client, {"saved_query": "orders_by_country"}, "de-key")["rows"]
    assert {r[0] for r in by_role} == {"Germany"}  # de_analyst's row filter
    assert by_role == _query(saved_client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]}, "de-key")["rows"]
    hidden = saved_client.post("/v1/databases/shop/query", json={"smq": {"saved_query": "orders_by_customer"}}, headers=auth("de-key"))
    written = saved_client.post("/v1/databases/shop/query", headers=auth("de-key"), json={"smq": {
        "metrics": ["OrdersModel__orderCount"], "group_by": ["CustomersModel__customerName"], "limit": 3}})
    assert hidden.status_code == written.status_code == 400 and hidden.json()["code"] == written.json()["code"]
    listed = saved_client.get("/v1/databases/shop", headers=auth("de-key")).json()["saved_queries"]
    assert [q["name"] for q in listed] == ["orders_by_status", "orders_by_country"]  # not the one it cannot run


def test_listings_show_the_saved_queries(saved_client: TestClient) -> None:
    detail = saved_client.get("/v1/databases/shop", headers=auth("shop-key")).json()
    assert [q["name"] for q in detail["saved_queries"]] == ["orders_by_status", "orders_by_country", "orders_by_customer"]
    assert detail["saved_queries"][0]["label"] == "Orders by status"
    elements = saved_client.post("/v1/databases/shop/elements", json={}, headers=auth("shop-key")).json()
    assert elements["saved_queries"][1]["query"]["group_by"] == ["NationsModel__country"]


def test_cube_lists_saved_queries_as_views_and_loads_one(saved_client: TestClient) -> None:
    meta = saved_client.get("/cubejs-api/v1/meta", headers=auth("shop-key")).json()
    view = next(c for c in meta["cubes"] if c["name"] == "orders_by_status")
    assert view["type"] == "view" and [m["name"] for m in view["measures"]] == ["orders_by_status.OrdersModel__orderCount"]
    loaded = saved_client.post("/cubejs-api/v1/load", headers=auth("shop-key"), json={"query": {
        "measures": ["orders_by_status.OrdersModel__orderCount"], "dimensions": ["orders_by_status.OrdersModel__status"]}}).json()
    expected = _query(saved_client, SMQ)["rows"]
    assert [(r["orders_by_status.OrdersModel__status"], int(r["orders_by_status.OrdersModel__orderCount"]))
            for r in loaded["data"]] == [tuple(r) for r in expected]
    bad = saved_client.post("/cubejs-api/v1/load", headers=auth("shop-key"),
                            json={"query": {"measures": ["orders_by_status.nope"]}})
    assert bad.status_code == 400 and "not a member of the saved-query view" in bad.json()["error"]


def test_the_agent_tool_runs_a_saved_query(saved_client: TestClient) -> None:
    listed = saved_client.post("/v1/databases/shop/tools/listModels", json={}, headers=auth("shop-key")).json()
    assert [q["name"] for q in listed["saved_queries"]] == ["orders_by_status", "orders_by_country", "orders_by_customer"]


def test_the_agents_compile_tool_takes_a_saved_query(saved_client: TestClient) -> None:
    """MCP's convertSmqToSql compiles through Layer.compile_expression, which expands the name."""
    from engine import load_layer

    layer = load_layer(Path(saved_client.app.state.smq.settings.models_dir) / "shop")  # type: ignore[attr-defined]
    assert layer.compile({"saved_query": "orders_by_status"}) == layer.compile(SMQ)
