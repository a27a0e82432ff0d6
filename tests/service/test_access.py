"""Access (docs/security.md; docs/semantic-layer.md, access roles): keys see only their databases, and a role applies on every path."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from .conftest import auth

ADMIN, DE = auth("admin-key"), auth("de-key")
GERMAN_ORDERS = """SELECT COUNT(*) FROM orders o JOIN customers c ON UPPER(TRIM(o.customer_ref)) = c.customer_code
                   JOIN nations n ON c.nation_id = n.nation_id WHERE n.nation_name = 'Germany'"""
GERMAN_CUSTOMERS = "SELECT COUNT(*) FROM customers c JOIN nations n ON c.nation_id = n.nation_id WHERE n.nation_name = 'Germany'"
SMQ = {"metrics": ["OrdersModel__orderCount"]}


def every_endpoint(db: str) -> list[tuple[str, str, Any]]:
    base = f"/v1/databases/{db}"
    return [("GET", base, None), ("POST", f"{base}/elements", {}), ("POST", f"{base}/compile", {"smq": SMQ}),
            ("POST", f"{base}/query", {"smq": SMQ}), ("POST", f"{base}/execute", {"sql": "SELECT 1"})]


@pytest.mark.parametrize(("key", "own", "foreign"), [("shop-key", "shop", "other"), ("other-key", "other", "shop")])
def test_a_key_for_one_database_cannot_touch_another(client: TestClient, key: str, own: str, foreign: str) -> None:
    for method, path, body in every_endpoint(foreign):
        r = client.request(method, path, json=body, headers=auth(key))
        assert r.status_code == 403 and r.json()["code"] == "database_forbidden", (path, r.text)
    for method, path, body in every_endpoint(own):
        assert client.request(method, path, json=body, headers=auth(key)).status_code == 200, path
    listed = [d["name"] for d in client.get("/v1/databases", headers=auth(key)).json()["databases"]]
    assert listed == [own]


def test_403_comes_before_404_so_keys_learn_nothing(client: TestClient) -> None:
    r = client.get("/v1/databases/does_not_exist", headers=auth("shop-key"))
    assert r.status_code == 403


def test_a_role_the_database_does_not_define_locks_the_key_out(client: TestClient) -> None:
    r = client.get("/v1/databases/shop", headers=auth("ghost-key"))
    assert r.status_code == 403 and "ghost" in r.json()["detail"]
    assert client.get("/v1/databases", headers=auth("ghost-key")).json()["databases"] == []
    assert client.get("/v1/ready", headers=auth("ghost-key")).json()["databases"] == []


def test_ready_shows_only_the_keys_databases(client: TestClient) -> None:
    names = [d["name"] for d in client.get("/v1/ready", headers=auth("shop-key")).json()["databases"]]
    assert names == ["shop"]


def test_role_is_reported(client: TestClient) -> None:
    assert client.get("/v1/databases/shop", headers=DE).json()["role"] == "de_analyst"


def test_row_filter_on_query(client: TestClient, duck: Any) -> None:
    total = client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=ADMIN).json()["rows"][0][0]
    seen = client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=DE).json()["rows"][0][0]
    assert seen == duck(GERMAN_ORDERS)[0][0] < total
    by_country = {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]}
    rows = client.post("/v1/databases/shop/query", json={"smq": by_country}, headers=DE).json()["rows"]
    assert rows == [["Germany", seen]]
    others = {**by_country, "filters": ["NationsModel__country <> 'Germany'"]}
    page = client.post("/v1/databases/shop/query", json={"smq": others}, headers=DE).json()
    assert page["rows"] == []


def test_row_filter_on_compile_preview(client: TestClient, duck: Any) -> None:
    smq = {"metrics": ["CustomersModel__customerCount"], "group_by": ["CustomersModel__segment"]}
    admin = client.post("/v1/databases/shop/compile", json={"smq": smq}, headers=ADMIN).json()
    de = client.post("/v1/databases/shop/compile", json={"smq": smq}, headers=DE).json()
    # the role's filter is in its SQL, its value named, not spelled out (tests/service/test_role_sql_shown.py)
    assert de["sql"] != admin["sql"] and "nation_name = $de_analyst_filter1_value1" in de["sql"] and "Germany" not in de["sql"]
    assert sum(n for _, n in de["preview"]["rows"]) == duck(GERMAN_CUSTOMERS)[0][0]
    assert sum(n for _, n in admin["preview"]["rows"]) == duck("SELECT COUNT(*) FROM customers")[0][0]


@pytest.mark.parametrize(("sql", "truth"), [
    ("SELECT COUNT(*) FROM orders", GERMAN_ORDERS),
    ("SELECT COUNT(*) FROM main.orders AS o", GERMAN_ORDERS),
    ("WITH x AS (SELECT customer_id FROM customers) SELECT COUNT(x.customer_id) FROM x", GERMAN_CUSTOMERS),
    ("SELECT COUNT(t.customer_id) FROM (SELECT customer_id FROM customers UNION ALL "
     "SELECT customer_id FROM customers WHERE 1 = 0) t", GERMAN_CUSTOMERS),
])
def test_row_filter_on_execute(client: TestClient, duck: Any, sql: str, truth: str) -> None:
    r = client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=DE)
    assert r.status_code == 200, r.text
    assert r.json()["rows"][0][0] == duck(truth)[0][0]
    assert r.json()["sql"] != sql  # the restricted tables were replaced by filtered subqueries


def test_count_star_over_a_table_with_hidden_columns(client: TestClient, duck: Any) -> None:
    r = client.post("/v1/databases/shop/execute", json={"sql": "SELECT COUNT(*) FROM customers"}, headers=DE)
    assert r.status_code == 200 and r.json()["rows"][0][0] == duck(GERMAN_CUSTOMERS)[0][0]


def test_row_filter_on_execute_never_shows_another_country(client: TestClient) -> None:
    sql = "SELECT DISTINCT n.nation_name FROM customers c JOIN nations n ON c.nation_id = n.nation_id"
    assert client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=DE).json()["rows"] == [["Germany"]]
    everyone = client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=ADMIN).json()["rows"]
    assert len(everyone) > 1


def test_hidden_elements_are_absent_and_refused(client: TestClient) -> None:
    model = client.post("/v1/databases/shop/elements", json={"models": ["CustomersModel"]}, headers=DE).json()["models"][0]
    names = {d["name"] for d in model["dimensions"]}
    assert "CustomersModel__customerName" not in names and "CustomersModel__segment" in names
    admin = client.post("/v1/databases/shop/elements", json={"models": ["CustomersModel"]}, headers=ADMIN).json()
    assert "CustomersModel__customerName" in {d["name"] for d in admin["models"][0]["dimensions"]}
    smq = {"metrics": ["CustomersModel__customerCount"], "group_by": ["CustomersModel__customerName"]}
    for endpoint in ("compile", "query"):
        r = client.post(f"/v1/databases/shop/{endpoint}", json={"smq": smq}, headers=DE)
        assert r.status_code == 400 and r.json()["code"] == "unknown_element"
    # raw SQL: the role's view of the table has no hidden column: naming one is refused, * omits it
    for sql in ("SELECT customer_name FROM customers", "SELECT c.customer_name FROM customers c WHERE c.customer_id = 1"):
        r = client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=DE)
        assert r.status_code == 403 and r.json()["code"] == "raw_sql_refused", sql
        assert "customer_name" in r.json()["detail"]
    for sql in ("SELECT * FROM customers", "SELECT c.* FROM customers c"):
        body = client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=DE).json()
        assert "customer_name" not in body["columns"] and "segment" in body["columns"], sql
        assert body["row_count"] > 0


def test_role_refuses_tables_outside_the_layer(client: TestClient) -> None:
    r = client.post("/v1/databases/shop/execute", json={"sql": "SELECT * FROM some_other_table"}, headers=DE)
    assert r.status_code == 403 and r.json()["code"] == "raw_sql_refused"
