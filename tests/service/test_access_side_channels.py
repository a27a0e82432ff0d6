"""Row filters that cannot be outrun, through the service: the issue's requests as a German-only key sends them.

Its own app over the demo on DuckDB, PostgreSQL and MariaDB (a schema/database per run, dropped
afterwards). A key with a role must get answers within its rows, never an error caused by a row
its filters remove, and never the database's own error text (it can quote values).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings
from tests.conftest import MYSQL, PG_DSN

from .conftest import auth, copy_layer

RUN = uuid.uuid4().hex[:8]
PG_SCHEMA, MY_DATABASE = f"smq_side_{RUN}", f"smq_side_{RUN}"
KEYS = {"side-admin": {"name": "admin", "databases": ["*"], "admin": True},
        "side-de": {"name": "de", "databases": ["*"], "role": "de_analyst"}}
ADMIN, DE = auth("side-admin"), auth("side-de")


def _postgres() -> Iterator[bool]:
    psycopg = pytest.importorskip("psycopg")
    from smq_db.demo.build import load_into

    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        yield False
        return
    load_into(conn, "postgres", schema=PG_SCHEMA)
    yield True
    conn.execute(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
    conn.close()


def _mariadb() -> Iterator[bool]:
    pymysql = pytest.importorskip("pymysql")
    from smq_db.demo.build import load_into

    try:
        conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=3)
    except pymysql.err.OperationalError:
        yield False
        return
    load_into(conn, "mysql", schema=MY_DATABASE)
    yield True
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {MY_DATABASE}")
    conn.close()


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, bool]]:
    pg, my = _postgres(), _mariadb()
    up = {"postgres": next(pg), "mysql": next(my)}
    yield up
    for gen in (pg, my):
        next(gen, None)


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path], servers: dict[str, bool]) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("side_models")
    duck = shutil.copy(demo_files["duckdb"], tmp_path_factory.mktemp("side_duck") / "shop.duckdb")
    copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(duck)})
    if servers["postgres"]:
        copy_layer(root / "shop_pg", "shop_pg", {"backend": "postgres", "host": "127.0.0.1", "user": "postgres",
                                                 "database": "test", "schema": PG_SCHEMA}, dialect="postgres")
    if servers["mysql"]:
        copy_layer(root / "shop_my", "shop_my", {"backend": "mysql", "host": MYSQL["host"], "user": MYSQL["user"],
                                                 "database": MY_DATABASE}, dialect="mysql")
    keys = tmp_path_factory.mktemp("side_keys") / "keys.yml"
    keys.write_text(yaml.safe_dump({"keys": [{**e, "sha256": hashlib.sha256(k.encode()).hexdigest()} for k, e in KEYS.items()]}))
    app = create_app(Settings(models_dir=root, api_keys_file=keys, max_rows=1000, query_timeout_s=20))
    with TestClient(app) as client:
        yield client


def database(servers: dict[str, bool], name: str) -> str:
    db = {"duckdb": "shop", "postgres": "shop_pg", "mysql": "shop_my"}[name]
    if name != "duckdb" and not servers[name]:
        pytest.skip(f"{name} is not reachable")
    return db


@pytest.fixture(scope="module")
def target(app_client: TestClient) -> dict[str, Any]:
    """A customer outside Germany, found with the admin key: the row de_analyst must learn nothing about."""
    sql = ("SELECT c.customer_id, c.customer_code, c.segment FROM customers c JOIN nations n ON c.nation_id = n.nation_id "
           "WHERE n.nation_name <> 'Germany' ORDER BY 1 LIMIT 1")
    [[cid, code, segment]] = app_client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=ADMIN).json()["rows"]
    return {"id": cid, "code": code, "segment": segment}


def raw_requests(engine: str, t: dict[str, Any]) -> list[str]:
    cid, seg = t["id"], t["segment"]
    out = [
        f"SELECT COUNT(*) FROM customers WHERE CASE WHEN customer_id = {cid} THEN "
        "CAST(customer_code || '/' || segment AS INT) ELSE 0 END = 1",
        f"SELECT COUNT(*) FROM customers WHERE 1 / (CASE WHEN customer_id = {cid} AND segment = '{seg}' THEN 0 ELSE 1 END) = 1",
    ]
    if engine == "mysql":  # MariaDB divides by zero into NULL; an overflow is its error
        out.append(f"SELECT COUNT(*) FROM customers WHERE customer_id = {cid} AND "
                   f"9223372036854775807 + (CASE WHEN segment = '{seg}' THEN 1 ELSE 0 END) > 0")
    return out


def smq_requests(t: dict[str, Any]) -> list[dict[str, Any]]:
    guess = f"CustomersModel__customerCode = '{t['code']}' AND CustomersModel__segment = '{t['segment']}'"
    filters = [f"CASE WHEN CustomersModel__customerCode = '{t['code']}' THEN "
               "CAST(CustomersModel__customerCode || '/' || CustomersModel__segment AS INT) ELSE 0 END = 1",
               f"1 / (CASE WHEN {guess} THEN 0 ELSE 1 END) = 1",
               f"9223372036854775807 + (CASE WHEN {guess} THEN 1 ELSE 0 END) > 0"]
    return [{"metrics": ["CustomersModel__customerCount"], "filters": [f]} for f in filters]


@pytest.mark.parametrize("engine", ["duckdb", "postgres", "mysql"])
def test_execute_attacks_are_answered_within_the_roles_rows(app_client: TestClient, servers: dict[str, bool],
                                                            target: dict[str, Any], engine: str) -> None:
    db = database(servers, engine)
    for sql in raw_requests(engine, target):
        r = app_client.post(f"/v1/databases/{db}/execute", json={"sql": sql}, headers=DE)
        assert r.status_code == 200, (engine, sql, r.text)  # before: 400 "invalid input syntax ... "C00001/consumer""
        assert target["code"] not in r.text


@pytest.mark.parametrize("engine", ["duckdb", "postgres", "mysql"])
def test_query_filter_attacks_are_answered_within_the_roles_rows(app_client: TestClient, servers: dict[str, bool],
                                                                 target: dict[str, Any], engine: str) -> None:
    db = database(servers, engine)
    for smq in smq_requests(target):
        r = app_client.post(f"/v1/databases/{db}/query", json={"smq": smq}, headers=DE)
        assert r.status_code == 200, (engine, smq, r.text)


@pytest.mark.parametrize("engine", ["duckdb", "postgres", "mysql"])
def test_a_cte_standing_in_for_a_filter_table_is_refused(app_client: TestClient, servers: dict[str, bool], engine: str) -> None:
    db = database(servers, engine)
    rows = {"duckdb": "SELECT unnest(range(0, 1000)) AS nation_id", "postgres": "SELECT generate_series(0, 1000) AS nation_id",
            "mysql": "SELECT 1 AS nation_id"}[engine]
    sql = f"WITH nations AS ({rows}, 'Germany' AS nation_name) SELECT count(*) FROM orders"
    r = app_client.post(f"/v1/databases/{db}/execute", json={"sql": sql}, headers=DE)
    assert r.status_code == 403 and r.json()["code"] == "raw_sql_refused", r.text


def test_database_error_text_is_withheld_from_a_role_and_logged(app_client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    sql = "SELECT CAST(customer_code || '/' || segment AS INT) FROM customers"
    admin = app_client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=ADMIN)
    assert admin.status_code == 400 and "Could not convert" in admin.json()["detail"]  # keys without a role: as before
    with caplog.at_level(logging.WARNING, logger="smq.db"):
        r = app_client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=DE)
    body = r.json()
    assert r.status_code == 400 and body["code"] == "execution_failed"
    assert "Could not convert" not in r.text and "/" not in body["detail"].split("(")[0]
    error_id = body["detail"].split("error id ")[1].split(")")[0]
    [logged] = [rec.getMessage() for rec in caplog.records if error_id in rec.getMessage()]
    assert "Could not convert" in logged and "\n" not in logged
    # the exploration tools (MCP and the agent use the same executor) withhold it too
    tool = app_client.post("/v1/databases/shop/tools/readQuery", json={"sql": sql}, headers=DE).json()
    assert "Could not convert" not in json_text(tool) and "error id" in json_text(tool)


def json_text(value: Any) -> str:
    return yaml.safe_dump(value)
