"""A key with row filters sees its answers' SQL with the filters' values named, not spelled out (`= 'Germany'` was
in the `sql` of /query, /compile and Cube's /sql), unless its role says `show_filters: true`; the rows are its own
either way."""

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

SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
KEYS = {"de-key": "de_analyst", "open-de-key": "open_de"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, served_duckdb: Path) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("shown_models")
    layer = copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(served_duckdb)})
    config = yaml.safe_load((layer / "database.yml").read_text(encoding="utf-8"))
    config["access"]["roles"]["open_de"] = {"row_filters": ["NationsModel__country = 'Germany'"], "show_filters": True}
    (layer / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    keys = tmp_path_factory.mktemp("shown_keys") / "keys.yml"
    entries = [{"name": key, "databases": ["shop"], "role": role, "sha256": hashlib.sha256(key.encode()).hexdigest()}
               for key, role in KEYS.items()]
    keys.write_text(yaml.safe_dump({"keys": entries}), encoding="utf-8")
    with TestClient(create_app(Settings(models_dir=root, api_keys_file=keys, max_rows=1000))) as c:
        yield c


def _shown(client: TestClient, key: str) -> list[str]:
    query = client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=auth(key))
    compiled = client.post("/v1/databases/shop/compile", json={"smq": SMQ}, headers=auth(key))
    cube = client.post("/cubejs-api/v1/sql", json={"query": {"measures": ["OrdersModel.orderCount"],
                                                             "dimensions": ["OrdersModel.channel"]}}, headers=auth(key))
    explain = client.post("/v1/databases/shop/explain", json={"smq": SMQ}, headers=auth(key))
    for answer in (query, compiled, cube, explain):
        assert answer.status_code == 200, answer.text
    return [query.json()["sql"], compiled.json()["sql"], cube.json()["sql"]["sql"][0], explain.json()["sql"]]


def test_the_role_sees_its_filters_named_not_spelled_out(client: TestClient) -> None:
    for sql in _shown(client, "de-key"):
        assert "Germany" not in sql
        assert "de_analyst_filter1_value1" in sql and "nation_name" in sql


def test_the_rows_are_the_roles_own_all_the_same(client: TestClient) -> None:
    named = client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=auth("de-key")).json()["rows"]
    spelled = client.post("/v1/databases/shop/query", json={"smq": SMQ}, headers=auth("open-de-key")).json()["rows"]
    assert named == spelled and named


def test_a_role_may_allow_its_filters_to_be_shown(client: TestClient) -> None:
    assert all("'Germany'" in sql for sql in _shown(client, "open-de-key"))

