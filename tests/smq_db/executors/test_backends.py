"""The Executor contract, run for real against every backend (see conftest for the engines)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from smq_db.executors import ExecutionError, Executor, QueryTimeout, ReadOnlyViolation

from .conftest import MYSQL, PG_DSN, SCHEMA, Backend

SLOW_TIMEOUT_S = 0.5
pytestmark = pytest.mark.filterwarnings("ignore:Arrow output on a DB-API result")  # fakesnow's own


def rows_of(result) -> list[list]:
    return result.rows


def test_implements_the_protocol(backend: Backend) -> None:
    assert isinstance(backend.executor, Executor)
    assert backend.executor.backend == backend.name
    assert backend.executor.dialect == backend.name


def test_basic_query_and_column_names(backend: Backend) -> None:
    result = backend.executor.execute("SELECT id, name FROM items ORDER BY id")
    assert [c.lower() for c in result.columns] == ["id", "name"]  # Snowflake reports unquoted names upper case
    assert result.rows == [[1, "apple"], [2, "pear"], [3, "fig"]]
    assert result.row_count == 3 and result.truncated is False
    assert result.elapsed_ms >= 0


def test_values_are_json_safe(backend: Backend) -> None:
    result = backend.executor.execute("SELECT day, ts, price, flag, note FROM items WHERE id = 1")
    assert result.rows == [backend.expected_row_1]
    second = backend.executor.execute("SELECT price, note FROM items WHERE id = 2")
    assert second.rows == [[0.1, "ripe"]]
    json.dumps(result.to_dict())  # would raise on a date, Decimal or bytes left over


def test_row_cap_sets_truncated(backend: Backend) -> None:
    capped = backend.executor.execute("SELECT id FROM items ORDER BY id", max_rows=2)
    assert capped.rows == [[1], [2]]
    assert capped.truncated is True and capped.row_count == 2
    exact = backend.executor.execute("SELECT id FROM items ORDER BY id", max_rows=3)
    assert exact.truncated is False and exact.row_count == 3


def stopped_on_the_server(backend: Backend) -> bool:
    """No copy of this run's slow query left on the server. The server may list a statement for a
    moment after its client got the error (MariaDB clears the session's `info` after sending it), so
    look again for a few seconds; a query that was not stopped would still be listed minutes later."""
    assert backend.still_running is not None
    for _ in range(100):
        if backend.still_running() == 0:
            return True
        time.sleep(0.1)
    return False


def test_timeout_cancels_the_query_and_the_executor_stays_usable(backend: Backend) -> None:
    started = time.monotonic()
    with pytest.raises(QueryTimeout) as caught:
        backend.executor.execute(backend.slow_sql, timeout_s=SLOW_TIMEOUT_S)
    assert time.monotonic() - started < 5, "the query was not cancelled promptly"
    assert caught.value.code == "query_timeout"
    assert "cancelled after 0.5 s" in caught.value.message
    if backend.still_running is not None:  # look from another session: the engine stopped it
        assert stopped_on_the_server(backend)
    for _ in range(3):  # every pooled connection is still fine
        assert backend.executor.execute("SELECT 1 AS x").rows == [[1]]


def _start_other_client(backend: Backend) -> tuple[threading.Thread, Any, int, Callable[[], None]]:
    """Another client of the same server running the same slow query, untagged: (thread, its connection,
    its session id, a function stopping it)."""
    untagged = re.sub(r" AS smq_slow_\w+", "", backend.slow_sql)
    if backend.name == "mysql":
        import pymysql

        other = pymysql.connect(**MYSQL, database=SCHEMA, autocommit=True)
        session = other.thread_id()
        run = lambda: other.cursor().execute(untagged)  # noqa: E731
        def stop() -> None:
            with backend.admin.cursor() as cur:
                cur.execute(f"KILL QUERY {int(session)}")
        def visible() -> bool:
            with backend.admin.cursor() as cur:
                cur.execute("SELECT count(*) FROM information_schema.processlist WHERE id = %s AND info IS NOT NULL", [session])
                return cur.fetchone()[0] == 1
    else:
        import psycopg

        other = psycopg.connect(PG_DSN, autocommit=True)
        session = other.info.backend_pid
        run = lambda: other.execute(untagged)  # noqa: E731
        admin = psycopg.connect(PG_DSN, autocommit=True)
        def stop() -> None:
            admin.execute("SELECT pg_cancel_backend(%s)", [session])
            admin.close()
        def visible() -> bool:
            return admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND state = 'active'",
                                 [session]).fetchone()[0] == 1

    def quietly() -> None:
        try:
            run()
        except Exception:  # noqa: BLE001 - cancelled on purpose
            pass

    thread = threading.Thread(target=quietly, daemon=True)
    thread.start()
    for _ in range(200):  # until the server lists it (a bounded wait, not a timed assertion)
        if visible():
            break
        time.sleep(0.05)
    else:
        stop()
        pytest.fail("the other client's query never showed up on the server")
    return thread, other, session, stop


@pytest.mark.parametrize("backend", ["postgres", "mysql"], indirect=True)  # the engines that count sessions
def test_the_timeout_check_counts_only_its_own_query(backend: Backend) -> None:
    """Another client running the same slow query on the shared server must not make the check fail."""
    thread, other, _, stop = _start_other_client(backend)
    try:
        with pytest.raises(QueryTimeout):
            backend.executor.execute(backend.slow_sql, timeout_s=SLOW_TIMEOUT_S)
        assert stopped_on_the_server(backend)
    finally:
        stop()
        thread.join(30)
        other.close()


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("DELETE FROM items", "DELETE statements are not allowed; only one SELECT or WITH query is allowed"),
        ("INSERT INTO items (id) VALUES (99)", "INSERT statements are not allowed"),
        ("SELECT 1; DROP TABLE items", "multiple statements are not allowed"),
    ],
)
def test_writes_are_refused_by_the_guard(backend: Backend, sql: str, message: str) -> None:
    with pytest.raises(ReadOnlyViolation) as caught:
        backend.executor.execute(sql)
    assert message in caught.value.message
    assert backend.executor.execute("SELECT count(*) AS n FROM items").rows == [[3]]


WRITE_REFUSALS = {
    "sqlite": r"attempt to write a readonly database",
    "duckdb": r"read-only mode",
    "postgres": r"cannot execute INSERT in a read-only transaction",
    "mysql": r"READ ONLY transaction",
    "bigquery": r"BigQuery reports the statement type INSERT; only SELECT",
}


def test_writes_are_refused_by_the_connection_too(backend: Backend) -> None:
    if backend.raw_write is None:
        pytest.skip("Snowflake has no read-only session mode: the second lock is a SELECT-only role (see snowflake.py)")
    assert re.search(WRITE_REFUSALS[backend.name], backend.raw_write())
    assert backend.executor.execute("SELECT count(*) AS n FROM items").rows == [[3]]


def test_wrong_table_reports_the_engine_message(backend: Backend) -> None:
    with pytest.raises(ExecutionError) as caught:
        backend.executor.execute("SELECT * FROM no_such_table")
    error = caught.value
    assert error.code == "execution_failed"
    assert "no_such_table" in error.message.lower()
    assert "Traceback" not in error.message
    assert error.to_dict()["code"] == "execution_failed"


def test_concurrent_queries_share_one_executor(backend: Backend) -> None:
    results: dict[int, list] = {}
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for _ in range(3):
                result = backend.executor.execute(f"SELECT id, {n} AS n FROM items WHERE id <= 2 ORDER BY id")
                assert result.rows == [[1, n], [2, n]]
            results[n] = result.rows
        except BaseException as error:  # noqa: BLE001 - collected and re-raised in the main thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    assert sorted(results) == list(range(8))
