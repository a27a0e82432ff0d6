"""Apache Superset 6.1.0 (from PyPI, in its own venv made by .ci/run) against the live listener.

Superset reaches the SQL API as any PostgreSQL database, through psycopg2 and SQLAlchemy: the database is
added by its SQLAlchemy URI (the API key as the password), a model's dataset lists its columns with their
types, and a chart's data query returns the numbers `/query` returns, under the key's role.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT
from tests.service.pgwire_support import ADMIN_KEY, DE_KEY, PgService, assert_same_rows, free_port, pg_service, rest_rows  # noqa: F401

VENV = Path(os.environ.get("SMQ_SUPERSET_VENV", ROOT / ".superset-venv"))


@pytest.fixture(scope="module")
def superset(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    command = VENV / "bin" / "superset"
    if not command.exists():
        if os.environ.get("CI"):
            pytest.fail(f"Superset is not installed in {VENV} (.ci/run makes that venv)")
        pytest.skip(f"Superset is not installed in {VENV} (see .ci/run)")
    home = tmp_path_factory.mktemp("superset")
    (home / "superset_config.py").write_text(
        f"SECRET_KEY = {secrets.token_urlsafe(32)!r}\n"
        f"SQLALCHEMY_DATABASE_URI = 'sqlite:///{home / 'superset.db'}'\n"
        "WTF_CSRF_ENABLED = False\nTALISMAN_ENABLED = False\nPREVENT_UNSAFE_DB_CONNECTIONS = False\n")
    env = {**os.environ, "SUPERSET_CONFIG_PATH": str(home / "superset_config.py"), "SUPERSET_HOME": str(home),
           "FLASK_APP": "superset"}
    for step in (["db", "upgrade"], ["fab", "create-admin", "--username", "admin", "--firstname", "a", "--lastname",
                                      "b", "--email", "admin@example.com", "--password", "admin"], ["init"]):
        done = subprocess.run([str(command), *step], env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, (step, done.stderr[-2000:])
    port = free_port()
    server = subprocess.Popen([str(command), "run", "-h", "127.0.0.1", "-p", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "Superset did not start"
            time.sleep(1)
        client = httpx.Client(base_url=base, timeout=120)
        login = client.post("/api/v1/security/login", json={"username": "admin", "password": "admin", "provider": "db"})
        assert login.status_code == 200, login.text
        client.headers["Authorization"] = f"Bearer {login.json()['access_token']}"
        yield client
        client.close()
    finally:
        server.terminate()
        server.wait(timeout=60)


def _database(superset: httpx.Client, service: PgService, key: str, name: str) -> int:
    uri = service.url(key, driver="postgresql+psycopg2")
    tested = superset.post("/api/v1/database/test_connection/", json={"sqlalchemy_uri": uri, "database_name": name})
    assert tested.status_code == 200, tested.text
    created = superset.post("/api/v1/database/", json={"sqlalchemy_uri": uri, "database_name": name})
    assert created.status_code == 201, created.text
    return int(created.json()["id"])


def _dataset(superset: httpx.Client, database: int, table: str) -> tuple[int, dict[str, str]]:
    created = superset.post("/api/v1/dataset/", json={"database": database, "schema": "public", "table_name": table})
    assert created.status_code == 201, created.text
    dataset = int(created.json()["id"])
    columns = superset.get(f"/api/v1/dataset/{dataset}").json()["result"]["columns"]
    return dataset, {c["column_name"]: c["type"] for c in columns}


def _chart(superset: httpx.Client, dataset: int, query: dict[str, Any]) -> dict[str, Any]:
    body = {"datasource": {"id": dataset, "type": "table"}, "queries": [query], "result_format": "json",
            "result_type": "full"}
    answer = superset.post("/api/v1/chart/data", json=body)
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"][0]
    assert result["status"] == "success", result
    return result


def test_superset_lists_charts_and_equals_query(superset: httpx.Client, pg_service: PgService, client: object) -> None:
    database = _database(superset, pg_service, ADMIN_KEY, "smq shop")
    tables = superset.get(f"/api/v1/database/{database}/tables/?q=(schema_name:public)").json()["result"]
    assert {t["value"] for t in tables} >= {"OrdersModel", "OrderItemsModel", "CustomersModel"}
    dataset, columns = _dataset(superset, database, "OrdersModel")
    assert columns["channel"] == "TEXT" and columns["orderDate"] == "DATE" and columns["orderCount"] == "BIGINT"
    assert "NationsModel__country" in columns and "averageOrderValue" in columns

    grouped = _chart(superset, dataset, {
        "columns": ["channel"], "metrics": [{"expressionType": "SQL", "sqlExpression": 'MEASURE("orderCount")',
                                             "label": "orders"}, "count"],
        "filters": [{"col": "status", "op": "IN", "val": ["shipped", "delivered"]}],
        "orderby": [["orders", False]], "row_limit": 100})
    expected = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
                                  "filters": ["OrdersModel__status IN ('shipped', 'delivered')"],
                                  "order_by": ["-OrdersModel__orderCount"]})["rows"]
    assert_same_rows([[r["channel"], r["orders"]] for r in grouped["data"]], expected)
    assert [r["count"] for r in grouped["data"]] == [r["orders"] for r in grouped["data"]]  # COUNT(*): the count measure

    monthly = _chart(superset, dataset, {
        "columns": [{"timeGrain": "P1M", "columnType": "BASE_AXIS", "sqlExpression": "orderDate", "label": "orderDate",
                     "expressionType": "SQL"}],
        "metrics": [{"expressionType": "SQL", "sqlExpression": 'MEASURE("orderCount")', "label": "orders"}],
        "filters": [{"col": "orderDate", "op": "TEMPORAL_RANGE", "val": "2024-01-01 : 2024-07-01"}],
        "orderby": [["orders", False]], "row_limit": 100})
    expected = rest_rows(client, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__month"],
                                  "filters": ["OrdersModel__orderDate >= '2024-01-01'",
                                              "OrdersModel__orderDate < '2024-07-01'"],
                                  "order_by": ["-OrdersModel__orderCount"]})["rows"]
    got = [[time.strftime("%Y-%m-%d", time.gmtime(r["orderDate"] / 1000)), r["orders"]] for r in monthly["data"]]
    assert_same_rows(got, expected)

    items, _ = _dataset(superset, database, "OrderItemsModel")
    revenue = _chart(superset, items, {
        "columns": ["ProductsModel__category"],
        "metrics": [{"expressionType": "SIMPLE", "column": {"column_name": "revenue"}, "aggregate": "SUM",
                     "label": "revenue"}], "orderby": [["revenue", False]], "row_limit": 10})
    expected = rest_rows(client, {"metrics": ["OrderItemsModel__revenue"], "group_by": ["ProductsModel__category"],
                                  "order_by": ["-OrderItemsModel__revenue"], "limit": 10})["rows"]
    assert_same_rows([[r["ProductsModel__category"], r["revenue"]] for r in revenue["data"]], expected)


def test_superset_under_a_role(superset: httpx.Client, pg_service: PgService, client: object) -> None:
    database = _database(superset, pg_service, DE_KEY, "smq shop de")
    # (Superset's SQLite metadata keeps a table name once across databases: another model than above)
    dataset, columns = _dataset(superset, database, "CustomersModel")
    assert "customerName" not in columns and "segment" in columns
    chart = _chart(superset, dataset, {"columns": ["NationsModel__country"], "metrics": ["count"], "row_limit": 100})
    expected = rest_rows(client, {"metrics": ["CustomersModel__customerCount"], "group_by": ["NationsModel__country"]},
                         key=DE_KEY)["rows"]
    assert_same_rows([[r["NationsModel__country"], r["count"]] for r in chart["data"]], expected)
    assert [r["NationsModel__country"] for r in chart["data"]] == ["Germany"]
