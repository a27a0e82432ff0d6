"""Every endpoint's happy path, in process, on the demo DuckDB database."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from .conftest import auth

ADMIN = auth("admin-key")
BY_STATUS = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}


def test_health_needs_no_key(client: TestClient) -> None:
    r = client.get("/v1/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"


def test_ready_anonymous_gets_counts_only(client: TestClient) -> None:
    r = client.get("/v1/ready")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "degraded"  # the `broken` layer never loads
    assert body["databases"] is None
    assert body["counts"]["invalid"] == 1 and body["counts"]["ok"] >= 3


def test_ready_with_key_lists_databases_and_errors_with_locations(client: TestClient) -> None:
    body = client.get("/v1/ready", headers=ADMIN).json()
    by_name = {d["name"]: d for d in body["databases"]}
    assert by_name["shop"]["status"] == "ok" and by_name["shop"]["errors"] is None
    broken = by_name["broken"]
    assert broken["status"] == "invalid" and broken["error_count"] >= 1
    error = broken["errors"][0]
    assert set(error) == {"code", "message", "location", "suggestions"}
    assert error["location"]["file"].startswith("broken/")  # relative to the models folder: no server paths
    assert error["location"]["line"] >= 1


def test_list_databases(client: TestClient) -> None:
    names = {d["name"]: d for d in client.get("/v1/databases", headers=ADMIN).json()["databases"]}
    assert {"shop", "other", "nofile", "broken"} <= set(names)
    assert names["shop"] == {"name": "shop", "status": "ok", "dialect": "duckdb", "description": names["shop"]["description"]}
    assert names["broken"]["status"] == "invalid" and names["broken"]["dialect"] is None


def test_database_detail(client: TestClient) -> None:
    body = client.get("/v1/databases/shop", headers=ADMIN).json()
    assert body["dialect"] == "duckdb" and body["backend"] == "duckdb" and body["status"] == "ok"
    assert body["role"] is None and len(body["version"]) == 16
    models = {m["name"]: m["description"] for m in body["models"]}
    assert len(models) == 8 and models["OrdersModel"].startswith("One row per order")


def test_elements(client: TestClient) -> None:
    r = client.post("/v1/databases/shop/elements", json={"models": ["OrdersModel"]}, headers=ADMIN)
    assert r.status_code == 200
    (model,) = r.json()["models"]
    assert model["name"] == "OrdersModel"
    dims = {d["name"]: d for d in model["dimensions"]}
    assert dims["OrdersModel__orderDate"]["type"] == "date" and "grains" in dims["OrdersModel__orderDate"]
    assert "expr" not in dims["OrdersModel__status"]  # types and descriptions, never expressions
    assert {m["name"] for m in model["metrics"]} >= {"averageOrderValue", "returnRate"}


def test_elements_of_every_model_when_empty(client: TestClient) -> None:
    r = client.post("/v1/databases/shop/elements", json={}, headers=ADMIN)
    assert len(r.json()["models"]) == 8


def test_compile_with_preview(client: TestClient, duck: Any) -> None:
    smq = {**BY_STATUS, "order_by": ["-OrdersModel__orderCount"]}
    body = client.post("/v1/databases/shop/compile", json={"smq": smq}, headers=ADMIN).json()
    assert body["dialect"] == "duckdb" and body["sql"].startswith("SELECT")
    assert body["preview_error"] is None
    assert body["preview"]["columns"] == ["OrdersModel__status", "OrdersModel__orderCount"]
    truth = duck("SELECT TRIM(status) s, COUNT(*) n FROM orders GROUP BY s ORDER BY n DESC LIMIT 5")
    assert [tuple(r) for r in body["preview"]["rows"]] == truth


def test_compile_preview_has_at_most_five_rows_within_the_smq_limit(client: TestClient) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__month"]}
    rows = client.post("/v1/databases/shop/compile", json={"smq": smq}, headers=ADMIN).json()["preview"]["rows"]
    assert len(rows) == 5
    rows = client.post("/v1/databases/shop/compile", json={"smq": {**smq, "limit": 2}}, headers=ADMIN).json()["preview"]["rows"]
    assert len(rows) == 2


def test_compile_without_preview_and_in_another_dialect(client: TestClient) -> None:
    body = client.post("/v1/databases/shop/compile", json={"smq": BY_STATUS, "dialect": "snowflake", "preview": False},
                       headers=ADMIN).json()
    assert body["dialect"] == "snowflake" and body["preview"] is None and body["preview_error"] is None
    body = client.post("/v1/databases/shop/compile", json={"smq": BY_STATUS, "dialect": "postgres"}, headers=ADMIN).json()
    assert body["dialect"] == "postgres" and len(body["preview"]["rows"]) == 5  # the preview runs in duckdb


def test_compile_without_a_reachable_database_still_returns_sql(client: TestClient) -> None:
    r = client.post("/v1/databases/nofile/compile", json={"smq": BY_STATUS}, headers=ADMIN)
    assert r.status_code == 200
    body = r.json()
    assert "SELECT" in body["sql"] and body["preview"] is None
    assert body["preview_error"]["code"] == "backend_unavailable"


def test_query_returns_rows(client: TestClient, duck: Any) -> None:
    r = client.post("/v1/databases/shop/query", json={"smq": BY_STATUS}, headers=ADMIN)
    body = r.json()
    assert r.status_code == 200
    assert body["columns"] == ["OrdersModel__status", "OrdersModel__orderCount"]
    assert body["row_count"] == len(body["rows"]) == 6 and body["truncated"] is False
    assert sum(n for _, n in body["rows"]) == duck("SELECT COUNT(*) FROM orders")[0][0]
    assert body["limit"] == 1000 and body["offset"] == 0 and body["elapsed_ms"] >= 0


def test_query_pages_are_pushed_into_sql(client: TestClient) -> None:
    full = client.post("/v1/databases/shop/query", json={"smq": BY_STATUS}, headers=ADMIN).json()["rows"]
    page = client.post("/v1/databases/shop/query", json={"smq": BY_STATUS, "limit": 2, "offset": 3}, headers=ADMIN).json()
    assert page["rows"] == full[3:5] and page["truncated"] is True
    assert page["sql"].rstrip().endswith("LIMIT 2\nOFFSET 3")
    last = client.post("/v1/databases/shop/query", json={"smq": BY_STATUS, "limit": 2, "offset": 4}, headers=ADMIN).json()
    assert last["rows"] == full[4:6] and last["truncated"] is False


def test_query_page_stays_within_the_smq_limit(client: TestClient) -> None:
    smq = {**BY_STATUS, "limit": 4}
    body = client.post("/v1/databases/shop/query", json={"smq": smq, "limit": 3, "offset": 2}, headers=ADMIN).json()
    assert body["row_count"] == 2 and body["truncated"] is False and body["limit"] == 2


def test_query_is_capped_by_max_rows(client: TestClient) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderId"]}  # 5000 rows
    body = client.post("/v1/databases/shop/query", json={"smq": smq, "limit": 50_000}, headers=ADMIN).json()
    assert body["row_count"] == 1000 and body["truncated"] is True and body["limit"] == 1000


def test_execute(client: TestClient) -> None:
    sql = "SELECT TRIM(status) AS status, COUNT(*) AS n FROM orders GROUP BY 1 ORDER BY 2 DESC"
    body = client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=ADMIN).json()
    assert body["sql"] == sql  # no role: the SQL runs byte for byte
    assert body["columns"] == ["status", "n"] and body["rows"][0] == ["delivered", 3376]
    assert body["truncated"] is False


def test_execute_caps_rows(client: TestClient) -> None:
    body = client.post("/v1/databases/shop/execute", json={"sql": "SELECT order_id FROM orders"}, headers=ADMIN).json()
    assert body["row_count"] == 1000 and body["truncated"] is True


def test_reload_reports_unchanged_layers(client: TestClient) -> None:
    body = client.post("/v1/reload", headers=ADMIN, json={}).json()
    assert "shop" in body["unchanged"] and body["reloaded"] == [] and "broken" in body["failed"]


def test_openapi_documents_every_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/v1/health", "/v1/ready", "/v1/databases", "/v1/databases/{db}", "/v1/databases/{db}/elements",
                 "/v1/databases/{db}/compile", "/v1/databases/{db}/query", "/v1/databases/{db}/execute", "/v1/reload"):
        assert path in paths
    assert client.get("/docs").status_code == 200


def _server_timing(header: str) -> dict[str, float]:
    out = {}
    for entry in header.split(","):
        name, _, dur = entry.strip().partition(";dur=")
        out[name] = float(dur)
    return out


def test_rows_responses_match_their_documented_models(client: TestClient) -> None:
    """query/execute skip response-model validation for speed: their bodies must still be exactly the model."""
    from service.routes.schemas import QueryResponse, Rows

    query = client.post("/v1/databases/shop/query", json={"smq": BY_STATUS}, headers=ADMIN)
    assert set(query.json()) == set(QueryResponse.model_fields)
    assert QueryResponse.model_validate(query.json()).model_dump() == query.json()
    execute = client.post("/v1/databases/shop/execute", json={"sql": "SELECT 1 AS one"}, headers=ADMIN)
    assert set(execute.json()) == set(Rows.model_fields)
    assert Rows.model_validate(execute.json()).model_dump() == execute.json()


def test_server_timing_reports_database_and_total_time(client: TestClient) -> None:
    fresh = {**ADMIN, "Cache-Control": "no-cache"}  # not from the result cache (its entry: tests/service/test_result_cache.py)
    r = client.post("/v1/databases/shop/query", json={"smq": BY_STATUS}, headers=fresh)
    timing = _server_timing(r.headers["server-timing"])
    assert set(timing) == {"db", "total", "cache;desc=miss"} and 0 <= timing["db"] <= timing["total"]
    assert timing["db"] == r.json()["elapsed_ms"]
    preview = client.post("/v1/databases/shop/compile", json={"smq": BY_STATUS}, headers=ADMIN)
    assert set(_server_timing(preview.headers["server-timing"])) == {"db", "total"}
    no_preview = client.post("/v1/databases/shop/compile", json={"smq": BY_STATUS, "preview": False}, headers=ADMIN)
    assert set(_server_timing(no_preview.headers["server-timing"])) == {"total"}
    refused = client.post("/v1/databases/shop/query", json={"smq": BY_STATUS}, headers={"Authorization": "Bearer nope"})
    assert refused.status_code == 401 and set(_server_timing(refused.headers["server-timing"])) == {"total"}


def test_cors_is_off_unless_origins_are_configured(client: TestClient) -> None:
    r = client.get("/v1/databases", headers={**ADMIN, "Origin": "https://bi.example"})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_cors_lets_configured_browser_origins_call(models_dir: Any, keys_file: Any) -> None:
    from service.app import create_app
    from service.settings import Settings

    settings = Settings(models_dir=models_dir, api_keys_file=keys_file, cors_origins="https://bi.example, https://other.example/")
    assert settings.cors_origins == ["https://bi.example", "https://other.example"]
    with TestClient(create_app(settings)) as browser:
        preflight = browser.options("/v1/databases/shop/query", headers={
            "Origin": "https://bi.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        assert preflight.status_code == 200  # answered before auth: a preflight carries no key
        assert preflight.headers["access-control-allow-origin"] == "https://bi.example"
        assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
        r = browser.post("/v1/databases/shop/query", json={"smq": BY_STATUS},
                         headers={**ADMIN, "Origin": "https://bi.example"})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://bi.example"
        assert "server-timing" in r.headers["access-control-expose-headers"].lower()
        refused = browser.options("/v1/databases/shop/query", headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
        assert refused.status_code == 400 and "access-control-allow-origin" not in refused.headers
        denied = browser.post("/v1/databases/shop/query", json={"smq": BY_STATUS}, headers={"Origin": "https://bi.example"})
        assert denied.status_code == 401 and denied.headers["access-control-allow-origin"] == "https://bi.example"
