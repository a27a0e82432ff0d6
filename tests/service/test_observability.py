"""/v1/metrics (Prometheus), request ids and the one access line per request, and /docs + /redoc offline."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from service.app import create_app
from service.request_log import JsonFormatter, RequestIdFilter, request_id_from
from service.settings import Settings

from .conftest import auth

ADMIN = auth("admin-key")
SMQ = {"metrics": ["OrdersModel__orderCount"]}


@pytest.fixture()
def app_client(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    """A fresh app per test: its own metrics registry, so counts start at zero."""
    with TestClient(create_app(Settings(models_dir=models_dir, api_keys_file=keys_file))) as client:
        yield client


def samples(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/v1/metrics", headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


# -- metrics -------------------------------------------------------------------------------------------------

def test_requests_latency_and_errors_are_counted_by_route_template_and_code(app_client: TestClient) -> None:
    for _ in range(2):
        assert app_client.post("/v1/databases/shop/compile", json={"smq": SMQ}, headers=ADMIN).status_code == 200
    bad = app_client.post("/v1/databases/shop/compile", json={"smq": {"metrics": ["NoSuch__x"]}}, headers=ADMIN)
    assert bad.status_code == 400
    assert app_client.get("/v1/databases", headers=auth("wrong")).status_code == 401
    found = samples(app_client)
    route = "/v1/databases/{db}/compile"
    assert value(found, "smq_http_requests_total", route=route, method="POST", status="200") == 2
    assert value(found, "smq_http_requests_total", route=route, method="POST", status="400") == 1
    assert value(found, "smq_http_request_duration_seconds_count", route=route, method="POST") == 3
    assert value(found, "smq_http_errors_total", code=bad.json()["code"], status="400") == 1
    assert value(found, "smq_http_errors_total", code="unauthorized", status="401") == 1
    assert not any("/v1/databases/shop/" in str(labels) for _, labels in found)  # templates, not paths


def test_an_unknown_path_is_one_label_not_one_per_path(app_client: TestClient) -> None:
    for path in ("/nope/1", "/nope/2"):
        assert app_client.get(path).status_code == 404
    found = samples(app_client)
    assert value(found, "smq_http_requests_total", route="unmatched", method="GET", status="404") == 2
    assert value(found, "smq_http_errors_total", code="not_found", status="404") == 2


def test_the_worker_pool_and_requests_in_progress_are_reported(app_client: TestClient) -> None:
    found = samples(app_client)
    assert value(found, "smq_worker_threads_total") >= 1
    assert value(found, "smq_worker_threads_busy") >= 0 and ("smq_worker_threads_queued", ()) in found
    assert value(found, "smq_http_requests_in_progress") == 1  # the scrape itself


class FakeCache:
    """What the result cache offers the metrics: `stats() -> dict[str, int]`."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def stats(self) -> dict[str, int]:
        if self.fail:
            raise ConnectionError("redis is down")
        return {"hits": 7, "misses": 3, "entries": 4, "errors": 1}


def test_the_result_cache_stats_are_exported_when_the_app_has_a_cache(app_client: TestClient) -> None:
    for _ in range(2):  # the app's own (in-process) cache: a miss, then a hit
        assert app_client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=ADMIN).status_code == 200
    found = samples(app_client)
    assert value(found, "smq_result_cache_misses_total") == 1 and value(found, "smq_result_cache_hits_total") == 1
    assert value(found, "smq_result_cache_entries") == 1 and value(found, "smq_result_cache_up") == 1
    app_client.app.state.result_cache = FakeCache()
    found = samples(app_client)
    assert value(found, "smq_result_cache_hits_total") == 7
    assert value(found, "smq_result_cache_misses_total") == 3
    assert value(found, "smq_result_cache_errors_total") == 1
    assert value(found, "smq_result_cache_entries") == 4
    assert value(found, "smq_result_cache_up") == 1


def test_a_failing_cache_does_not_fail_the_scrape(app_client: TestClient) -> None:
    app_client.app.state.result_cache = FakeCache(fail=True)
    found = samples(app_client)
    assert value(found, "smq_result_cache_up") == 0 and value(found, "smq_result_cache_hits_total") == 0


def test_two_apps_in_one_process_count_apart(models_dir: Path, keys_file: Path) -> None:
    settings = Settings(models_dir=models_dir, api_keys_file=keys_file)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        one.get("/v1/health")
        one.get("/v1/health")
        assert value(samples(one), "smq_http_requests_total", route="/v1/health", method="GET", status="200") == 2
        assert value(samples(two), "smq_http_requests_total", route="/v1/health", method="GET", status="200") == 0


def test_metrics_need_an_admin_key(app_client: TestClient, models_dir: Path) -> None:
    assert app_client.get("/v1/metrics").status_code == 401
    forbidden = app_client.get("/v1/metrics", headers=auth("all-key"))
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "admin_required"
    with TestClient(create_app(Settings(models_dir=models_dir, open_access=True))) as open_client:
        assert open_client.get("/v1/metrics").status_code == 200  # --open: every caller is an admin


# -- request ids and the access line -------------------------------------------------------------------------

def test_a_request_id_is_made_or_a_sane_one_echoed(app_client: TestClient) -> None:
    made = app_client.get("/v1/health").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert app_client.get("/v1/health").headers["x-request-id"] != made
    sent = app_client.get("/v1/health", headers={"X-Request-ID": "trace-42.a:b"})
    assert sent.headers["x-request-id"] == "trace-42.a:b"
    for insane in ("has space", "x" * 129, 'quote"d', ""):
        echoed = app_client.get("/v1/health", headers={"X-Request-ID": insane}).headers["x-request-id"]
        assert echoed != insane and re.fullmatch(r"[0-9a-f]{32}", echoed)
    problem = app_client.get("/v1/databases", headers={"X-Request-ID": "err-1"})
    assert problem.status_code == 401 and problem.headers["x-request-id"] == "err-1"


def test_request_id_from_takes_the_first_header_only() -> None:
    assert request_id_from([(b"x-request-id", b"abc"), (b"x-request-id", b"def")]) == "abc"
    assert len(request_id_from([])) == 32


@pytest.fixture()
def json_log() -> Iterator[io.StringIO]:
    """The records of smq.* loggers as the JSON formatter writes them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    logger = logging.getLogger("smq")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_one_json_line_per_request_with_key_name_route_status_and_code(app_client: TestClient,
                                                                        json_log: io.StringIO) -> None:
    app_client.post("/v1/databases/shop/compile", json={"smq": SMQ}, headers={**ADMIN, "X-Request-ID": "ok-1"})
    app_client.post("/v1/databases/shop/compile", json={"smq": {"metrics": ["Nope__x"]}},
                    headers={**ADMIN, "X-Request-ID": "bad-1"})
    access = [r for r in lines(json_log) if r["logger"] == "smq.access"]
    assert [r["request_id"] for r in access] == ["ok-1", "bad-1"]
    ok, bad = access
    assert ok["route"] == "/v1/databases/{db}/compile" and ok["method"] == "POST" and ok["status"] == 200
    assert ok["key"] == "admin" and "admin-key" not in json.dumps(access)  # the key's name, never the key
    assert ok["duration_ms"] >= 0 and "code" not in ok and ok["level"] == "info"
    assert bad["status"] == 400 and bad["code"] == "unknown_element"


def test_an_unhandled_error_logs_the_request_id_it_answered_with(models_dir: Path, keys_file: Path,
                                                                 json_log: io.StringIO) -> None:
    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file))

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("kaboom")

    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/boom", headers={"X-Request-ID": "boom-1"})
    assert response.status_code == 500 and response.headers["x-request-id"] == "boom-1"
    records = lines(json_log)
    failure = next(r for r in records if r["message"].startswith("unhandled error"))
    assert failure["request_id"] == "boom-1" and "kaboom" in failure["exc_info"]
    access = next(r for r in records if r["logger"] == "smq.access")
    assert access["status"] == 500 and access["code"] == "internal_error" and access["level"] == "warning"


def test_log_format_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SMQ_LOG_FORMAT", "json")
    assert Settings().log_format == "json"
    assert Settings(log_format="text").to_env()["SMQ_LOG_FORMAT"] == "text"
    with pytest.raises(ValueError):
        Settings(log_format="xml")


# -- /docs and /redoc without the internet -------------------------------------------------------------------

URL = re.compile(r"""(?:src|href)=["']([^"']+)["']|url:\s*['"]([^'"]+)['"]""")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_pages_load_only_local_assets_and_those_are_served(app_client: TestClient, page: str) -> None:
    html = app_client.get(page)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    urls = [a or b for a, b in URL.findall(html.text)]
    assert urls, html.text
    remote = [u for u in urls if "//" in u]
    assert not remote, remote
    assert not re.search(r"https?://", html.text.replace("http://www.w3.org", "")), "a remote URL in the page"
    for url in urls:
        asset = app_client.get(url)
        assert asset.status_code == 200 and len(asset.content) > 100, url


def test_the_code_of_a_problem_compressed_on_its_way_out_is_still_counted(models_dir: Path, keys_file: Path) -> None:
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware

    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file))
    app.user_middleware.insert(1, Middleware(GZipMiddleware, minimum_size=1))  # between the access log and the app
    with TestClient(app) as client:
        refused = client.get("/v1/databases", headers={**auth("wrong"), "Accept-Encoding": "gzip"})
        assert refused.status_code == 401 and refused.headers["content-encoding"] == "gzip"
        assert value(samples(client), "smq_http_errors_total", code="unauthorized", status="401") == 1
