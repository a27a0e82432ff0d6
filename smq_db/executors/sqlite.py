"""SQLite executor: the file opened read-only (``mode=ro`` URI and ``PRAGMA query_only``).

sqlite3 connections are cheap but not shareable between concurrent threads, so a small pool hands
each query its own connection (``check_same_thread=False`` only lets a pooled connection move
between threads, never be used by two at once). The timeout is a progress handler that aborts the
running statement from inside SQLite, leaving the connection usable.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from collections.abc import Mapping
from typing import Any
from .base import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, QueryResult, check_limits, description_types, make_result, timeout_message
from .errors import BackendUnavailable, ExecutionError, QueryTimeout
from .pool import SimplePool
from ..readonly import ensure_read_only
from .base import Executor
from .settings import file_path, integer

_PROGRESS_STEPS = 1_000  # VM instructions between deadline checks: ~microseconds


class SqliteExecutor:
    backend = "sqlite"

    def __init__(self, path: str | Path, *, dialect: str = "sqlite", pool_size: int = 4) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise BackendUnavailable(f"SQLite database file not found: {self.path}")
        self.dialect = dialect
        self._uri = self.path.resolve().as_uri() + "?mode=ro"
        self._pool: SimplePool[sqlite3.Connection] = SimplePool(self._connect, sqlite3.Connection.close, size=pool_size)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self._uri, uri=True, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA query_only = ON")  # second lock besides mode=ro
        except sqlite3.Error as error:
            raise BackendUnavailable(f"cannot open SQLite database {self.path}: {error}") from None
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)  # no ATTACH, even if the guard missed one
        # SQLite stores whatever bytes it was given as TEXT (Northwind's product names are Latin-1): a value that is
        # not UTF-8 comes back with U+FFFD in place of the bad bytes instead of failing the whole query
        conn.text_factory = _decode_text
        return conn

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
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
            rows = cursor.fetchmany(max_rows + 1)
            cursor.close()
        except sqlite3.Error as error:
            if timed_out:
                raise QueryTimeout(timeout_message(timeout_s)) from None
            raise ExecutionError(str(error)) from None
        except sqlite3.Warning as error:  # "You can only execute one statement at a time."
            raise ExecutionError(str(error)) from None
        finally:
            conn.set_progress_handler(None, 0)
            self._pool.release(conn)
        return make_result(columns, rows, max_rows, started, types)

    def close(self) -> None:
        self._pool.close()


def _decode_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    return SqliteExecutor(file_path(settings, "path", base_dir), dialect=dialect, pool_size=integer(settings, "pool_size", 4))
