"""Every route made for a caller admits it through one gate (`service.deps.admit`): the key is checked, the request
takes one of the key's quota slots, its answer says `Vary: Authorization`. Before, the Cube routes authenticated on
their own: while a key held its 8 slots, `/query` answered 429 but `/cubejs-api/v1/load`, `/sql` and `/meta` 200.

The routes are enumerated from the app, so a route added later without the gate fails here, and each one is then
called while the key's slots are taken."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from service import deps
from service.app import create_app
from service.browser_guards import require_json_request
from service.mcp.server import build_server, http_app
from service.settings import Settings

from .conftest import auth

# routes that serve no caller's data, each with the reason it needs no key
PUBLIC = {
    "/openapi.json": "the API's description",
    "/docs": "Swagger UI page (static)",
    "/redoc": "ReDoc page (static)",
    "/docs-assets": "the two pages' scripts (static files)",
    "/v1/health": "liveness probe",
    "/v1/ready": "readiness probe: anonymous callers get counts only; a key, when sent, is checked (401) but takes no slot",
    "/": "the playground's page (static; it calls the API with the user's key)",
    "/playground": "the playground's page",
    "/playground/": "the playground's page",
    "/playground/assets/{name}": "the playground's scripts and styles (static)",
}
PATH_VALUES = {"db": "shop", "name": "listTables", "run_id": "r1"}


def _calls(dependant: Any) -> Iterator[Any]:
    yield dependant.call
    for sub in dependant.dependencies:
        yield from _calls(sub)


def _routes(app: Any) -> list[tuple[str, set[str], set[Any]]]:
    out = []
    for route in iter_route_contexts(app.routes):
        dependant = getattr(route, "dependant", None)
        out.append((route.path, set(route.methods or ()), set(_calls(dependant)) if dependant is not None else set()))
    return out


@pytest.fixture(scope="module")
def app(models_dir: Path, keys_file: Path) -> Any:
    return create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, max_inflight_per_key=2))


def test_every_route_admits_its_caller_through_the_one_gate(app: Any) -> None:
    routes = _routes(app)
    assert len(routes) > 20 and any(p.startswith("/cubejs-api") for p, _, _ in routes)
    ungated = [path for path, _, calls in routes
               if path not in PUBLIC and not calls & set(deps.ADMITTING_DEPENDENCIES)]
    assert not ungated, f"routes that do not admit their caller through service.deps.admit: {ungated}"
    assert {p for p, _, _ in routes} >= set(PUBLIC) - {"/docs-assets"}  # no stale entry hides a renamed route


def test_every_state_changing_admin_route_takes_only_json(app: Any) -> None:
    admin_posts = [(path, calls) for path, methods, calls in routes_of(app)
                   if "POST" in methods and deps.require_admin in calls]
    assert admin_posts, "no admin POST route found"
    assert all(require_json_request in calls for _, calls in admin_posts), [p for p, _ in admin_posts]


def routes_of(app: Any) -> list[tuple[str, set[str], set[Any]]]:
    return _routes(app)


def _take_slots(app: Any, key_name: str) -> int:
    quota = app.state.smq.quota
    taken = 0
    while asyncio.run(quota.acquire(key_name)):
        taken += 1
    return taken


def _give_back(app: Any, key_name: str, taken: int) -> None:
    for _ in range(taken):
        asyncio.run(app.state.smq.quota.release(key_name))


def test_every_gated_route_answers_429_while_the_key_holds_its_slots(app: Any) -> None:
    with TestClient(app) as client:
        taken = _take_slots(app, "shop-only")
        try:
            for path, methods, _ in _routes(app):
                if path in PUBLIC:
                    continue
                url = path.format(**PATH_VALUES)
                for method in sorted(methods - {"HEAD"}):
                    r = client.request(method, url, headers={**auth("shop-key"), "Content-Type": "application/json"},
                                       json={} if method == "POST" else None)
                    assert r.status_code == 429, (method, path, r.status_code, r.text[:200])
                    assert r.headers["retry-after"] == "1", (method, path)
            # another key is served meanwhile, on the Cube routes as on REST
            assert client.get("/cubejs-api/v1/meta", headers={"Authorization": "all-key", "X-SMQ-Database": "shop"}
                              ).status_code == 200
        finally:
            _give_back(app, "shop-only", taken)
        assert client.get("/cubejs-api/v1/meta", headers={"Authorization": "shop-key"}).status_code == 200


def test_cube_routes_answer_429_in_cubes_error_shape(app: Any) -> None:
    with TestClient(app) as client:
        taken = _take_slots(app, "shop-only")
        try:
            query = {"query": {"measures": ["OrdersModel.orderCount"]}}
            for r in (client.post("/cubejs-api/v1/load", json=query, headers={"Authorization": "shop-key"}),
                      client.post("/cubejs-api/v1/sql", json=query, headers={"Authorization": "Bearer shop-key"}),
                      client.get("/cubejs-api/v1/meta", headers={"Authorization": "shop-key"})):
                assert r.status_code == 429 and r.json()["code"] == "too_many_requests"
                assert "SMQ_MAX_INFLIGHT_PER_KEY" in r.json()["error"]
        finally:
            _give_back(app, "shop-only", taken)
        wrong = client.get("/cubejs-api/v1/meta", headers={"Authorization": "nope"})
        assert wrong.status_code == 401 and wrong.json()["error"]


def test_mcp_over_http_admits_each_request_through_the_same_gate(app: Any) -> None:
    state = app.state.smq
    mcp = TestClient(http_app(build_server(state), state))
    assert mcp.post("/mcp", json={}).status_code == 401
    taken = _take_slots(app, "shop-only")
    try:
        r = mcp.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=auth("shop-key"))
        assert r.status_code == 429 and r.json()["code"] == "too_many_requests" and r.headers["retry-after"] == "1"
    finally:
        _give_back(app, "shop-only", taken)
    assert state.quota.in_flight("shop-only") == 0
