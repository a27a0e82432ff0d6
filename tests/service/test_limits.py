"""Bounded everything: body and SQL size, parse depth, result bytes, and a per-key quota, as an attacker tries them.

Each test sends the request that used to cost the service (3 MB of SQL, 20,000 parentheses, a 200 MB
cell, 45 slow calls from one key) at a smaller scale against a service with small limits.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.limits import InProcessQuota
from service.settings import Settings

from .conftest import auth

SHOP = "/v1/databases/shop"
SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}


@pytest.fixture(scope="module")
def small(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    """A service with limits small enough to reach in a test."""
    settings = Settings(models_dir=models_dir, api_keys_file=keys_file, max_rows=5000, query_timeout_s=20,
                        max_body_bytes=8192, max_sql_chars=2000, max_result_bytes=10_000)
    with TestClient(create_app(settings)) as c:
        yield c


def problem_of(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["code"] == code and body["status"] == status, body
    return body


# -- request body and SQL length ------------------------------------------------------------------------
def test_a_body_over_the_limit_is_refused_before_it_is_parsed(small: TestClient) -> None:
    sql = "SELECT " + " + ".join(["1"] * 3000)  # 12 KB of valid SQL
    r = small.post(f"{SHOP}/execute", json={"sql": sql}, headers=auth("all-key"))
    body = problem_of(r, 413, "request_too_large")
    assert "8,192 bytes" in body["detail"] and "SMQ_MAX_BODY_BYTES" in body["detail"] and body["limit"] == 8192


def test_a_chunked_body_without_a_length_is_cut_at_the_limit(small: TestClient) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length: the middleware counts while it reads
        yield b'{"sql": "SELECT 1'
        for _ in range(100):
            yield b" + 1" * 50
        yield b'"}'

    r = small.post(f"{SHOP}/execute", content=chunks(), headers={**auth("all-key"), "Content-Type": "application/json"})
    assert "content-length" not in {k.lower() for k in r.request.headers}
    problem_of(r, 413, "request_too_large")


def test_a_body_under_the_limit_still_works(small: TestClient) -> None:
    r = small.post(f"{SHOP}/execute", json={"sql": "SELECT 1 AS one"}, headers=auth("all-key"))
    assert r.status_code == 200, r.text
    assert r.json()["rows"] == [[1]]


def test_sql_over_the_length_limit_is_refused_before_the_guard(small: TestClient) -> None:
    sql = "SELECT " + "+".join(["1"] * 1200)  # 2,406 characters, 2.4 KB: under the body limit
    r = small.post(f"{SHOP}/execute", json={"sql": sql}, headers=auth("all-key"))
    body = problem_of(r, 413, "sql_too_long")
    assert "2,000" in body["detail"] and "SMQ_MAX_SQL_CHARS" in body["detail"]
    r = small.post(f"{SHOP}/tools/readQuery", json={"sql": sql}, headers=auth("all-key"))
    problem_of(r, 413, "sql_too_long")


def test_mcp_tool_arguments_have_the_same_limits(models_dir: Path, keys_file: Path) -> None:
    import anyio
    from mcp import Client

    from service.app import build_state
    from service.auth import OPEN_PRINCIPAL
    from service.mcp.server import build_server

    state = build_state(Settings(models_dir=models_dir, api_keys_file=keys_file, max_sql_chars=2000))
    server = build_server(state, default_db="shop", stdio_principal=OPEN_PRINCIPAL)

    async def session() -> dict[str, Any]:
        async with Client(server) as client:
            result = await client.call_tool("readQuery", {"sql": "SELECT " + "+".join(["1"] * 1200)})
            assert result.is_error
            return result.structured_content

    try:
        refused = anyio.run(session)
    finally:
        state.registry.close()
    assert refused["code"] == "sql_too_long" and "2,000" in refused["error"], refused


# -- parse depth ---------------------------------------------------------------------------------------
def test_deeply_nested_sql_is_a_400_and_one_log_line(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    sql = "SELECT " + "(" * 20_000 + "1" + ")" * 20_000
    with caplog.at_level(logging.INFO):
        r = client.post(f"{SHOP}/execute", json={"sql": sql}, headers=auth("all-key"))
    body = problem_of(r, 400, "too_deeply_nested")
    assert "Recursion" not in r.text and "256 levels" in body["detail"]
    assert not [rec for rec in caplog.records if rec.exc_info], "no traceback in the log"
    assert sum(len(rec.getMessage()) for rec in caplog.records) < 2000


def test_deep_nesting_without_parentheses_is_a_400_too(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        r = client.post(f"{SHOP}/execute", json={"sql": "SELECT " + "NOT " * 5000 + "TRUE"}, headers=auth("all-key"))
    problem_of(r, 400, "too_deeply_nested")
    assert "Recursion" not in r.text
    assert not [rec for rec in caplog.records if rec.exc_info]


@pytest.mark.parametrize("text", [
    "(" * 20_000 + "OrdersModel__status = 'x'" + ")" * 20_000,
    "NOT " * 5000 + "OrdersModel__status = 'x'",
], ids=["parentheses", "not-chain"])
def test_a_deeply_nested_smq_filter_is_a_400_without_recursion_text(client: TestClient, text: str,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        r = client.post(f"{SHOP}/query", json={"smq": {**SMQ, "filters": [text]}}, headers=auth("all-key"))
    body = problem_of(r, 400, "too_deeply_nested")
    assert "Recursion" not in r.text and body["errors"][0]["location"] == {"field": "filters[0]"}
    assert not [rec for rec in caplog.records if rec.exc_info]


def test_ordinary_nesting_still_parses(client: TestClient) -> None:
    sql = "SELECT " + "(" * 60 + "1" + ")" * 60 + " AS one"
    r = client.post(f"{SHOP}/execute", json={"sql": sql}, headers=auth("all-key"))
    assert r.status_code == 200 and r.json()["rows"] == [[1]], r.text


# -- result bytes --------------------------------------------------------------------------------------
def test_a_huge_cell_is_refused_by_bytes_not_rows(small: TestClient) -> None:
    r = small.post(f"{SHOP}/execute", json={"sql": "SELECT repeat('x', 200000) AS big"}, headers=auth("all-key"))
    body = problem_of(r, 422, "result_too_large")
    assert "10,000 bytes" in body["detail"] and "limit" in body["detail"] and "offset" in body["detail"]


def test_many_small_rows_are_refused_and_a_page_of_them_is_served(small: TestClient) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue"], "group_by": ["OrdersModel__orderDate__day"],
           "order_by": ["OrdersModel__orderDate__day"]}
    r = small.post(f"{SHOP}/query", json={"smq": smq}, headers=auth("all-key"))
    problem_of(r, 422, "result_too_large")  # 731 days, ~25 bytes each: over 10,000 bytes
    r = small.post(f"{SHOP}/query", json={"smq": smq, "limit": 100, "offset": 100}, headers=auth("all-key"))
    assert r.status_code == 200, r.text
    assert r.json()["row_count"] == 100 and r.json()["truncated"] is True


# -- per-key quota ---------------------------------------------------------------------------------------
SLOW_SQL = "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1"


def test_one_key_at_its_quota_gets_429_while_another_key_is_served(models_dir: Path, keys_file: Path) -> None:
    settings = Settings(models_dir=models_dir, api_keys_file=keys_file, query_timeout_s=6, max_inflight_per_key=2)
    app = create_app(settings)
    quota = app.state.smq.quota
    with TestClient(app) as c:
        slow: list[Any] = []

        def run_slow() -> None:
            slow.append(c.post(f"{SHOP}/execute", json={"sql": SLOW_SQL}, headers=auth("all-key")))

        threads = [threading.Thread(target=run_slow) for _ in range(2)]
        for t in threads:
            t.start()
        try:
            while quota.in_flight("all") < 2:  # both slow calls hold their slot (they run for the 6 s timeout)
                assert any(t.is_alive() for t in threads), [r.text for r in slow]
                time.sleep(0.01)
            refused = c.post(f"{SHOP}/execute", json={"sql": "SELECT 1"}, headers=auth("all-key"))
            body = problem_of(refused, 429, "too_many_requests")
            assert refused.headers["Retry-After"] == "1" and "'all'" in body["detail"] and "2 requests" in body["detail"]
            other = c.post(f"{SHOP}/execute", json={"sql": "SELECT 1 AS one"}, headers=auth("shop-key"))
            assert other.status_code == 200 and other.json()["rows"] == [[1]], other.text
            assert quota.in_flight("all") == 2  # still the two slow ones
        finally:
            for t in threads:
                t.join()
        assert [r.status_code for r in slow] == [504, 504]
        assert quota.in_flight("all") == 0  # every slot given back
        assert c.post(f"{SHOP}/execute", json={"sql": "SELECT 1"}, headers=auth("all-key")).status_code == 200


def test_the_in_process_quota_counts_per_key() -> None:
    import anyio

    async def scenario() -> list[Any]:
        quota = InProcessQuota(2)
        got = [await quota.acquire("a"), await quota.acquire("a"), await quota.acquire("a"), await quota.acquire("b")]
        await quota.release("a")
        got += [await quota.acquire("a"), quota.in_flight("a"), quota.in_flight("b")]
        return got

    assert anyio.run(scenario) == [True, True, False, True, True, 2, 1]


# -- layer files on reload ---------------------------------------------------------------------------------
def test_reload_refuses_a_billion_laughs_layer_file_and_keeps_serving(tmp_path: Path, served_duckdb: Path) -> None:
    from tests.engine.layer.test_yaml_limits import laughs

    from .conftest import copy_layer

    root = tmp_path / "models"
    copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(served_duckdb)})
    with TestClient(create_app(Settings(models_dir=root, open_access=True))) as c:
        (root / "shop" / "models" / "laughs.yml").write_text(laughs(6))
        body = c.post("/v1/reload", json={}).json()
        assert list(body["failed"]) == ["shop"], body
        (error,) = [e for e in body["failed"]["shop"] if e["code"] == "yaml_alias_limit"]
        assert error["location"]["file"].endswith("shop/models/laughs.yml") and error["location"]["line"] == 5
        r = c.post(f"{SHOP}/query", json={"smq": SMQ})
        assert r.status_code == 200, r.text  # the last good version still serves


def test_a_slot_is_given_back_whatever_the_answer(models_dir: Path, keys_file: Path) -> None:
    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, max_inflight_per_key=1))
    quota = app.state.smq.quota
    with TestClient(app) as c:
        for _ in range(3):  # with one slot, a slot kept by any of these would refuse the next as 429
            assert c.post(f"{SHOP}/execute", json={"sql": "SELECT nope"}, headers=auth("all-key")).status_code == 400
            assert c.post("/v1/databases/other/query", json={"smq": SMQ}, headers=auth("shop-key")).status_code == 403
            assert c.post(f"{SHOP}/execute", json={"sql": "x" * 20_000_00}, headers=auth("all-key")).status_code == 413
            assert c.get(f"{SHOP}", headers=auth("all-key")).status_code == 200
            assert c.post(f"{SHOP}/query", json={"smq": SMQ}, headers=auth("all-key")).status_code == 200
        assert quota.in_flight("all") == quota.in_flight("shop-only") == 0
