"""The error contract: every failure is RFC 9457 problem+json with a stable code, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine import Layer
from service.app import create_app
from service.errors import PROBLEM_TYPE_BASE
from service.settings import Settings

from .conftest import auth

PROBLEM_KEYS = {"type", "title", "status", "detail", "code", "errors", "instance"}
ITEM_KEYS = {"code", "message", "location", "suggestions"}
SMQ = {"metrics": ["OrdersModel__orderCount"]}
SHOP = "/v1/databases/shop"

# (id, method, path, key, json body, status, code)
CASES: list[tuple[str, str, str, str | None, Any, int, str]] = [
    ("no key", "GET", "/v1/databases", None, None, 401, "unauthorized"),
    ("wrong key", "POST", f"{SHOP}/compile", "nope", {"smq": SMQ}, 401, "unauthorized"),
    ("wrong key on ready", "GET", "/v1/ready", "nope", None, 401, "unauthorized"),
    ("database not granted", "POST", "/v1/databases/other/query", "shop-key", {"smq": SMQ}, 403, "database_forbidden"),
    ("role not defined", "POST", f"{SHOP}/elements", "ghost-key", {}, 403, "role_not_defined"),
    ("not an admin", "POST", "/v1/reload", "shop-key", None, 403, "admin_required"),
    ("table outside the role's layer", "POST", f"{SHOP}/execute", "de-key", {"sql": "SELECT * FROM elsewhere"}, 403,
     "raw_sql_refused"),
    ("system catalog", "POST", f"{SHOP}/execute", "admin-key", {"sql": "SELECT * FROM information_schema.tables"}, 403,
     "catalog_refused"),
    ("unknown database", "GET", "/v1/databases/shpo", "admin-key", None, 404, "unknown_database"),
    ("unknown route", "GET", "/v1/nothing", "admin-key", None, 404, "not_found"),
    ("wrong method", "GET", "/v1/reload", "admin-key", None, 405, "method_not_allowed"),
    ("unknown element", "POST", f"{SHOP}/compile", "admin-key", {"smq": {"metrics": ["OrdersModel__ordrCount"]}}, 400,
     "unknown_element"),
    ("unknown model", "POST", f"{SHOP}/elements", "admin-key", {"models": ["OrderModel"]}, 400, "unknown_model"),
    ("bad filter", "POST", f"{SHOP}/query", "admin-key", {"smq": {**SMQ, "filters": ["(SELECT 1) = 1"]}}, 400, None),
    ("unsupported dialect", "POST", f"{SHOP}/compile", "admin-key", {"smq": SMQ, "dialect": "cobol"}, 400,
     "unsupported_dialect"),
    ("sql syntax", "POST", f"{SHOP}/execute", "admin-key", {"sql": "SELECT FROM WHERE"}, 400, "sql_syntax"),
    ("write", "POST", f"{SHOP}/execute", "admin-key", {"sql": "DELETE FROM orders"}, 400, "not_read_only"),
    ("two statements", "POST", f"{SHOP}/execute", "admin-key", {"sql": "SELECT 1; SELECT 2"}, 400, "not_read_only"),
    ("database error", "POST", f"{SHOP}/execute", "admin-key", {"sql": "SELECT no_such_column FROM orders"}, 400,
     "execution_failed"),
    ("model as table", "POST", f"{SHOP}/execute", "admin-key", {"sql": "SELECT * FROM OrdersModel"}, 400, "not_a_table"),
    ("missing field", "POST", f"{SHOP}/compile", "admin-key", {}, 422, "invalid_request"),
    ("unknown field", "POST", f"{SHOP}/query", "admin-key", {"smq": SMQ, "limt": 5}, 422, "invalid_request"),
    ("wrong type", "POST", f"{SHOP}/query", "admin-key", {"smq": SMQ, "limit": -1}, 422, "invalid_request"),
    ("not json", "POST", f"{SHOP}/execute", "admin-key", "SELECT 1", 422, "invalid_request"),
    ("backend down", "POST", "/v1/databases/nofile/query", "admin-key", {"smq": SMQ}, 503, "backend_unavailable"),
    ("layer never loaded", "POST", "/v1/databases/broken/compile", "admin-key", {"smq": SMQ}, 503, "database_invalid"),
]


def assert_problem(r: Any, status: int, code: str | None, path: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert PROBLEM_KEYS <= set(body) and set(body) - PROBLEM_KEYS <= {"error_id"}
    if code is not None:
        assert body["code"] == code
    assert body["type"] == PROBLEM_TYPE_BASE + body["code"]
    assert body["status"] == status and body["instance"] == path
    assert isinstance(body["title"], str) and body["title"] and isinstance(body["detail"], str) and body["detail"]
    assert body["errors"], "at least one error item"
    for item in body["errors"]:
        assert set(item) == ITEM_KEYS
        assert isinstance(item["suggestions"], list) and set(item["location"]) <= {"file", "line", "column", "field"}
    assert "Traceback" not in r.text and 'File "' not in r.text
    return body


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_problem_shape(client: TestClient, case: tuple) -> None:
    _, method, path, key, body, status, code = case
    headers = auth(key) if key else {}
    if isinstance(body, str):
        r = client.request(method, path, content=body, headers={**headers, "content-type": "application/json"})
    else:
        r = client.request(method, path, json=body, headers=headers)
    assert_problem(r, status, code, path)


def test_401_asks_for_a_bearer_key(client: TestClient) -> None:
    r = client.get("/v1/databases", headers={"Authorization": "Basic dXNlcjpwdw=="})
    assert_problem(r, 401, "unauthorized", "/v1/databases")
    assert r.headers["www-authenticate"].startswith("Bearer")


def test_bad_smq_names_the_field_and_suggests(client: TestClient) -> None:
    r = client.post(f"{SHOP}/compile", json={"smq": {"metrics": ["OrdersModel__orderCount", "OrdersModel__ordrCount"]}},
                    headers=auth("admin-key"))
    (item,) = assert_problem(r, 400, "unknown_element", f"{SHOP}/compile")["errors"]
    assert item["location"] == {"field": "metrics[1]"} and item["suggestions"][0] == "OrdersModel__orderCount"


def test_validation_errors_name_every_field(client: TestClient) -> None:
    r = client.post(f"{SHOP}/query", json={"smq": "x", "offset": -1}, headers=auth("admin-key"))
    fields = {e["location"]["field"] for e in assert_problem(r, 422, "invalid_request", f"{SHOP}/query")["errors"]}
    assert fields == {"smq", "offset"}


def test_unknown_database_suggests_only_visible_databases(client: TestClient) -> None:
    r = client.get("/v1/databases/othr", headers=auth("admin-key"))
    assert "other" in assert_problem(r, 404, "unknown_database", "/v1/databases/othr")["errors"][0]["suggestions"]


@pytest.fixture
def slow_client(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, query_timeout_s=0.3))
    with TestClient(app) as c:
        yield c


def test_timeout_is_504(slow_client: TestClient) -> None:
    sql = "SELECT COUNT(*) FROM order_items a, order_items b, order_items c WHERE a.quantity + b.quantity > c.quantity"
    r = slow_client.post(f"{SHOP}/execute", json={"sql": sql}, headers=auth("admin-key"))
    assert_problem(r, 504, "query_timeout", f"{SHOP}/execute")
    ok = slow_client.post(f"{SHOP}/execute", json={"sql": "SELECT 1 AS x"}, headers=auth("admin-key"))
    assert ok.json()["rows"] == [[1]]  # the connection survived the cancellation


def test_unexpected_error_is_500_without_internals(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(self: Layer, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("secret internal state /etc/passwd")

    monkeypatch.setattr(Layer, "elements", explode)
    r = client.post(f"{SHOP}/elements", json={}, headers=auth("admin-key"))
    body = assert_problem(r, 500, "internal_error", f"{SHOP}/elements")
    assert "secret" not in r.text and body["error_id"] in body["detail"]
