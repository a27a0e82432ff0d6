"""What one backend does beyond the shared contract: its own locks, limits and wire behaviour."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import MYSQL, PG_DSN

from .conftest import Backend, bigquery_backend, duckdb_backend, mysql_backend, postgres_backend, sqlite_backend


@pytest.fixture(scope="module")
def duck(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    backend = duckdb_backend(tmp_path_factory.mktemp("duck"))
    yield backend
    backend.executor.close()


@pytest.fixture(scope="module")
def pg() -> Iterator[Backend]:
    backend = postgres_backend()
    yield backend
    backend.executor.close()
    for step in backend.cleanup:
        step()


@pytest.fixture(scope="module")
def my() -> Iterator[Backend]:
    backend = mysql_backend()
    yield backend
    backend.executor.close()
    for step in backend.cleanup:
        step()


@pytest.fixture(scope="module")
def bq() -> Iterator[Backend]:
    backend = bigquery_backend()
    yield backend
    backend.executor.close()


def test_duckdb_cannot_touch_files_even_around_the_guard(duck: Backend, tmp_path: Path) -> None:
    (tmp_path / "secret.csv").write_text("a\n1\n")
    raw = duck.executor._db.cursor()  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="file system operations are disabled"):
        raw.execute(f"SELECT * FROM read_csv('{tmp_path / 'secret.csv'}')")
    with pytest.raises(Exception, match="configuration has been locked"):
        raw.execute("SET enable_external_access = true")


def test_sqlite_cannot_attach_even_around_the_guard(tmp_path: Path) -> None:
    backend = sqlite_backend(tmp_path)
    conn = backend.executor._pool.acquire()  # type: ignore[attr-defined]
    try:
        with pytest.raises(Exception, match="too many attached databases"):
            conn.execute(f"ATTACH '{tmp_path / 'other.db'}' AS other")
    finally:
        backend.executor._pool.release(conn)  # type: ignore[attr-defined]
        backend.executor.close()


def test_sqlite_one_statement_per_call_even_around_the_guard(tmp_path: Path) -> None:
    backend = sqlite_backend(tmp_path)
    conn = backend.executor._pool.acquire()  # type: ignore[attr-defined]
    try:
        with pytest.raises(Exception, match="one statement at a time"):
            conn.execute("SELECT 1; DELETE FROM items")
    finally:
        backend.executor._pool.release(conn)  # type: ignore[attr-defined]
        backend.executor.close()


def test_postgres_fetches_only_what_it_keeps(pg: Backend) -> None:
    started = time.monotonic()
    sql = "SELECT a.g, 'a%b{c}' AS s FROM generate_series(1, 10000) AS a(g), generate_series(1, 10000) AS b(g);"
    result = pg.executor.execute(sql, max_rows=5)
    assert time.monotonic() - started < 3  # a server-side cursor: the 100M rows are never sent
    assert result.rows == [[1, "a%b{c}"]] * 5 and result.truncated


def test_postgres_errors_carry_the_server_hint(pg: Backend) -> None:
    from smq_db.executors.errors import ExecutionError

    with pytest.raises(ExecutionError) as caught:
        pg.executor.execute("SELECT nam FROM items")
    assert 'column "nam" does not exist' in caught.value.message
    assert "HINT:" in caught.value.message and "name" in caught.value.message


def test_postgres_replaces_connections_the_server_dropped(pg: Backend) -> None:
    """No ping on checkout: a dropped connection fails on first use and the read-only query runs again."""
    import psycopg

    executor = pg.executor
    assert executor.execute("SELECT count(*) AS c FROM items").rows  # the pool is open and warm
    with executor._pool.connection() as conn:  # type: ignore[attr-defined]
        pids = [conn.info.backend_pid]
        conn.rollback()
    with psycopg.connect(PG_DSN, autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])  # as a server restart would
    for _ in range(6):  # whichever pooled connection each query gets, it answers
        assert executor.execute("SELECT count(*) AS c FROM items").rows[0][0] > 0


def test_postgres_runs_one_statement_even_around_the_guard(pg: Backend) -> None:
    """The query is sent with the extended protocol: a second statement never reaches the server."""
    from smq_db.executors.errors import ExecutionError

    with pytest.raises(ExecutionError, match="multiple commands"):
        pg.executor._run("SELECT 1; DELETE FROM items", 10, 5.0)  # type: ignore[attr-defined]
    assert pg.executor.execute("SELECT count(*) AS c FROM items").rows[0][0] > 0


def test_postgres_sets_the_usual_timeout_once_per_connection(pg: Backend) -> None:
    executor = pg.executor
    with executor._pool.connection() as conn:  # type: ignore[attr-defined]
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "30s"
        conn.rollback()
    assert executor.execute("SELECT current_setting('statement_timeout') AS t", timeout_s=2).rows == [["2s"]]
    assert executor.execute("SELECT current_setting('statement_timeout') AS t").rows == [["30s"]]  # local to that query


def test_mysql_explicit_limit_larger_than_max_rows(my: Backend) -> None:
    started = time.monotonic()
    result = my.executor.execute("SELECT a.n FROM seq a, seq b, seq c ORDER BY NULL LIMIT 900000000", max_rows=5)
    assert result.row_count == 5 and result.truncated
    assert time.monotonic() - started < 5  # KILL QUERY stopped it: only what was in flight is read
    for _ in range(5):  # the connection is clean for the next queries
        assert my.executor.execute("SELECT count(*) AS c FROM seq").rows == [[1000]]


def test_mysql_server_caps_rows_without_a_limit(my: Backend) -> None:
    result = my.executor.execute("SELECT a.n FROM seq a, seq b", max_rows=3)  # 1M rows unless capped
    assert result.row_count == 3 and result.truncated


def test_mysql_replaces_a_connection_the_server_dropped(my: Backend) -> None:
    conn = my.executor._pool.acquire()  # type: ignore[attr-defined]
    thread_id = conn.thread_id()
    my.executor._pool.release(conn)  # type: ignore[attr-defined]
    with my.admin.cursor() as cur:
        cur.execute("KILL %s", (thread_id,))  # as a server restart or wait_timeout would
    assert my.executor.execute("SELECT count(*) AS c FROM seq").rows == [[1000]]


def test_bigquery_job_carries_cost_and_time_limits(bq: Backend) -> None:
    fake = bq.fake
    bq.executor.execute("SELECT id FROM items", timeout_s=7)
    inserts = [body for method, path, body in fake.requests if method == "POST" and path.endswith("/jobs")]
    dry, real = inserts[-2], inserts[-1]
    assert dry["configuration"]["dryRun"] is True
    assert real["configuration"]["query"]["maximumBytesBilled"] == "1000000000"
    assert real["configuration"]["jobTimeoutMs"] == "7000"
    assert real["jobReference"]["jobId"].startswith("smq_")


def test_bigquery_never_starts_a_job_for_a_write(bq: Backend) -> None:
    fake = bq.fake
    before = set(fake.jobs)
    assert "INSERT" in bq.raw_write()  # guard bypassed: BigQuery's own dry run refuses it
    assert set(fake.jobs) == before


def test_duckdb_never_reads_python_variables(duck: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB's replacement scans would read a DataFrame named in FROM from the calling code's globals."""
    pandas = pytest.importorskip("pandas")
    import smq_db.executors.duckdb as module
    from smq_db.executors.errors import ExecutionError

    monkeypatch.setattr(module, "smq_probe_frame", pandas.DataFrame({"secret": [42]}), raising=False)
    with pytest.raises(ExecutionError, match="smq_probe_frame"):
        duck.executor.execute("SELECT * FROM smq_probe_frame")


def test_postgres_strings_are_standard_whatever_the_server_default(pg: Backend) -> None:
    """Backslashes in '...' are plain characters, as the guard reads them, even where the server says otherwise."""
    from smq_db.executors.postgres import PostgresExecutor

    executor = PostgresExecutor(f"{PG_DSN} options='-c standard_conforming_strings=off'", pool_size=1)
    try:
        assert executor.execute("SELECT current_setting('standard_conforming_strings') AS s, 'a\\' AS t").rows == [["on", "a\\"]]
    finally:
        executor.close()


def test_mysql_sessions_drop_sql_modes_that_move_string_ends(my: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_BACKSLASH_ESCAPES / ANSI_QUOTES would make the server end strings where the guard does not."""
    from smq_db.executors.mysql import MySQLExecutor

    executor = MySQLExecutor(**MYSQL, database="test", pool_size=1)
    monkeypatch.setitem(executor._settings, "init_command",  # type: ignore[attr-defined]
                        "SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES,STRICT_TRANS_TABLES'")
    try:
        mode = executor.execute("SELECT @@SESSION.sql_mode AS m").rows[0][0]
        assert "STRICT_TRANS_TABLES" in mode and "NO_BACKSLASH_ESCAPES" not in mode and "ANSI_QUOTES" not in mode
    finally:
        executor.close()


def test_snowflake_second_lock_is_the_configured_role() -> None:
    """Snowflake has no read-only session: every session the executor opens must run as the configured
    (SELECT-only) role, with the statement timeout and query tag set on the session itself."""
    pytest.importorskip("snowflake.connector")
    from smq_db.executors.snowflake import SnowflakeExecutor

    opened: list[dict] = []

    class Session:
        def cursor(self):  # the query itself is not the point here
            raise AssertionError("not used")

        def close(self) -> None:
            pass

    def connect(**kwargs: object) -> Session:
        opened.append(kwargs)
        return Session()

    executor = SnowflakeExecutor({"account": "acme", "user": "svc", "password": "p", "role": "SMQ_READER",
                                  "warehouse": "WH", "session_parameters": {"QUERY_TAG": "bi"}}, pool_size=2, connect=connect)
    pool = executor._pool  # the sessions every query borrows
    pool.release(pool.acquire())
    executor.close()
    assert opened and all(kw["role"] == "SMQ_READER" for kw in opened)
    assert opened[0]["session_parameters"]["STATEMENT_TIMEOUT_IN_SECONDS"] > 0
    assert opened[0]["session_parameters"]["QUERY_TAG"] == "bi"  # the layer's own session parameters win


def test_sqlite_text_that_is_not_utf8_reads_with_replacement(tmp_path: Path) -> None:
    """SQLite keeps any bytes as TEXT (Northwind's Latin-1 names): a query over them answers, it does not fail."""
    import sqlite3

    from smq_db.executors.sqlite import SqliteExecutor

    path = tmp_path / "latin1.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE products (name TEXT)")
        conn.execute("INSERT INTO products VALUES (CAST(? AS TEXT))", ("Pâté".encode("latin-1"),))
        conn.execute("INSERT INTO products VALUES ('Tofu')")
    executor = SqliteExecutor(path)
    try:
        assert executor.execute("SELECT name FROM products ORDER BY name").rows == [["P\ufffdt\ufffd"], ["Tofu"]]
    finally:
        executor.close()
