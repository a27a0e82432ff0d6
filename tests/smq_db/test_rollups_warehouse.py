"""Rollups stored in the warehouse itself on PostgreSQL and MariaDB (`storage: {warehouse: true, ...}`): built with
the storage's write-capable login into a schema (a database on MariaDB) of their own, routed there (rollups and facts
mixed in one query, in the warehouse's SQL), and refreshed after a fact row changed. Each test loads the demo into a
schema named for this run and drops both schemas after. (SQLite: tests/smq_db/test_rollups_build.py.)"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Layer, load_layer
from smq_db import rollups
from smq_db.compiled import compiled_sql
from smq_db.demo.build import load_into
from smq_db.open import open_for_layer

from ..conftest import DEMO_MODELS, MYSQL, PG_DSN
from ..engine.test_engines import assert_same_rows

pytestmark = pytest.mark.slow  # each loads the demo onto a server (about 5 s)
FACTS = f"smq_rollupwh_facts_{os.getpid()}"
STORE = f"smq_rollupwh_store_{os.getpid()}"
ROLLUPS = """
rollups:
  - name: orders_daily
    model: OrdersModel
    measures: [orderCount, customerCount, lastOrderDate]
    dimensions: [channel, status, CustomersModel__segment]
    time_dimension: orderDate
    grain: day
    refresh: {every: 1h}
  - name: orders_monthly
    model: OrdersModel
    measures: [orderCount]
    dimensions: [channel]
    time_dimension: orderDate
    grain: month
    refresh: {every: 1h}
"""
BY_STATUS = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"], "order_by": ["OrdersModel__status"]}
MIXED = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__channel"],
         "order_by": ["OrdersModel__channel"]}
BY_QUARTER = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__quarter"]}


def _postgres() -> tuple[dict, dict, Callable[[str], None], Callable[[], None]]:
    psycopg = pytest.importorskip("psycopg")
    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {exc}")
    load_into(conn, "postgres", schema=FACTS)

    def drop() -> None:
        for schema in (FACTS, STORE):
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")  # ours, named for this run
        conn.close()
    return ({"backend": "postgres", "url": PG_DSN, "schema": FACTS}, {"backend": "postgres", "url": PG_DSN},
            lambda sql: conn.execute(f"SET search_path TO {FACTS}; {sql}"), drop)


def _mysql() -> tuple[dict, dict, Callable[[str], None], Callable[[], None]]:
    pymysql = pytest.importorskip("pymysql")
    try:
        conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
    except pymysql.err.OperationalError as exc:
        pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}:3306: {exc}")
    load_into(conn, "mysql", schema=FACTS)

    def run(sql: str) -> None:
        conn.select_db(FACTS)
        conn.cursor().execute(sql)

    def drop() -> None:
        for database in (FACTS, STORE):
            conn.cursor().execute(f"DROP DATABASE IF EXISTS {database}")  # ours, named for this run
        conn.close()
    return {"backend": "mysql", **MYSQL, "database": FACTS}, {"backend": "mysql", **MYSQL}, run, drop


@pytest.fixture(params=["postgres", "mysql"])
def warehouse(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Layer, Callable[[str], None]]]:
    """(engine, the demo layer deployed there with its rollups stored there, a function changing fact rows)."""
    engine = request.param
    reading, writing, change, drop = _postgres() if engine == "postgres" else _mysql()
    try:
        folder = tmp_path / "shop"
        shutil.copytree(DEMO_MODELS / "shop", folder, ignore=shutil.ignore_patterns("data"))
        text = (folder / "database.yml").read_text().replace("dialect: duckdb", f"dialect: {engine}", 1)
        (folder / "database.yml").write_text(re.sub(r"^connection:\n(?:  .*\n)+", f"connection: {json.dumps(reading)}\n", text,
                                                    count=1, flags=re.M))
        storage = {"warehouse": True, "schema": STORE, "connection": writing}
        (folder / "rollups.yml").write_text(f"storage: {json.dumps(storage)}\n{ROLLUPS}")
        yield engine, load_layer(folder), change
    finally:
        drop()


def run(layer: Layer, executor: Any, smq: dict, **kw: Any) -> list[tuple]:
    return [tuple(r) for r in executor.execute(compiled_sql(layer, smq, **kw)).rows]


def test_built_routed_and_refreshed_in_the_warehouse(warehouse: tuple[str, Layer, Callable[[str], None]]) -> None:
    engine, layer, change = warehouse
    executor = open_for_layer(layer)
    try:
        assert [r["built"] for r in rollups.status(layer, executor)] == [False, False]
        lines: list[str] = []
        built = rollups.build(layer, executor, progress=lines.append)
        assert [b.name for b in built] == ["orders_daily", "orders_monthly"] and all(b.rows > 10 for b in built), lines
        assert all(r["built"] and r["used"] for r in rollups.status(layer, executor))
        routed = layer.compile_routed(MIXED)
        assert (routed.store, routed.rollups, routed.dialect) == ("warehouse", ("orders_monthly",), engine)
        assert f"{STORE}" in layer.compile(MIXED)  # the warehouse's SQL reads the stored rollup beside the facts
        assert layer.compile_routed(BY_STATUS).rollups == ("orders_daily",)
        assert layer.compile_routed(BY_QUARTER).rollups == ("orders_monthly",)
        for smq in (MIXED, BY_STATUS, BY_QUARTER):
            assert_same_rows(run(layer, executor, smq), run(layer, executor, smq, rollups=False), False, f"{smq} on {engine}")

        before = run(layer, executor, BY_STATUS)
        change("UPDATE orders SET status = 'returned' WHERE TRIM(status) = 'pending'")
        assert run(layer, executor, BY_STATUS) == before  # within its hour: the rollup, as built
        facts = run(layer, executor, BY_STATUS, rollups=False)
        assert facts != before and not any(row[0] == "pending" for row in facts)
        rollups.build(layer, executor, ["orders_daily"])
        assert_same_rows(run(layer, executor, BY_STATUS), facts, True, f"after the rebuild on {engine}")
    finally:
        executor.close()


def test_a_failed_build_leaves_the_previous_table(warehouse: tuple[str, Layer, Callable[[str], None]]) -> None:
    engine, layer, change = warehouse
    executor = open_for_layer(layer)
    try:
        rollups.build(layer, executor, ["orders_daily"])
        answer = run(layer, executor, BY_STATUS)
        change("ALTER TABLE orders RENAME COLUMN channel TO sales_channel")
        with pytest.raises(Exception):  # noqa: B017 - the driver's own error: the column is gone
            rollups.build(layer, executor, ["orders_daily"])
        assert rollups.status(layer, executor)[0]["used"] and layer.compile_routed(BY_STATUS).rollups == ("orders_daily",)
        assert run(layer, executor, BY_STATUS) == answer
    finally:
        executor.close()
