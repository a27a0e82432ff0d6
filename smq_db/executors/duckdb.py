"""DuckDB executor: one read-only database object, a cursor per query.

A DuckDB connection is not safe to use from several threads at once, but each ``cursor()`` is an
independent connection to the same database, so concurrent queries each get their own. External
access is switched off and the configuration locked: even a query the guard missed cannot read
files, reach the network or load extensions. The timeout interrupts the cursor from a timer thread.

The database's `limits` (smq_db/executors/limits.py) set DuckDB's memory_limit (half the query's memory
budget: the rest is for the values a query builds and their Python copies), threads and
max_temp_directory_size, locked with the rest: `SET memory_limit = ...` is refused by the guard (not a
SELECT) and again by DuckDB (lock_configuration). Rows are fetched a chunk at a time under the byte cap
(`fetch_rows`). Run by the factory inside a worker process (`worker.py`), which bounds what DuckDB's own
limit does not.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb

from engine.dialects import Engine

from .base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    CancelTimer,
    Executor,
    QueryResult,
    check_limits,
    description_types,
    fetch_rows,
    make_result,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout
from .limits import MIB, ResourceLimitExceeded, ResourceLimits, parse_limits
from .settings import file_path

LOCKED_CONFIG = {
    "enable_external_access": False,  # no read_csv/ATTACH/COPY of other files, no httpfs
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "python_enable_replacements": False,  # `FROM name` never reads a Python variable (external access off also stops it)
    "lock_configuration": True,  # a SET cannot undo the lines above
}


def locked_config(limits: ResourceLimits) -> dict[str, str | bool | int | float | list[str]]:
    """The connection's configuration: the locked safety settings and the database's per-query limits."""
    return {"memory_limit": f"{max(32, limits.memory // 2 // MIB)}MiB", "threads": limits.threads,
            "max_temp_directory_size": f"{max(1, limits.temp_directory_size // MIB)}MiB", **LOCKED_CONFIG}


class DuckDBExecutor:
    backend = "duckdb"

    def __init__(self, path: str | Path, *, dialect: str = "duckdb", limits: ResourceLimits | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise BackendUnavailable(f"DuckDB database file not found: {self.path}")
        self.dialect = dialect
        self.limits = limits or ResourceLimits()
        try:
            self._db = duckdb.connect(str(self.path), read_only=True, config=locked_config(self.limits))
        except duckdb.Error as error:
            raise BackendUnavailable(f"cannot open DuckDB database {self.path}: {error}") from None
        self._lock = threading.Lock()  # cursor() touches the shared connection

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        from ..readonly import ensure_read_only  # here, not at import: a worker process (its parent guards) never parses

        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        return self.execute_checked(sql, max_rows=max_rows, timeout_s=timeout_s)

    def execute_checked(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        """`execute` for SQL that has passed the read-only guard already: a worker's, whose parent runs it."""
        check_limits(max_rows, timeout_s)
        with self._lock:
            cursor = self._db.cursor()
        started = time.perf_counter()
        try:
            with CancelTimer(timeout_s, cursor.interrupt) as timer:
                try:
                    cursor.execute(sql)
                    columns = [d[0] for d in cursor.description or ()]
                    types = description_types(cursor.description)
                    rows = fetch_rows(cursor.fetchmany, max_rows)
                except (duckdb.OutOfMemoryException, MemoryError):  # DuckDB's allocator, or Python's copies of the rows
                    raise ResourceLimitExceeded(self.limits.memory_message()) from None
                except duckdb.Error as error:
                    if timer.fired:
                        raise QueryTimeout(timeout_message(timeout_s)) from None
                    raise ExecutionError(str(error)) from None
        finally:
            cursor.close()
        return make_result(columns, rows, max_rows, started, types)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def in_process(path: str | Path, dialect: str, limits: ResourceLimits) -> DuckDBExecutor:
    """The executor a worker process runs (smq_db/executors/worker.py)."""
    return DuckDBExecutor(path, dialect=dialect, limits=limits)


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function). By default the
    queries run in worker processes under a memory limit: DuckDB's memory_limit does not bound what its functions
    build (docs/security.md, Resource budgets)."""
    limits = parse_limits(settings.get("limits"))
    path = file_path(settings, "path", base_dir)
    if limits.isolated(Engine.DUCKDB.value):
        from .worker import IsolatedExecutor

        return IsolatedExecutor(Engine.DUCKDB.value, path, dialect=dialect, limits=limits)
    return DuckDBExecutor(path, dialect=dialect, limits=limits)
