"""Answers as browsers, shared caches and spreadsheets read them (each case failed before the change):

* a CSV cell starting with = + - @ tab or CR was written as is, and a spreadsheet ran it as a formula
  (`=HYPERLINK(...)`, `+cmd|...`); now it starts with `'` (OWASP), `?csv_safe=false` keeps the raw text;
* role-specific cached answers said `Vary: Accept, Origin` without `Authorization`; every keyed answer now
  varies on it and is `Cache-Control: private`;
* on an `--open` server a page of any site could POST `text/plain` to `/v1/reload` (no preflight).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.result_formats import FORMULA_STARTS, neutralised
from service.settings import Settings

from .conftest import auth

EXECUTE = "/v1/databases/shop/execute"
HOSTILE_SQL = ("SELECT '=HYPERLINK(''http://evil.example'',''x'')' AS a, '+cmd|'' /C calc''!A0' AS b, '-2+3' AS c, "
               "'@SUM(1,2)' AS d, chr(9) || '=1' AS e, chr(13) || '=1' AS f, 'plain' AS g, -5 AS n, 2.5 AS x, "
               "'=1' AS \"=header\"")


def _cells(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8"))))


def test_csv_cells_that_start_a_formula_are_text(client: TestClient) -> None:
    r = client.post(EXECUTE, json={"sql": HOSTILE_SQL}, params={"format": "csv"}, headers=auth("admin-key"))
    assert r.status_code == 200, r.text
    header, row = _cells(r.content)
    assert header[-1] == "'=header"
    assert row[:6] == ["'=HYPERLINK('http://evil.example','x')", "'+cmd|' /C calc'!A0", "'-2+3", "'@SUM(1,2)",
                       "'\t=1", "'\r=1"]
    assert row[6:9] == ["plain", "-5", "2.5"]  # text without a formula start, and numbers, as they are
    assert not [cell for cell in header + row if cell.startswith(FORMULA_STARTS) and cell not in ("-5",)]


def test_csv_safe_false_keeps_the_raw_text_for_machines(client: TestClient) -> None:
    r = client.post(EXECUTE, json={"sql": HOSTILE_SQL}, params={"format": "csv", "csv_safe": "false"},
                    headers=auth("admin-key"))
    header, row = _cells(r.content)
    assert header[-1] == "=header" and row[0].startswith("=HYPERLINK") and row[4] == "\t=1"


def test_csv_from_query_is_neutralised_too(client: TestClient) -> None:
    smq = {"group_by": ["OrdersModel__status"], "filters": ["OrdersModel__status = 'shipped'"]}
    r = client.post("/v1/databases/shop/query", json={"smq": smq}, headers={**auth("admin-key"), "Accept": "text/csv"})
    assert _cells(r.content)[1] == ["shipped"]
    assert neutralised("=x") == "'=x" and neutralised(-5) == -5 and neutralised("a=b") == "a=b"


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/v1/databases/shop/query", {"smq": {"metrics": ["OrdersModel__orderCount"]}}),
    ("GET", "/v1/databases/shop/query?q=%7B%22metrics%22%3A%5B%22OrdersModel__orderCount%22%5D%7D", None),
    ("POST", EXECUTE, {"sql": "SELECT count(*) AS n FROM orders"}),
    ("GET", "/v1/databases", None),
    ("GET", "/v1/databases/shop", None),
    ("POST", "/v1/databases/shop/elements", {}),
    ("GET", "/v1/databases/shop/tools", None),
    ("POST", "/v1/databases/other/query", {"smq": {"metrics": ["OrdersModel__orderCount"]}}),  # a 403 of this key
])
def test_every_keyed_answer_varies_on_authorization_and_is_private(cors_client: TestClient, method: str, path: str,
                                                                   body: dict | None) -> None:
    for _ in range(2):  # the second /query and /execute answers come from the result cache
        r = cors_client.request(method, path, json=body, headers={**auth("de-key"), "Origin": "https://bi.example"})
        vary = {v.strip().lower() for v in r.headers["vary"].split(",")}
        assert "authorization" in vary, (path, r.headers["vary"])
        assert "private" in r.headers["cache-control"] and "public" not in r.headers["cache-control"], path
    if path.startswith("/v1/databases/shop/query"):
        assert {"accept", "origin"} <= vary and "max-age=" in r.headers["cache-control"]  # the cache's own kept


def test_cube_answers_vary_on_authorization(cors_client: TestClient) -> None:
    r = cors_client.get("/cubejs-api/v1/meta", headers={"Authorization": "de-key", "X-SMQ-Database": "shop"})
    assert r.status_code == 200 and "authorization" in r.headers["vary"].lower() and "private" in r.headers["cache-control"]


def test_static_pages_stay_public(cors_client: TestClient) -> None:
    assert "authorization" not in cors_client.get("/v1/health").headers.get("vary", "").lower()


@pytest.fixture(scope="module")
def cors_client(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, cors_origins=["https://bi.example"]))
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="module")
def open_client(models_dir: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(models_dir=models_dir, open_access=True, cors_origins=["https://bi.example"])),
                    base_url="http://127.0.0.1:8000") as c:
        yield c


EVIL = "https://evil.example"


@pytest.mark.parametrize("headers", [
    {"Origin": EVIL, "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"},  # what a browser sends
    {"Origin": EVIL, "Content-Type": "text/plain"},  # a browser without Sec-Fetch-*
    {"Origin": "null", "Content-Type": "text/plain"},  # a sandboxed frame or a file:// page
    {"Origin": EVIL, "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
    {"Origin": "https://127.0.0.1.evil.example", "Sec-Fetch-Site": "same-site", "Content-Type": "text/plain"},
], ids=["browser", "no-sec-fetch", "null-origin", "json", "same-site"])
def test_a_cross_site_reload_on_an_open_server_is_refused(open_client: TestClient, headers: dict[str, str]) -> None:
    r = open_client.post("/v1/reload", content=b"{}", headers=headers)
    assert r.status_code == 403 and r.json()["code"] == "cross_site_request", r.text
    assert "SMQ_CORS_ORIGINS" in r.json()["detail"]


def test_cross_site_posts_to_queries_and_ask_are_refused_too(open_client: TestClient) -> None:
    for path in ("/v1/databases/shop/query", "/v1/databases/shop/ask", "/cubejs-api/v1/load"):
        r = open_client.post(path, content=b'{"smq": {"metrics": ["OrdersModel__orderCount"]}}',
                             headers={"Origin": EVIL, "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"})
        assert r.status_code == 403, path


def test_a_reload_must_be_json_even_without_an_origin(open_client: TestClient) -> None:
    r = open_client.post("/v1/reload", content=b"", headers={"Content-Type": "text/plain"})
    assert r.status_code == 422 and "Content-Type: application/json" in r.json()["detail"]
    assert open_client.post("/v1/reload").status_code == 422


def test_same_origin_and_listed_origins_may_reload(open_client: TestClient) -> None:
    same = {"Origin": "http://127.0.0.1:8000", "Content-Type": "application/json"}
    assert open_client.post("/v1/reload", json={}, headers={"Origin": "http://127.0.0.1:8000"}).status_code == 200
    assert open_client.post("/v1/reload", content=b"{}", headers={**same, "Sec-Fetch-Site": "same-origin"}).status_code == 200
    listed = {"Origin": "https://bi.example", "Sec-Fetch-Site": "cross-site"}
    assert open_client.post("/v1/reload", json={}, headers=listed).status_code == 200
    assert open_client.post("/v1/reload", json={}).status_code == 200  # curl, scripts: no Origin at all
    assert open_client.get("/v1/databases", headers={"Origin": EVIL, "Sec-Fetch-Site": "cross-site"}).status_code == 200
