"""The lineage attack over HTTP: a key whose role hides CustomersModel__customerCode lists no code through the join key
OrdersModel__customerRef (the same values), by SMQ, by Cube's /load, in Cube's /meta, or by raw SQL on /execute."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings

from .conftest import auth, copy_layer

KEY = "no-codes-key"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, served_duckdb: Path) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("lineage_models")
    layer = copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(served_duckdb)})
    config = yaml.safe_load((layer / "database.yml").read_text(encoding="utf-8"))
    config["access"]["roles"]["no_codes"] = {"hidden": ["CustomersModel__customerCode"]}
    (layer / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    keys = tmp_path_factory.mktemp("lineage_keys") / "keys.yml"
    entry = {"name": "no-codes", "databases": ["shop"], "role": "no_codes", "sha256": hashlib.sha256(KEY.encode()).hexdigest()}
    keys.write_text(yaml.safe_dump({"keys": [entry]}), encoding="utf-8")
    with TestClient(create_app(Settings(models_dir=root, api_keys_file=keys, max_rows=1000))) as c:
        yield c


def test_smq_refuses_the_join_key_that_holds_the_codes(client: TestClient) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__customerRef"]}
    answer = client.post("/v1/databases/shop/query", json={"smq": smq}, headers=auth(KEY))
    assert answer.status_code == 400 and answer.json()["code"] == "unknown_element", answer.text
    by_country = {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]}
    assert client.post("/v1/databases/shop/query", json={"smq": by_country}, headers=auth(KEY)).status_code == 200


def test_cube_neither_lists_nor_loads_it(client: TestClient) -> None:
    meta = client.get("/cubejs-api/v1/meta", headers=auth(KEY)).json()
    members = {m["name"] for c in meta["cubes"] for m in c["measures"] + c["dimensions"]}
    assert "OrdersModel.orderCount" in members
    assert not members & {"OrdersModel.customerRef", "CustomersModel.customerCode"}
    load = client.post("/cubejs-api/v1/load", json={"query": {"measures": ["OrdersModel.orderCount"],
                                                             "dimensions": ["OrdersModel.customerRef"]}}, headers=auth(KEY))
    assert load.status_code == 400 and "customerRef" in load.json()["error"]


def test_raw_sql_cannot_read_the_column(client: TestClient) -> None:
    answer = client.post("/v1/databases/shop/execute", json={"sql": "SELECT DISTINCT customer_ref FROM orders"}, headers=auth(KEY))
    assert answer.status_code in (400, 403), answer.text
    assert "customer_ref" in answer.text and "C0" not in answer.text
