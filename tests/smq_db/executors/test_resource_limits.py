"""Per-query resource budgets, as the attack round tried them (each failed before the change):

* one DuckDB query could take the process's memory: `max(length(repeat('ab', 500000000)))` grew it to 3.9 GB
  (memory_limit does not bound what a scalar function builds), `string_agg` over 3,000 strings of 1 MB, a
  200 MB cell and a 10-million-element list likewise; now the query runs in a worker process under
  RLIMIT_DATA and fails with `resource_limit_exceeded` while this process does not grow;
* DuckDB had no memory_limit, threads or temp-space bound; now they are set from `connection.limits` and locked;
* SQLite built values of any length (up to its 1 GB default); now SQLITE_LIMIT_LENGTH and the heap limit hold;
* every executor fetched all max_rows + 1 rows before the byte cap looked at them; now rows are measured while
  they are fetched, and fetching stops at the cap.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from smq_db.executors import QueryTimeout, ReadOnlyViolation, create_executor
from smq_db.executors.base import ResultTooLarge, fetch_rows, json_size_floor, result_budget
from smq_db.executors.errors import ConfigError
from smq_db.executors.limits import GIB, MIB, ResourceLimitExceeded, ResourceLimits, parse_limits
from smq_db.executors.worker import IsolatedExecutor

from .conftest import Backend


def _rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.fixture(scope="module")
def duck_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import duckdb

    path = tmp_path_factory.mktemp("limits") / "small.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE items AS SELECT i AS id, 'item ' || i AS name FROM range(100) t(i)")
    conn.close()
    return path


@pytest.fixture(scope="module")
def isolated(duck_file: Path) -> Iterator[Any]:
    executor = create_executor({"backend": "duckdb", "path": str(duck_file), "limits": {"workers": 2}}, base_dir=duck_file.parent)
    assert isinstance(executor, IsolatedExecutor)  # DuckDB's default: a worker process
    yield executor
    executor.close()


ATTACKS = {
    "repeat 1 GB": "SELECT max(length(repeat('ab', 500000000))) AS n",
    "string_agg 3 GB": "SELECT length(string_agg(repeat('x', 1000000), ',')) AS n FROM range(3000)",
    "10-million-element list": "SELECT range(10000000) AS l",
}


@pytest.mark.parametrize("sql", ATTACKS.values(), ids=ATTACKS.keys())
def test_a_query_past_its_memory_fails_in_its_worker_and_this_process_does_not_grow(isolated: Any, sql: str) -> None:
    before = _rss_kb()
    with result_budget(max_bytes=16 * MIB, timeout_s=20), pytest.raises((ResourceLimitExceeded, ResultTooLarge)) as err:
        isolated.execute(sql, max_rows=10, timeout_s=20)
    grown_mb = (_rss_kb() - before) / 1024
    assert grown_mb < 64, f"this process grew {grown_mb:.0f} MB"
    if isinstance(err.value, ResourceLimitExceeded):
        assert "1 GiB, connection.limits.memory in database.yml" in err.value.message
    assert isolated.execute("SELECT count(*) AS n FROM items", max_rows=10, timeout_s=20).rows == [[100]]


def test_a_200_mb_cell_is_refused_without_reaching_this_process(isolated: Any) -> None:
    before = _rss_kb()
    with result_budget(max_bytes=16 * MIB, timeout_s=20), pytest.raises((ResourceLimitExceeded, ResultTooLarge)):
        isolated.execute("SELECT repeat('x', 200000000) AS s", max_rows=10, timeout_s=20)
    assert (_rss_kb() - before) / 1024 < 64


def test_a_query_the_engine_does_not_interrupt_is_stopped_by_killing_its_worker(isolated: Any) -> None:
    with pytest.raises(QueryTimeout):  # DuckDB checks for interrupts between vectors, not inside repeat()
        isolated.execute("SELECT max(length(repeat('ab', 200000000))) AS n", max_rows=10, timeout_s=0.5)
    assert isolated.execute("SELECT 1 AS one", max_rows=1, timeout_s=20).rows == [[1]]


def test_errors_and_refusals_come_back_as_the_in_process_ones(isolated: Any) -> None:
    with pytest.raises(ReadOnlyViolation):
        isolated.execute("DELETE FROM items", max_rows=1, timeout_s=5)
    with pytest.raises(ReadOnlyViolation):
        isolated.execute("SET memory_limit = '100GB'", max_rows=1, timeout_s=5)
    with pytest.raises(Exception) as err:
        isolated.execute("SELECT no_such_column FROM items", max_rows=1, timeout_s=5)
    assert err.value.code == "execution_failed" and "no_such_column" in err.value.message


def test_duckdbs_own_limits_are_set_and_locked(duck_file: Path) -> None:
    from smq_db.executors.duckdb import DuckDBExecutor

    executor = DuckDBExecutor(duck_file, limits=ResourceLimits(memory=GIB, threads=1, temp_directory_size=256 * MIB))
    try:
        settings = executor._db.execute("SELECT current_setting('memory_limit'), current_setting('threads'), "
                                        "current_setting('max_temp_directory_size')").fetchone()
        assert settings[1] == 1 and settings[0].startswith("512") and settings[2].startswith("256")
        for change in ("SET memory_limit = '100GB'", "SET threads = 64", "PRAGMA max_temp_directory_size = '1TB'",
                       "RESET memory_limit"):
            with pytest.raises(Exception, match="(?i)lock"):  # the connection itself refuses, past the guard
                executor._db.execute(change)
    finally:
        executor.close()


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Path:
    path = tmp_path / "small.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO items VALUES (?, ?)", [(i, f"item {i}") for i in range(100)])
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("sql", [
    "SELECT length(hex(zeroblob(300000000))) AS n",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3000) "
    "SELECT length(group_concat(printf('%.*c', 1000000, 'x'))) AS n FROM r",
    "SELECT length(zeroblob(500000000)) AS n",
], ids=["hex of 300 MB", "group_concat 3 GB", "zeroblob 500 MB"])
def test_sqlite_refuses_values_over_its_limit(sqlite_db: Path, sql: str) -> None:
    executor = create_executor({"backend": "sqlite", "path": str(sqlite_db), "limits": {"max_value_bytes": "16MiB"}},
                               base_dir=sqlite_db.parent)
    try:
        before = _rss_kb()
        with pytest.raises(ResourceLimitExceeded) as err:
            executor.execute(sql, max_rows=10, timeout_s=20)
        assert "16 MiB, connection.limits.max_value_bytes" in err.value.message
        assert (_rss_kb() - before) / 1024 < 128
        assert executor.execute("SELECT count(*) AS n FROM items", max_rows=1, timeout_s=5).rows == [[100]]
    finally:
        executor.close()


# -- rows and bytes capped while they are fetched, on every backend --------------------------------------------

WIDE_ROWS = {  # 2,000 rows of 10 KB: 20 MB, far over the 1 MB cap below
    "sqlite": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2000) "
              "SELECT n, printf('%.*c', 10000, 'x') AS s FROM r",
    "duckdb": "SELECT i, repeat('x', 10000) AS s FROM range(2000) t(i)",
    "postgres": "SELECT i, repeat('x', 10000) AS s FROM generate_series(1, 2000) i",
    "mysql": "SELECT a.n * 100 + b.n AS i, REPEAT('x', 10000) AS s FROM (SELECT id AS n FROM items) a "
             "CROSS JOIN (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) b CROSS JOIN items c CROSS JOIN items d "
             "CROSS JOIN items e CROSS JOIN items f CROSS JOIN items g",
}


def test_rows_over_the_byte_cap_are_refused_while_they_are_fetched(backend: Backend) -> None:
    if backend.name not in WIDE_ROWS:
        pytest.skip(f"{backend.name} is a fake engine here; its driver's fetchmany goes through the same fetch_rows")
    with result_budget(max_bytes=MIB, timeout_s=60), pytest.raises(ResultTooLarge) as err:
        backend.executor.execute(WIDE_ROWS[backend.name], max_rows=10_000, timeout_s=60)
    assert "while they were fetched" in err.value.message


def test_fetching_stops_at_the_cap() -> None:
    asked: list[int] = []
    row = (1, "x" * 10_000)

    def fetchmany(size: int) -> list[tuple[int, str]]:
        asked.append(size)
        return [row] * size

    with result_budget(max_bytes=MIB, timeout_s=30), pytest.raises(ResultTooLarge):
        fetch_rows(fetchmany, 100_000)
    assert sum(asked) < 250  # about 1 MB / 10 KB rows, in a few calls; not 100,001 rows
    with result_budget(max_bytes=MIB, timeout_s=30):
        assert len(fetch_rows(lambda n: [(1, "a")] * min(n, 5), 10)) == 5  # fewer than asked: the end


def test_the_size_floor_never_exceeds_the_json() -> None:
    import pydantic_core

    from smq_db.executors.base import json_safe_rows

    rows = [(1, "é" * 10, None, 2.5, [1, 2, [3]], {"a": "b"}, b"\x00\x01\x02", True)] * 3
    assert json_size_floor(rows) <= len(pydantic_core.to_json(json_safe_rows(rows, 8)))


@pytest.mark.parametrize(("raw", "message"), [
    ({"memory": "lots"}, "connection.limits.memory must be a size"),
    ({"memory": "1MB"}, "at least 64MiB"),
    ({"threads": 0}, "connection.limits.threads must be a whole number"),
    ({"isolation": "thread"}, "connection.limits.isolation must be one of process, none"),
    ({"memroy": "1GB"}, "connection.limits.memroy is not a limit"),
    ("1GB", "connection.limits must be a mapping"),
])
def test_a_wrong_limits_block_is_a_config_error_naming_the_field(raw: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_limits(raw)


def test_limits_parse_sizes_and_defaults() -> None:
    assert parse_limits(None) == ResourceLimits()
    got = parse_limits({"memory": "2GiB", "temp_directory_size": "500MB", "threads": 4, "isolation": "none"})
    assert (got.memory, got.temp_directory_size, got.threads, got.isolated("duckdb")) == (2 * GIB, 500_000_000, 4, False)
    assert ResourceLimits().isolated("duckdb") and not ResourceLimits().isolated("sqlite")
