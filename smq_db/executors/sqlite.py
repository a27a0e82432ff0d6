"""SQLite executor: the file opened read-only (``mode=ro`` URI and ``PRAGMA query_only``).

sqlite3 connections are cheap but not shareable between concurrent threads, so a small pool hands
each query its own connection (``check_same_thread=False`` only lets a pooled connection move
between threads, never be used by two at once). The timeout is a progress handler that aborts the
running statement from inside SQLite, leaving the connection usable.

Memory: SQLite builds every value on its own heap. Each connection refuses a string or blob longer than
`limits.max_value_bytes` (SQLITE_LIMIT_LENGTH: `printf('%.*c', 1e9, 'x')`, a `group_concat` of 3,000
strings of 1 MB), and the heap of all SQLite connections of the process is held to `limits.memory`
(`PRAGMA hard_heap_limit`, sqlite3_hard_heap_limit64: one limit per process, the largest any database
asks for). Rows are fetched a chunk at a time under the byte cap (`fetch_rows`).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.dialects import Engine

from .base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    Executor,
    QueryResult,
    check_limits,
    description_types,
    fetch_rows,
    make_result,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout
from .limits import ResourceLimitExceeded, ResourceLimits, human, parse_limits
from .pool import SimplePool
from .settings import file_path, integer

_PROGRESS_STEPS = 1_000  # VM instructions between deadline checks: ~microseconds
_HEAP_LOCK = threading.Lock()
_heap_limit = 0  # the process-wide SQLite heap limit set so far (the largest asked for)
# SQLite's words for "this query needs more than the limits": a value over SQLITE_LIMIT_LENGTH, the heap limit
_TOO_BIG = ("string or blob too big", "out of memory")


class SqliteExecutor:
    backend = "sqlite"

    def __init__(self, path: str | Path, *, dialect: str = "sqlite", pool_size: int = 4,
                 limits: ResourceLimits | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise BackendUnavailable(f"SQLite database file not found: {self.path}")
        self.dialect = dialect
        self.limits = limits or ResourceLimits()
        self._uri = self.path.resolve().as_uri() + "?mode=ro"
        self._pool: SimplePool[sqlite3.Connection] = SimplePool(self._connect, sqlite3.Connection.close, size=pool_size)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self._uri, uri=True, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA query_only = ON")  # second lock besides mode=ro
        except sqlite3.Error as error:
            raise BackendUnavailable(f"cannot open SQLite database {self.path}: {error}") from None
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)  # no ATTACH, even if the guard missed one
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, self.limits.max_value_bytes)
        _raise_heap_limit(conn, self.limits.memory)
        # SQLite stores whatever bytes it was given as TEXT (Northwind's product names are Latin-1): a value that is
        # not UTF-8 comes back with U+FFFD in place of the bad bytes instead of failing the whole query
        conn.text_factory = _decode_text
        return conn

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        from ..readonly import ensure_read_only  # here, not at import: a worker process (its parent guards) never parses

        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        return self.execute_checked(sql, max_rows=max_rows, timeout_s=timeout_s)

    def execute_checked(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        """`execute` for SQL that has passed the read-only guard already: a worker's, whose parent runs it."""
        check_limits(max_rows, timeout_s)
        conn = self._pool.acquire()
        started = time.perf_counter()
        deadline = time.monotonic() + timeout_s
        timed_out = False

        def past_deadline() -> int:  # non-zero aborts the statement with "interrupted"
            nonlocal timed_out
            timed_out = time.monotonic() > deadline
            return int(timed_out)

        conn.set_progress_handler(past_deadline, _PROGRESS_STEPS)
        try:
            cursor = conn.execute(sql)
            columns = [d[0] for d in cursor.description or ()]
            types = description_types(cursor.description)  # SQLite has no result types: None each
            rows = fetch_rows(cursor.fetchmany, max_rows)
            cursor.close()
        except sqlite3.Error as error:
            if timed_out:
                raise QueryTimeout(timeout_message(timeout_s)) from None
            if str(error).lower().startswith(_TOO_BIG):
                raise ResourceLimitExceeded(self._limit_message(str(error))) from None
            raise ExecutionError(str(error)) from None
        except MemoryError:
            raise ResourceLimitExceeded(self.limits.memory_message()) from None
        except sqlite3.Warning as error:  # "You can only execute one statement at a time."
            raise ExecutionError(str(error)) from None
        finally:
            conn.set_progress_handler(None, 0)
            self._pool.release(conn)
        return make_result(columns, rows, max_rows, started, types)

    def _limit_message(self, error: str) -> str:
        if error.lower().startswith("string or blob too big"):
            return (f"the query builds a string or blob longer than this database allows ({human(self.limits.max_value_bytes)}, "
                    "connection.limits.max_value_bytes in database.yml); build shorter values")
        return self.limits.memory_message()

    def close(self) -> None:
        self._pool.close()


def _raise_heap_limit(conn: sqlite3.Connection, limit: int) -> None:
    """SQLite's heap limit is the process's: set it once, to the largest any database asks for."""
    global _heap_limit
    with _HEAP_LOCK:
        if limit > _heap_limit:
            conn.execute(f"PRAGMA hard_heap_limit = {int(limit)}")
            _heap_limit = limit


def _decode_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def in_process(path: str | Path, dialect: str, limits: ResourceLimits) -> SqliteExecutor:
    """The executor a worker process runs (smq_db/executors/worker.py): one connection, the same limits."""
    return SqliteExecutor(path, dialect=dialect, pool_size=1, limits=limits)


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    limits = parse_limits(settings.get("limits"))
    path = file_path(settings, "path", base_dir)
    if limits.isolated(Engine.SQLITE.value):
        from .worker import IsolatedExecutor

        return IsolatedExecutor(Engine.SQLITE.value, path, dialect=dialect, limits=limits)
    return SqliteExecutor(path, dialect=dialect, pool_size=integer(settings, "pool_size", 4), limits=limits)
