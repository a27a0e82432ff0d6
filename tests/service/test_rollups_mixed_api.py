"""REST and mixed rollup queries (engine/rollups/mix.py): an aggregation answered from the embedded store beside one
from the facts names its rollup in Server-Timing and gives the facts' rows, whole and paged; explain lists both."""

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
from .test_rollups_api import ROLLUPS

MIXED = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__channel"],
         "order_by": ["OrdersModel__channel"]}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path], keys_file: Path) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("rollup-mixed-models")
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


def test_a_mixed_query_names_its_rollup_and_equals_the_facts(client: TestClient) -> None:
    on = client.post("/v1/databases/shop/query", json={"smq": MIXED}, headers=auth("admin-key"))
    assert on.status_code == 200, on.text
    assert 'rollup;desc="orders_daily"' in on.headers["server-timing"]
    assert "__smq_rollup_rows_" in on.json()["sql"]  # the SQL shown: the warehouse's query and the table of given rows
    off = client.post("/v1/databases/shop/query?rollups=off", json={"smq": MIXED}, headers=auth("admin-key"))
    assert off.status_code == 200 and "rollup;" not in off.headers["server-timing"]
    assert off.json()["rows"] == on.json()["rows"] and len(on.json()["rows"]) == 3
    paged = client.post("/v1/databases/shop/query", json={"smq": MIXED, "limit": 2, "offset": 1}, headers=auth("admin-key"))
    assert paged.status_code == 200, paged.text
    assert paged.json()["rows"] == on.json()["rows"][1:3] and "rollup;" in paged.headers["server-timing"]


def test_explain_lists_each_aggregation_and_the_part(client: TestClient) -> None:
    answer = client.post("/v1/databases/shop/explain", json={"smq": MIXED}, headers=auth("admin-key")).json()
    assert [(e["model"], e["rollup"]) for e in answer["rollups"]] == [("OrdersModel", "orders_daily"), ("PaymentsModel", None)]
    assert answer["rollups"][1]["why"] == "no rollup of PaymentsModel"
