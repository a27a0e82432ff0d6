"""One real engine per backend, each holding the same small ``items`` table.

SQLite and DuckDB are files in tmp_path; PostgreSQL (schema smq_exec_test) and MariaDB (database
smq_exec_test) are the local servers, skipped with the reason when unreachable; Snowflake is
fakesnow; BigQuery is the real client library talking to a DuckDB-backed fake REST API.
Each ``Backend`` also knows a slow query and how to try a write *around* the guard.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from smq_db.executors.base import Executor

PG_DSN = os.environ.get("SMQ_TEST_PG", "host=127.0.0.1 port=5432 user=postgres dbname=test")
MYSQL = {"host": os.environ.get("SMQ_TEST_MYSQL_HOST", "127.0.0.1"), "port": 3306, "user": "root", "password": ""}
SCHEMA = "smq_exec_test"

ROWS = [  # id, name, day, ts, price, flag, note
    (1, "apple", "2024-01-31", "2024-01-31 12:30:00", "12.50", True, None),
    (2, "pear", "2024-02-29", "2024-02-29 00:00:00", "0.10", False, "ripe"),
    (3, "fig", None, None, None, None, "x"),
]
# what row 1 looks like through the executor (SQLite has no date/decimal/bool types; MySQL BOOLEAN is TINYINT)
TYPED_ROW = ["2024-01-31", "2024-01-31T12:30:00", 12.5, True, None]
EXPECTED_ROW_1 = {
    "sqlite": ["2024-01-31", "2024-01-31 12:30:00", 12.5, 1, None],
    "mysql": ["2024-01-31", "2024-01-31T12:30:00", 12.5, 1, None],
}


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value) + "'"


def slow_query_tag() -> str:
    """A name unique to this run, carried by the slow query (as a column alias) so that counting the
    copies still running on a shared server counts this run's and no other client's."""
    return f"smq_slow_{uuid.uuid4().hex[:12]}"


def insert_sql(table: str = "items") -> str:
    """INSERT of ROWS with plain literals; every engine casts them to the column types."""
    values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in ROWS)
    return f"INSERT INTO {table} (id, name, day, ts, price, flag, note) VALUES {values}"


@dataclass
class Backend:
    name: str
    executor: Executor
    slow_sql: str  # runs for minutes unless cancelled
    raw_write: Callable[[], str] | None  # writes around the guard; returns the engine's refusal
    cleanup: list[Callable[[], None]] = field(default_factory=list)
    # server engines: how many copies of slow_sql still run, seen from another session. In-process
    # engines (SQLite, DuckDB, fakesnow) need none: execute() returning at all means they stopped.
    still_running: Callable[[], int] | None = None
    fake: Any = None  # BigQuery: the FakeBigQuery session, to inspect the requests it saw
    admin: Any = None  # MySQL: a second, writable session for tests that poke the server

    @property
    def expected_row_1(self) -> list:
        return EXPECTED_ROW_1.get(self.name, TYPED_ROW)


def _expect_refusal(action: Callable[[], Any]) -> str:
    try:
        action()
    except Exception as error:  # noqa: BLE001 - any driver error is the refusal we want to see
        return str(error)
    raise AssertionError("the connection accepted a write")


# ---- builders ------------------------------------------------------------------------------------

def sqlite_backend(tmp: Path) -> Backend:
    from smq_db.executors.sqlite import SqliteExecutor

    path = tmp / "items.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE items (id INTEGER, name TEXT, day TEXT, ts TEXT, price REAL, flag BOOLEAN, note TEXT)")
    conn.execute(insert_sql())
    conn.commit()
    conn.close()
    executor = SqliteExecutor(path)

    def raw_write() -> str:
        conn = executor._pool.acquire()
        try:
            return _expect_refusal(lambda: conn.execute("INSERT INTO items (id) VALUES (99)"))
        finally:
            executor._pool.release(conn)

    slow = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    return Backend("sqlite", executor, slow, raw_write)


def duckdb_backend(tmp: Path) -> Backend:
    import duckdb

    from smq_db.executors.duckdb import DuckDBExecutor

    path = tmp / "items.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE items (id INTEGER, name VARCHAR, day DATE, ts TIMESTAMP, price DECIMAL(10,2), flag BOOLEAN, note VARCHAR)")
    conn.execute(insert_sql())
    conn.close()
    executor = DuckDBExecutor(path)

    def raw_write() -> str:
        return _expect_refusal(lambda: executor._db.cursor().execute("INSERT INTO items (id) VALUES (99)"))

    return Backend("duckdb", executor, "SELECT count(*) FROM range(1000000000000) a", raw_write)


def duckdb_worker_backend(tmp: Path) -> Backend:
    """DuckDB as the factory opens it: each query in a worker process under the database's memory limit."""
    from smq_db.executors import create_executor
    from smq_db.executors.duckdb import DuckDBExecutor

    built = duckdb_backend(tmp)
    built.executor.close()
    path = tmp / "items.duckdb"
    executor = create_executor({"backend": "duckdb", "path": str(path), "limits": {"workers": 2}}, base_dir=tmp)

    def raw_write() -> str:  # the connection a worker opens, in this process: read-only and locked the same way
        own = DuckDBExecutor(path)
        try:
            return _expect_refusal(lambda: own._db.cursor().execute("INSERT INTO items (id) VALUES (99)"))
        finally:
            own.close()

    return Backend("duckdb", executor, built.slow_sql, raw_write)


def postgres_backend() -> Backend:
    psycopg = pytest.importorskip("psycopg")
    from smq_db.executors.postgres import PostgresExecutor

    try:
        admin = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {error}")
    admin.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    admin.execute(f"CREATE SCHEMA {SCHEMA}")
    admin.execute(f"CREATE TABLE {SCHEMA}.items "
                  "(id INTEGER, name TEXT, day DATE, ts TIMESTAMP, price NUMERIC(10,2), flag BOOLEAN, note TEXT)")
    admin.execute(insert_sql(f"{SCHEMA}.items"))
    executor = PostgresExecutor(PG_DSN, schema=SCHEMA, pool_size=4)

    def raw_write() -> str:
        executor._ensure_open()
        with executor._pool.connection() as conn:
            try:
                return _expect_refusal(lambda: conn.execute("INSERT INTO items (id) VALUES (99)"))
            finally:
                conn.rollback()

    tag = slow_query_tag()
    slow = f"SELECT count(*) AS {tag} FROM generate_series(1, 100000) a, generate_series(1, 100000) b"
    def still_running() -> int:  # only this run's query: other clients may share the server
        return admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE %s",
            [f"%{tag}%"],
        ).fetchone()[0]

    return Backend("postgres", executor, slow, raw_write, [admin.close], still_running)


def mysql_backend() -> Backend:
    pymysql = pytest.importorskip("pymysql")
    from smq_db.executors.mysql import MySQLExecutor

    try:
        admin = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
    except pymysql.err.OperationalError as error:
        pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}:{MYSQL['port']}: {error}")
    with admin.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {SCHEMA}")
        cur.execute(f"CREATE DATABASE {SCHEMA}")
        cur.execute(f"CREATE TABLE {SCHEMA}.items (id INT, name TEXT, day DATE, ts DATETIME, price DECIMAL(10,2), flag BOOLEAN, note TEXT)")
        cur.execute(insert_sql(f"{SCHEMA}.items"))
        cur.execute(f"CREATE TABLE {SCHEMA}.seq (n INT)")
        cur.execute(f"INSERT INTO {SCHEMA}.seq VALUES " + ", ".join(f"({i})" for i in range(1000)))
    executor = MySQLExecutor(**MYSQL, database=SCHEMA, pool_size=4)

    def raw_write() -> str:
        conn = executor._pool.acquire()
        try:
            return _expect_refusal(lambda: conn.cursor().execute("INSERT INTO items (id) VALUES (99)"))
        finally:
            executor._pool.release(conn)

    tag = slow_query_tag()
    slow = f"SELECT count(*) AS {tag} FROM seq a, seq b, seq c, seq d"
    def still_running() -> int:  # only this run's query: other clients may share the server
        with admin.cursor() as cur:
            cur.execute("SELECT count(*) FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND info LIKE %s",
                        [f"%{tag}%"])
            return cur.fetchone()[0]

    return Backend("mysql", executor, slow, raw_write, [admin.close], still_running, admin=admin)


def snowflake_backend(stack: list[Any]) -> Backend:
    fakesnow = pytest.importorskip("fakesnow")
    import snowflake.connector

    from smq_db.executors.snowflake import SnowflakeExecutor

    patch = fakesnow.patch()
    try:
        patch.__enter__()
        stack.append(lambda: patch.__exit__(None, None, None))
    except AssertionError:  # "already patched": the engine tests' session fixture did it; share it
        pass
    conn = snowflake.connector.connect(database="SMQ_EXEC", schema="TEST")
    conn.cursor().execute("CREATE OR REPLACE TABLE items "
                          "(id INTEGER, name VARCHAR, day DATE, ts TIMESTAMP_NTZ, price NUMBER(10,2), flag BOOLEAN, note VARCHAR)")
    conn.cursor().execute(insert_sql())
    executor = SnowflakeExecutor({"account": "fake", "user": "u", "password": "p", "database": "SMQ_EXEC", "schema": "TEST"}, pool_size=4)
    slow = "SELECT count(*) FROM TABLE(GENERATOR(ROWCOUNT => 10000000000000))"
    return Backend("snowflake", executor, slow, None)


def bigquery_backend() -> Backend:
    bigquery = pytest.importorskip("google.cloud.bigquery")
    from google.auth.credentials import AnonymousCredentials

    from smq_db.executors.bigquery import BigQueryExecutor

    from .fake_bigquery import FakeBigQuery

    fake = FakeBigQuery()
    fake.load("CREATE TABLE items (id INTEGER, name VARCHAR, day DATE, ts TIMESTAMP, price DECIMAL(10,2), flag BOOLEAN, note VARCHAR)")
    fake.load(insert_sql())
    fake.load("CREATE TABLE seq AS SELECT range AS n FROM range(100000)")
    client = bigquery.Client(project="proj", credentials=AnonymousCredentials(), _http=fake)
    executor = BigQueryExecutor(client=client, maximum_bytes_billed=10**9)

    def raw_write() -> str:
        with mock.patch("smq_db.executors.bigquery.ensure_read_only"):  # bypass the guard
            return _expect_refusal(lambda: executor.execute("INSERT INTO items (id) VALUES (99)"))

    def still_running() -> int:  # the client asked BigQuery to cancel, and the fake engine stopped
        slow_jobs = [j for j in fake.jobs.values() if "CROSS JOIN" in j.sql]
        assert slow_jobs and any(m == "POST" and p.endswith("/cancel") for m, p, _ in fake.requests)
        return sum(1 for j in slow_jobs if not (j.done.is_set() and j.cancelled))

    slow = "SELECT count(*) FROM seq a CROSS JOIN seq b CROSS JOIN seq c"
    return Backend("bigquery", executor, slow, raw_write, still_running=still_running, fake=fake)


BACKENDS = ["sqlite", "duckdb", "duckdb-worker", "postgres", "mysql", "snowflake", "bigquery"]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    stack: list[Callable[[], None]] = []
    name = request.param
    if name == "sqlite":
        built = sqlite_backend(tmp_path_factory.mktemp("sqlite"))
    elif name == "duckdb":
        built = duckdb_backend(tmp_path_factory.mktemp("duckdb"))
    elif name == "duckdb-worker":
        built = duckdb_worker_backend(tmp_path_factory.mktemp("duckdb-worker"))
    elif name == "postgres":
        built = postgres_backend()
    elif name == "mysql":
        built = mysql_backend()
    elif name == "snowflake":
        built = snowflake_backend(stack)
    else:
        built = bigquery_backend()
    yield built
    built.executor.close()
    for step in [*built.cleanup, *reversed(stack)]:
        step()
