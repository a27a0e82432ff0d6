"""Shared fixtures: the demo database loaded into every real engine the tests run on.

SQLite and DuckDB are files in a temporary folder; PostgreSQL and MariaDB are the servers
running on this machine (their own schema/database, dropped and reloaded per session);
Snowflake is the fakesnow emulator (Snowflake SQL translated and run on DuckDB).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEMO_MODELS = ROOT / "semantic_models"

PG_DSN = os.environ.get("SMQ_TEST_PG", "host=127.0.0.1 port=5432 user=postgres dbname=test")
MYSQL = dict(host=os.environ.get("SMQ_TEST_MYSQL_HOST", "127.0.0.1"), port=3306, user="root", password="")

Runner = Callable[[str], tuple[list[str], list[tuple]]]
# where the runners below load the demo on the servers (concurrent test runs must not share tables)
SERVER_SCHEMA = f"smq_engine_test_{os.getpid()}"
SNOWFLAKE_DEMO = {"database": "SMQ_TEST", "schema": "SHOP"}  # the emulator's, for this session


def server_connection(engine: str) -> dict[str, Any]:
    """A database.yml `connection:` reading the demo the runners loaded on `engine` (postgres, mysql, snowflake):
    a layer deployed there (ask `runners(engine)` first, which loads it or skips)."""
    if engine == "postgres":
        return {"backend": "postgres", "url": PG_DSN, "schema": SERVER_SCHEMA}
    if engine == "mysql":
        return {"backend": "mysql", **MYSQL, "database": SERVER_SCHEMA}
    if engine == "snowflake":  # fakesnow: any account and login, while its patch is active
        return {"backend": "snowflake", "account": "fake", "user": "smq", "password": "fake", **SNOWFLAKE_DEMO}
    raise ValueError(f"no server engine {engine!r}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden SQL files from the compiler's output")


def pytest_configure(config: pytest.Config) -> None:
    # the `smq` processes tests start keep their compiled-SQL cache (smq_cli/sqlcache.py) in this session's own folder,
    # never the user's ~/.cache (tests/smq_cli/test_sqlcache.py gives each of its tests a folder of its own)
    import atexit
    import shutil
    import tempfile

    os.environ["XDG_CACHE_HOME"] = cache = tempfile.mkdtemp(prefix="smq-test-cache-")
    atexit.register(shutil.rmtree, cache, True)
    config.addinivalue_line("markers", "shared_data(*paths): the test reads these paths under ../shared (SHARED); "
                                       "skipped when one is missing, failed when one is missing in CI (CI=true)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Third-party test data lives in ../shared beside the repository. A checkout without it skips the
    tests that read it; CI always has it, so there a missing file is a failure, not a silent skip."""
    for mark in item.iter_markers("shared_data"):
        missing = [Path(p) for p in mark.args if not Path(p).exists()]
        if missing:
            message = f"shared test data missing: {missing[0]} (expected in ../shared beside the repository)"
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(message + "; CI always provides it", pytrace=False)
            pytest.skip(message)


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden") or os.environ.get("SMQ_UPDATE_GOLDEN"))


def normalize(value: Any) -> Any:
    """One representation per value across drivers: ISO dates, floats, ints for booleans."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, int):
        return value
    return value


def _fetch(cursor: Any) -> tuple[list[str], list[tuple]]:
    columns = [d[0] for d in cursor.description]
    return columns, [tuple(normalize(v) for v in row) for row in cursor.fetchall()]


@pytest.fixture(scope="session")
def demo_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from smq_db.demo.build import build_duckdb, build_sqlite

    folder = tmp_path_factory.mktemp("demo")
    return {"duckdb": build_duckdb(folder / "shop.duckdb"), "sqlite": build_sqlite(folder / "shop.sqlite")}


@pytest.fixture(scope="session")
def duckdb_runner(demo_files: dict[str, Path]) -> Iterator[Runner]:
    import duckdb

    conn = duckdb.connect(str(demo_files["duckdb"]), read_only=True)

    def run(sql: str) -> tuple[list[str], list[tuple]]:
        return _fetch(conn.cursor().execute(sql))

    yield run
    conn.close()


@pytest.fixture(scope="session")
def sqlite_runner(demo_files: dict[str, Path]) -> Iterator[Runner]:
    conn = sqlite3.connect(f"file:{demo_files['sqlite']}?mode=ro", uri=True)

    def run(sql: str) -> tuple[list[str], list[tuple]]:
        return _fetch(conn.execute(sql))

    yield run
    conn.close()


@pytest.fixture(scope="session")
def postgres_runner() -> Iterator[Runner]:
    psycopg = pytest.importorskip("psycopg")
    from smq_db.demo.build import load_into

    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {exc}")
    schema = SERVER_SCHEMA
    load_into(conn, "postgres", schema=schema)
    conn.execute(f"SET search_path TO {schema}")
    conn.execute("ANALYZE")  # statistics for the planner: without them some role-filtered plans take minutes

    def run(sql: str) -> tuple[list[str], list[tuple]]:
        with conn.cursor() as cur:
            cur.execute(sql)
            return _fetch(cur)

    yield run
    conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    conn.close()


@pytest.fixture(scope="session")
def mysql_runner() -> Iterator[Runner]:
    pymysql = pytest.importorskip("pymysql")
    from smq_db.demo.build import load_into

    try:
        conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
    except pymysql.err.OperationalError as exc:
        pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}:3306: {exc}")
    schema = SERVER_SCHEMA
    load_into(conn, "mysql", schema=schema)
    conn.select_db(schema)

    def run(sql: str) -> tuple[list[str], list[tuple]]:
        with conn.cursor() as cur:
            cur.execute(sql)
            return _fetch(cur)

    yield run
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {schema}")
    conn.close()


@contextlib.contextmanager
def fakesnow_patched() -> Iterator[None]:
    """fakesnow.patch(), or the one already active: fakesnow refuses to nest, and session fixtures hold one."""
    fakesnow = pytest.importorskip("fakesnow")
    patch = fakesnow.patch()
    try:
        patch.__enter__()
    except AssertionError:  # "Snowflake connector is already patched": share it
        yield
        return
    try:
        yield
    finally:
        patch.__exit__(None, None, None)


@pytest.fixture(scope="session")
def snowflake_runner() -> Iterator[Runner]:
    pytest.importorskip("fakesnow")
    import snowflake.connector

    from smq_db.demo.build import load_into

    with fakesnow_patched():
        conn = snowflake.connector.connect(**SNOWFLAKE_DEMO)
        conn.cursor().execute("CREATE DATABASE IF NOT EXISTS SMQ_TEST")
        conn.cursor().execute("CREATE SCHEMA IF NOT EXISTS SMQ_TEST.SHOP")
        conn.cursor().execute("USE SCHEMA SMQ_TEST.SHOP")
        load_into(conn, "snowflake")

        def run(sql: str) -> tuple[list[str], list[tuple]]:
            cur = conn.cursor()
            cur.execute(sql)
            return _fetch(cur)

        yield run
        conn.close()


@pytest.fixture(scope="session")
def runners(request: pytest.FixtureRequest) -> Callable[[str], Runner]:
    """Lazily start the engine a test asks for by dialect name."""
    names = {"duckdb": "duckdb_runner", "sqlite": "sqlite_runner", "postgres": "postgres_runner",
             "mysql": "mysql_runner", "snowflake": "snowflake_runner"}
    return lambda dialect: request.getfixturevalue(names[dialect])


@pytest.fixture(autouse=True)
def _this_process_keeps_its_memory_limit() -> Iterator[None]:
    """No test may lower the test process's own RLIMIT_DATA (smq_db.open's `one_shot` bound is for the `smq`
    command's process alone): once lowered it cannot be raised again, and every later test would run out of memory
    far from the test that did it."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_DATA)
    yield
    after = resource.getrlimit(resource.RLIMIT_DATA)
    assert after == before, f"this test lowered the test process's RLIMIT_DATA from {before} to {after}"
