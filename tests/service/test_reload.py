"""Reloading layers: a broken edit keeps the last good version serving and shows in /v1/ready."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings

from .conftest import copy_layer

SMQ = {"metrics": ["OrdersModel__orderCount"]}


@pytest.fixture
def layer_dir(tmp_path: Path, served_duckdb: Path) -> Path:
    root = tmp_path / "models"
    copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(served_duckdb)})
    return root


def make_client(root: Path, **settings: object) -> TestClient:
    return TestClient(create_app(Settings(models_dir=root, open_access=True, **settings)))


@pytest.fixture
def client(layer_dir: Path) -> Iterator[TestClient]:
    with make_client(layer_dir) as c:
        yield c


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def wait_for(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def test_broken_edit_keeps_last_good_version(client: TestClient, layer_dir: Path) -> None:
    before = client.get("/v1/databases/shop").json()["version"]
    edit(layer_dir / "shop" / "models" / "orders.yml", "agg: count", "agg: bogus")
    body = client.post("/v1/reload", json={}).json()
    assert body["reloaded"] == [] and list(body["failed"]) == ["shop"]
    error = body["failed"]["shop"][0]
    assert error["location"]["file"] == "shop/models/orders.yml" and error["location"]["line"] > 1
    ready = client.get("/v1/ready").json()
    assert ready["status"] == "degraded"
    (db,) = ready["databases"]
    assert db["status"] == "stale" and db["version"] == before and db["errors"][0] == error
    # still served, at the last good version
    assert client.get("/v1/databases/shop").json()["version"] == before
    assert client.post("/v1/databases/shop/query", json={"smq": SMQ}).json()["rows"] == [[5000]]


def test_good_edit_is_served_after_reload(client: TestClient, layer_dir: Path) -> None:
    executor_before = client.app.state.smq.registry.executor(client.app.state.smq.registry.entry("shop").layer)
    edit(layer_dir / "shop" / "models" / "orders.yml", "measures:\n", "measures:\n  - name: orderTotal\n    agg: count\n"
         "    expr: order_id\n    description: Orders again.\n")
    body = client.post("/v1/reload", json={}).json()
    assert body["reloaded"] == ["shop"] and body["failed"] == {}
    rows = client.post("/v1/databases/shop/query", json={"smq": {"metrics": ["OrdersModel__orderTotal"]}}).json()["rows"]
    assert rows == [[5000]]
    assert client.get("/v1/ready").json()["status"] == "ready"
    registry = client.app.state.smq.registry
    assert registry.executor(registry.entry("shop").layer) is executor_before  # same connection: executor kept


def test_removed_and_added_databases(client: TestClient, layer_dir: Path, served_duckdb: Path) -> None:
    copy_layer(layer_dir / "second", "second", {"backend": "duckdb", "path": str(served_duckdb)})
    assert client.post("/v1/reload", json={}).json()["reloaded"] == ["second"]
    shutil.rmtree(layer_dir / "second")
    assert client.post("/v1/reload", json={}).json()["removed"] == ["second"]
    assert client.get("/v1/databases/second").status_code == 404


def test_nothing_served_is_not_ready(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with make_client(tmp_path / "empty") as c:
        r = c.get("/v1/ready")
        assert r.status_code == 503 and r.json()["status"] == "not_ready"


def test_watcher_reloads_changed_files(layer_dir: Path) -> None:
    orders = layer_dir / "shop" / "models" / "orders.yml"
    with make_client(layer_dir, reload_models=True, reload_interval_s=0.05) as c:
        edit(orders, "One row per order placed", "Every order placed")

        def description() -> str:
            models = c.get("/v1/databases/shop").json()["models"]
            return next(m["description"] for m in models if m["name"] == "OrdersModel")

        wait_for(lambda: description().startswith("Every order placed"))
        edit(orders, "agg: count", "agg: bogus")
        wait_for(lambda: c.get("/v1/ready").json()["databases"][0]["status"] == "stale")
        assert description().startswith("Every order placed")  # the last good version
        edit(orders, "agg: bogus", "agg: count")
        wait_for(lambda: c.get("/v1/ready").json()["status"] == "ready")


def test_keys_file_is_reloaded_and_a_broken_one_keeps_the_old_keys(layer_dir: Path, tmp_path: Path) -> None:
    from service.auth import hash_key

    keys = tmp_path / "keys.yml"
    keys.write_text(f"keys:\n  - name: a\n    sha256: {hash_key('a')}\n    databases: ['*']\n    admin: true\n")
    with TestClient(create_app(Settings(models_dir=layer_dir, api_keys_file=keys))) as c:
        a, b = {"Authorization": "Bearer a"}, {"Authorization": "Bearer b"}
        assert c.get("/v1/databases", headers=b).status_code == 401
        keys.write_text(keys.read_text() + f"  - name: b\n    sha256: {hash_key('b')}\n    databases: [shop]\n")
        assert c.post("/v1/reload", headers=a, json={}).json()["keys_error"] is None
        assert c.get("/v1/databases", headers=b).status_code == 200
        keys.write_text("keys: [oops")
        assert "not valid YAML" in c.post("/v1/reload", headers=a, json={}).json()["keys_error"]
        assert c.get("/v1/databases", headers=b).status_code == 200  # the previous keys still apply
        assert c.get("/v1/ready", headers=a).json()["status"] == "degraded"
