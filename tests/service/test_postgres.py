"""The same API on the demo loaded into the local PostgreSQL server (skipped when it is unreachable)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from .conftest import auth
from .test_access import GERMAN_ORDERS

ADMIN, DE = auth("admin-key"), auth("de-key")
PG = "/v1/databases/shop_pg"
BY_STATUS = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}


@pytest.fixture(autouse=True)
def _needs_postgres(pg_available: bool) -> None:
    if not pg_available:
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")


def test_detail(client: TestClient) -> None:
    body = client.get(PG, headers=ADMIN).json()
    assert body["dialect"] == "postgres" and body["backend"] == "postgres"


def test_compile_preview_and_query_agree_with_duckdb(client: TestClient) -> None:
    pg = client.post(f"{PG}/compile", json={"smq": BY_STATUS}, headers=ADMIN).json()
    duck = client.post("/v1/databases/shop/compile", json={"smq": BY_STATUS}, headers=ADMIN).json()
    assert pg["dialect"] == "postgres" and pg["preview"]["rows"] == duck["preview"]["rows"]
    page = client.post(f"{PG}/query", json={"smq": BY_STATUS, "limit": 2, "offset": 1}, headers=ADMIN).json()
    assert page["rows"] == duck["preview"]["rows"][1:3] and page["truncated"] is True


def test_execute(client: TestClient) -> None:
    body = client.post(f"{PG}/execute", json={"sql": "SELECT COUNT(*) AS n FROM orders"}, headers=ADMIN).json()
    assert body["rows"] == [[5000]]
    r = client.post(f"{PG}/execute", json={"sql": "SELECT * FROM pg_catalog.pg_roles"}, headers=ADMIN)
    assert r.status_code == 403 and r.json()["code"] == "catalog_refused"


def test_role_applies_on_postgres_too(client: TestClient, duck: Any) -> None:
    german = duck(GERMAN_ORDERS)[0][0]
    q = client.post(f"{PG}/query", json={"smq": {"metrics": ["OrdersModel__orderCount"]}}, headers=DE).json()
    assert q["rows"] == [[german]]
    e = client.post(f"{PG}/execute", json={"sql": "SELECT COUNT(order_id) FROM orders"}, headers=DE).json()
    assert e["rows"] == [[german]]
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]}
    preview = client.post(f"{PG}/compile", json={"smq": smq}, headers=DE).json()["preview"]["rows"]
    assert preview == [["Germany", german]]
    r = client.post(f"{PG}/execute", json={"sql": "SELECT customer_name FROM customers"}, headers=DE)
    assert r.status_code == 403 and r.json()["code"] == "raw_sql_refused"  # hidden from the role


def test_database_errors_are_problems(client: TestClient) -> None:
    r = client.post(f"{PG}/execute", json={"sql": "SELECT nope FROM orders"}, headers=ADMIN)
    assert r.status_code == 400 and r.json()["code"] == "execution_failed" and "nope" in r.json()["detail"]
