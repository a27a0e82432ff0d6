"""`smq init` on the demo database in DuckDB, PostgreSQL and MariaDB: the layer validates, the dirty
customer key is found (UPPER(TRIM(customer_ref))), and compiled queries equal hand-written SQL.
PostgreSQL and MariaDB are skipped only when they are not reachable."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import load_layer
from smq_authoring import init_layer
from smq_authoring.modeltests import compare_rows

from ..conftest import MYSQL, PG_DSN

SCHEMA = f"smq_authoring_test_{os.getpid()}"
# orders per customer country, counting orders whose customer_ref is dirty (spaces, lower case) too
HAND = """
    SELECT n.nation_name, COUNT(*) FROM orders o
    LEFT JOIN customers c ON UPPER(TRIM(o.customer_ref)) = c.customer_code
    LEFT JOIN nations n ON c.nation_id = n.nation_id
    GROUP BY n.nation_name
"""
SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["customer.nation.NationsModel__nationName"]}


def check_layer(folder: Path, run: Callable[[str], list[Any]], *, models: int = 9, joins: int = 8) -> None:
    layer = load_layer(folder)
    edge = next(e for e in layer.semantic.joins if e.from_model == "OrdersModel" and e.to_model == "CustomersModel")
    assert edge.left.upper() == "UPPER(TRIM(CUSTOMER_REF))" and edge.right == "customer_code"
    assert layer.semantic.time_spine is not None and layer.semantic.time_spine.table.strip('"`') == "time_spine"
    assert len(layer.semantic.joins) == joins and len(layer.models) == models
    ok, message = compare_rows([], run(layer.compile(SMQ)), run(HAND), ordered=False, tolerance=1e-9)
    assert ok, message


def test_duckdb_demo(tmp_path: Path, cli) -> None:
    import duckdb

    from smq_db.demo.build import build_duckdb

    path = build_duckdb(tmp_path / "shop.duckdb")
    result = init_layer(f"duckdb:///{path}", "shopduck", tmp_path / "models" / "shopduck")
    assert all(link.origin == "inferred" and link.confidence >= 0.8 for link in result.links)  # no FK is declared
    conn = duckdb.connect(str(path), read_only=True)
    try:
        check_layer(result.layer_dir, lambda sql: [list(r) for r in conn.execute(sql).fetchall()])
    finally:
        conn.close()
    code, out, _ = cli("test", "--models-dir", tmp_path / "models")
    assert code == 0 and "FAIL" not in out


@pytest.fixture
def postgres() -> Any:
    psycopg = pytest.importorskip("psycopg")
    from smq_db.demo.build import load_into

    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {exc}")
    load_into(conn, "postgres", schema=SCHEMA)
    conn.execute(f'CREATE TABLE {SCHEMA}."Order Notes" ("NoteId" INT PRIMARY KEY, "OrderId" INT REFERENCES {SCHEMA}.orders(order_id), '
                 '"Note Text" TEXT)')
    conn.execute(f'INSERT INTO {SCHEMA}."Order Notes" SELECT n, 100000 + n, %s FROM generate_series(1, 5) n', ("a note",))
    conn.execute(f"COMMENT ON COLUMN {SCHEMA}.orders.channel IS 'Where the order was placed'")
    yield conn
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    conn.close()


def test_postgres(postgres: Any, tmp_path: Path, cli) -> None:
    url = f"postgresql://postgres@127.0.0.1:5432/test?schema={SCHEMA}"
    result = init_layer(url, "shoppg", tmp_path / "models" / "shoppg")
    postgres.execute(f"SET search_path TO {SCHEMA}")

    def run(sql: str) -> list[Any]:
        return [list(r) for r in postgres.execute(sql).fetchall()]

    layer = load_layer(result.layer_dir)
    notes = layer.models["OrderNotesModel"]
    assert notes.table == '"Order Notes"' and notes.dimensions["noteText"].expr == '"Note Text"'
    assert notes.dimensions["orderId"].expr == '"OrderId"'  # mixed case is quoted in PostgreSQL
    assert layer.models["OrdersModel"].dimensions["channel"].description.startswith("Where the order was placed.")
    declared = next(e for e in layer.semantic.joins if e.from_model == "OrderNotesModel")
    assert (declared.left, declared.right) == ('"OrderId"', "order_id")
    ok, message = compare_rows([], run(layer.compile({"metrics": ["OrderNotesModel__orderNoteCount"], "group_by": ["OrdersModel__channel"]})),
                               run('SELECT o.channel, COUNT(*) FROM "Order Notes" n LEFT JOIN orders o ON n."OrderId" = o.order_id GROUP BY 1'),
                               ordered=False, tolerance=1e-9)
    assert ok, message
    check_layer(result.layer_dir, run, models=10, joins=9)
    code, out, _ = cli("test", "--models-dir", tmp_path / "models")
    assert code == 0 and "FAIL" not in out


@pytest.fixture
def mariadb() -> Any:
    pymysql = pytest.importorskip("pymysql")
    from smq_db.demo.build import load_into

    try:
        conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
    except pymysql.err.OperationalError as exc:
        pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}:3306: {exc}")
    load_into(conn, "mysql", schema=SCHEMA)
    conn.select_db(SCHEMA)
    yield conn
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {SCHEMA}")
    conn.close()


def test_mariadb(mariadb: Any, tmp_path: Path, cli) -> None:
    result = init_layer(f"mysql://root@127.0.0.1:3306/{SCHEMA}", "shopmy", tmp_path / "models" / "shopmy")

    def run(sql: str) -> list[Any]:
        with mariadb.cursor() as cur:
            cur.execute(sql)
            return [list(r) for r in cur.fetchall()]

    check_layer(result.layer_dir, run)
    layer = load_layer(result.layer_dir)
    assert layer.semantic.connection == {"backend": "mysql", "host": "127.0.0.1", "port": 3306, "user": "root", "database": SCHEMA}
    code, out, _ = cli("test", "--models-dir", tmp_path / "models")
    assert code == 0 and "FAIL" not in out
