"""The OpenAPI document declares the SMQ's schema (structured filters included) where /query and /compile take it,
while the engine, not the schema, still judges an SMQ (its 400s name the field and the nearest name)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from .conftest import auth


def test_query_and_compile_declare_the_smq_schema(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for request in ("QueryRequest", "CompileRequest"):
        smq = schemas[request]["properties"]["smq"]
        assert set(smq["properties"]) == {"metrics", "group_by", "filters", "order_by", "limit", "saved_query"}
        forms = smq["properties"]["filters"]["anyOf"][0]["items"]["anyOf"]
        assert forms[0] == {"type": "string", "minLength": 1}
        assert "inDateRange" in forms[1]["properties"]["operator"]["enum"]
        assert {g["title"] for g in forms[2]["anyOf"]} == {"FilterAnd", "FilterOr"}
    paths = client.get("/openapi.json").json()["paths"]
    assert not any(p.startswith("/cubejs-api") for p in paths), "Cube's API is Cube's contract (docs/cube.md)"


def test_a_structured_filter_runs_through_query(client: TestClient) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "filters": [
        {"member": "OrdersModel__status", "operator": "equals", "values": ["shipped"]}]}
    text = {"metrics": ["OrdersModel__orderCount"], "filters": ["OrdersModel__status = 'shipped'"]}
    structured = client.post("/v1/databases/shop/query", json={"smq": smq}, headers=auth("shop-key")).json()
    assert structured["rows"] == client.post("/v1/databases/shop/query", json={"smq": text}, headers=auth("shop-key")).json()["rows"]
    bad = client.post("/v1/databases/shop/query", headers=auth("shop-key"), json={"smq": {
        "metrics": ["OrdersModel__orderCount"], "filters": [{"member": "OrdersModel__stat", "operator": "set"}]}})
    assert bad.status_code == 400 and bad.json()["errors"][0]["location"]["field"] == "filters[0].member"
