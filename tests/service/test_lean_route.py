"""`/query` answers through `LeanRoute` (service/lean_route.py) exactly as through FastAPI's own handler.

Two apps on the same layers and keys: one as served, one whose routes all use FastAPI's handler. Every request
below, good and bad, gets the same status, body and headers from both (the time-dependent parts aside), and on
the served app a valid request goes through none of FastAPI's generic dependency solving (without the lean
route, `test_a_valid_request_skips_the_generic_solver` counts a solve per dependency).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from service import lean_route
from service.app import create_app
from service.settings import Settings

from .conftest import auth

SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}
JSON = {"Content-Type": "application/json"}
REQUESTS: list[tuple[str, str, str, dict[str, str], Any]] = [  # name, method, path, headers, body (bytes or JSON)
    ("valid", "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ}),
    ("a page", "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ, "limit": 2, "offset": 1, "total": True}),
    ("csv", "POST", "/v1/databases/shop/query?format=csv&csv_safe=false", auth("all-key"), {"smq": SMQ}),
    ("total", "POST", "/v1/databases/shop/query?total=true", auth("all-key"), {"smq": SMQ}),
    ("accept arrow", "POST", "/v1/databases/shop/query", {**auth("all-key"), "Accept": "text/csv"}, {"smq": SMQ}),
    ("role", "POST", "/v1/databases/shop/query", auth("de-key"), {"smq": {**SMQ, "group_by": ["NationsModel__country"]}}),
    ("hidden for the role", "POST", "/v1/databases/shop/query", auth("de-key"),
     {"smq": {**SMQ, "group_by": ["CustomersModel__customerName"]}}),
    ("no key", "POST", "/v1/databases/shop/query", {}, {"smq": SMQ}),
    ("wrong key", "POST", "/v1/databases/shop/query", auth("nope"), {"smq": SMQ}),
    ("no key, bad body", "POST", "/v1/databases/shop/query", {}, b"{not json"),
    ("not granted", "POST", "/v1/databases/other/query", auth("shop-key"), {"smq": SMQ}),
    ("no such database", "POST", "/v1/databases/nope/query", auth("all-key"), {"smq": SMQ}),
    ("backend down", "POST", "/v1/databases/nofile/query", auth("all-key"), {"smq": SMQ}),
    ("role undefined", "POST", "/v1/databases/shop/query", auth("ghost-key"), {"smq": SMQ}),
    ("malformed JSON", "POST", "/v1/databases/shop/query", auth("all-key"), b'{"smq": '),
    ("an array", "POST", "/v1/databases/shop/query", auth("all-key"), [1]),
    ("no smq", "POST", "/v1/databases/shop/query", auth("all-key"), {"limit": 3}),
    ("an extra field", "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ, "colour": "red"}),
    ("a negative limit", "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ, "limit": -1}),
    ("limit too large", "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ, "limit": 10**12}),
    ("not JSON's content type", "POST", "/v1/databases/shop/query", {**auth("all-key"), "Content-Type": "text/plain"},
     json.dumps({"smq": SMQ}).encode()),
    ("+json content type", "POST", "/v1/databases/shop/query",
     {**auth("all-key"), "Content-Type": "application/vnd.smq+json"}, json.dumps({"smq": SMQ}).encode()),
    ("empty body", "POST", "/v1/databases/shop/query", auth("all-key"), b""),
    ("bad format", "POST", "/v1/databases/shop/query?format=xml", auth("all-key"), {"smq": SMQ}),
    ("bad bool", "POST", "/v1/databases/shop/query?total=maybe", auth("all-key"), {"smq": SMQ}),
    ("unknown element", "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": {"metrics": ["OrdersModel__nope"]}}),
    ("unknown SMQ key", "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": {**SMQ, "grup_by": []}}),
    ("GET", "GET", "/v1/databases/shop/query?q=" + json.dumps(SMQ), auth("all-key"), None),
    ("GET, a page", "GET", "/v1/databases/shop/query?limit=2&offset=2&q=" + json.dumps(SMQ), auth("all-key"), None),
    ("GET without q", "GET", "/v1/databases/shop/query", auth("all-key"), None),
    ("GET, q not JSON", "GET", "/v1/databases/shop/query?q=%7B", auth("all-key"), None),
    ("GET, bad offset", "GET", "/v1/databases/shop/query?offset=-1&q=" + json.dumps(SMQ), auth("all-key"), None),
]
VOLATILE_HEADERS = {"x-request-id", "server-timing", "etag", "date", "content-length", "age"}


@pytest.fixture(scope="module")
def clients(models_dir: Path, keys_file: Path) -> Iterator[tuple[TestClient, TestClient]]:
    settings = Settings(models_dir=models_dir, api_keys_file=keys_file, max_rows=1000, query_timeout_s=20,
                        result_cache_ttl_s=0)
    lean = create_app(settings)
    original = lean_route.LeanRoute._lean_plan
    lean_route.LeanRoute._lean_plan = lambda self, route: None  # type: ignore[method-assign]
    try:
        standard = create_app(settings)
        list(iter_route_contexts(standard.routes))  # FastAPI builds each route's handler on first use: now, unpatched
    finally:
        lean_route.LeanRoute._lean_plan = original  # type: ignore[method-assign]
    with TestClient(lean) as a, TestClient(standard) as b:
        yield a, b


def _send(client: TestClient, method: str, path: str, headers: dict[str, str], body: Any) -> Any:
    if isinstance(body, bytes):
        return client.request(method, path, headers={**JSON, **headers}, content=body)
    if body is None:
        return client.request(method, path, headers=headers)
    return client.request(method, path, headers=headers, json=body)


def _comparable(response: Any) -> tuple[int, dict[str, str], Any]:
    headers = {k: v for k, v in response.headers.items() if k not in VOLATILE_HEADERS}
    body: Any = response.content
    if response.headers.get("content-type", "").split(";")[0].endswith("json"):
        body = response.json()
        if isinstance(body, dict):
            body.pop("elapsed_ms", None)
            body.pop("instance", None)
            for error in body.get("errors") or ():
                error.pop("id", None)
    return response.status_code, headers, body


@pytest.mark.parametrize("name, method, path, headers, body", REQUESTS, ids=[r[0] for r in REQUESTS])
def test_the_lean_route_answers_as_fastapi_does(clients: tuple[TestClient, TestClient], name: str, method: str,
                                                path: str, headers: dict[str, str], body: Any) -> None:
    lean, standard = clients
    ours, theirs = _comparable(_send(lean, method, path, headers, body)), _comparable(_send(standard, method, path, headers, body))
    assert ours == theirs


def test_every_case_is_answered_as_meant(clients: tuple[TestClient, TestClient]) -> None:
    """The comparison above means something only if the cases reach the paths they are named for."""
    lean, _ = clients
    statuses = {name: _send(lean, m, p, h, b).status_code for name, m, p, h, b in REQUESTS}
    assert statuses["valid"] == statuses["GET"] == statuses["csv"] == statuses["role"] == 200
    assert statuses["no key"] == statuses["wrong key"] == 401
    assert statuses["no key, bad body"] == 422  # FastAPI reads the JSON before the dependencies
    assert statuses["not granted"] == 403 and statuses["no such database"] == 404 and statuses["backend down"] == 503
    assert statuses["malformed JSON"] == statuses["an extra field"] == statuses["bad format"] == 422
    assert statuses["unknown element"] == statuses["hidden for the role"] == 400


def test_a_valid_request_skips_the_generic_solver(clients: tuple[TestClient, TestClient],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import fastapi.dependencies.utils as utils
    import fastapi.routing

    solves: list[Any] = []
    real = utils.solve_dependencies

    async def counting(**kwargs: Any) -> Any:
        solves.append(kwargs["dependant"].call)
        return await real(**kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    lean, standard = clients
    assert _send(standard, "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ}).status_code == 200
    assert solves  # the comparison app is FastAPI's handler, as meant
    solves.clear()
    assert _send(lean, "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ}).status_code == 200
    assert _send(lean, "GET", "/v1/databases/shop/query?q=" + json.dumps(SMQ), auth("all-key"), None).status_code == 200
    assert solves == []
    assert _send(lean, "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ, "limit": -1}).status_code == 422
    assert solves  # an invalid request is FastAPI's from its start


def test_dependency_overrides_are_honoured(models_dir: Path, keys_file: Path) -> None:
    from service import deps

    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file))

    async def nobody() -> Any:
        from service.errors import Forbidden

        raise Forbidden("overridden in the test", code="database_forbidden")

    app.dependency_overrides[deps.get_principal] = nobody
    with TestClient(app) as client:
        answer = _send(client, "POST", "/v1/databases/shop/query", auth("all-key"), {"smq": SMQ})
    assert answer.status_code == 403 and answer.json()["detail"] == "overridden in the test"
