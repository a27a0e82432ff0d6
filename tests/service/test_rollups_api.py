"""REST and rollups: a query answered from a rollup names it in Server-Timing, `?rollups=off` answers from the facts,
the answers are equal, /v1/metrics counts the hits, and explain lists the rollup used or why none was."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from engine import load_layer
from service.app import create_app
from service.settings import Settings
from smq_db import rollups
from smq_db.open import open_for_layer

from .conftest import auth, copy_layer

ROLLUPS = """
rollups:
  - name: orders_daily
    model: OrdersModel
    measures: [orderCount]
    dimensions: [channel, status]
    time_dimension: orderDate
    refresh: {every: 1h}
"""
SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"], "order_by": ["OrdersModel__channel"]}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path], keys_file: Path) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("rollup-models")
    data = Path(shutil.copy(demo_files["duckdb"], root / "warehouse.duckdb"))
    folder = copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(data)})
    (folder / "rollups.yml").write_text(ROLLUPS)
    layer = load_layer(folder)
    executor = open_for_layer(layer)
    rollups.build(layer, executor)
    executor.close()
    app = create_app(Settings(models_dir=root, api_keys_file=keys_file, max_rows=1000, query_timeout_s=20))
    with TestClient(app) as c:
        yield c


def test_answered_from_the_rollup_named_in_server_timing_and_off_on_request(client: TestClient) -> None:
    on = client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=auth("admin-key"))
    assert on.status_code == 200, on.text
    assert 'rollup;desc="orders_daily"' in on.headers["server-timing"]
    assert "smq_rollups.orders_daily" in on.json()["sql"]
    off = client.post("/v1/databases/shop/query?rollups=off", json={"smq": SMQ}, headers=auth("admin-key"))
    assert off.status_code == 200 and "rollup;" not in off.headers["server-timing"]
    assert "orders_daily" not in off.json()["sql"] and off.json()["rows"] == on.json()["rows"]
    paged = client.post("/v1/databases/shop/query", json={"smq": SMQ, "limit": 2}, headers=auth("admin-key"))
    assert paged.json()["rows"] == on.json()["rows"][:2] and "rollup;" in paged.headers["server-timing"]


def test_metrics_count_rollup_hits(client: TestClient) -> None:
    def hits() -> float:
        text = client.get("/v1/metrics", headers=auth("admin-key")).text
        return float(next(line.split()[-1] for line in text.splitlines() if line.startswith("smq_rollup_hits_total")))

    before = hits()
    client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=auth("admin-key"))
    assert hits() == before + 1


def test_explain_names_the_rollup_or_why_not(client: TestClient) -> None:
    answer = client.post("/v1/databases/shop/explain", json={"smq": SMQ}, headers=auth("admin-key"))
    assert answer.status_code == 200, answer.text
    assert answer.json()["rollups"] == [{"model": "OrdersModel", "rollup": "orders_daily", "why": "answered from rollup orders_daily"}]
    other = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__isShipped"]}
    (entry,) = client.post("/v1/databases/shop/explain", json={"smq": other}, headers=auth("admin-key")).json()["rollups"]
    assert entry["rollup"] is None and "isShipped" in entry["why"]
