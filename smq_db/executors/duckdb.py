"""DuckDB executor: one read-only database object, a cursor per query.

A DuckDB connection is not safe to use from several threads at once, but each ``cursor()`` is an
independent connection to the same database, so concurrent queries each get their own. External
access is switched off and the configuration locked: even a query the guard missed cannot read
files, reach the network or load extensions. The timeout interrupts the cursor from a timer thread.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import duckdb

from collections.abc import Mapping
from typing import Any
from .base import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, CancelTimer, QueryResult, check_limits, description_types, make_result, timeout_message
from .errors import BackendUnavailable, ExecutionError, QueryTimeout
from ..readonly import ensure_read_only
from .base import Executor
from .settings import file_path

LOCKED_CONFIG = {
    "enable_external_access": False,  # no read_csv/ATTACH/COPY of other files, no httpfs
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "python_enable_replacements": False,  # `FROM name` never reads a Python variable (external access off also stops it)
    "lock_configuration": True,  # a SET cannot undo the lines above
}


class DuckDBExecutor:
    backend = "duckdb"

    def __init__(self, path: str | Path, *, dialect: str = "duckdb") -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise BackendUnavailable(f"DuckDB database file not found: {self.path}")
        self.dialect = dialect
        try:
            self._db = duckdb.connect(str(self.path), read_only=True, config=dict(LOCKED_CONFIG))
        except duckdb.Error as error:
            raise BackendUnavailable(f"cannot open DuckDB database {self.path}: {error}") from None
        self._lock = threading.Lock()  # cursor() touches the shared connection

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        with self._lock:
            cursor = self._db.cursor()
        started = time.perf_counter()
        try:
            with CancelTimer(timeout_s, cursor.interrupt) as timer:
                try:
                    cursor.execute(sql)
                    columns = [d[0] for d in cursor.description or ()]
                    types = description_types(cursor.description)
                    rows = cursor.fetchmany(max_rows + 1)
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


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    return DuckDBExecutor(file_path(settings, "path", base_dir), dialect=dialect)
