"""Spark Connect executor: pyspark's Spark Connect client (``sc://host:15002``) to a Spark cluster.

Read-only: Spark has no read-only session. The guard runs first; the second lock is the catalog:
connect as a principal that may only SELECT (Unity Catalog or Hive/Ranger grants). Timeout: every
query is tagged and a timer interrupts its tag on the server. Rows: the query is wrapped in a
``LIMIT max_rows + 1`` on the server side (DataFrame.limit), so a huge result never leaves the
cluster; at most that many rows are collected.

Not tested against a Spark Connect server here (starting one needs the Spark distribution's
server jars, not in the pyspark wheel); the compiled Spark SQL itself is run on a local Spark in
the tests. See docs/dialects.md.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..readonly import ensure_read_only
from ..unsafe_functions import refuse_unsafe
from .base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    CancelTimer,
    Executor,
    QueryResult,
    check_limits,
    fetch_rows,
    import_driver,
    iterator_fetchmany,
    make_result,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout
from .settings import require


class SparkConnectExecutor:
    backend = "spark"

    def __init__(self, url: str, *, dialect: str = "spark") -> None:
        if not url.startswith("sc://"):
            from .errors import ConfigError

            raise ConfigError(f"connection.url must be a Spark Connect URL like sc://host:15002, got {url!r}")
        self.dialect = dialect
        self._url = url
        self._sql = import_driver("pyspark.sql", "pyspark[connect]")
        self._errors = import_driver("pyspark.errors", "pyspark[connect]")
        self._session: Any = None
        self._lock = threading.Lock()

    def _connected(self) -> Any:
        with self._lock:
            if self._session is None:
                try:
                    self._session = self._sql.SparkSession.builder.remote(self._url).getOrCreate()
                except Exception as error:
                    raise BackendUnavailable(f"cannot connect to Spark Connect at {self._url}: {_first_line(error)}") from None
            return self._session

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        refuse_unsafe(sql, self.dialect)  # engine-specific table functions and settings (smq_db/unsafe_functions.py)
        session = self._connected()
        tag = f"smq-{uuid.uuid4().hex}"
        started = time.perf_counter()
        session.addTag(tag)
        try:
            with CancelTimer(timeout_s, lambda: session.interruptTag(tag)) as timer:
                try:
                    frame = session.sql(sql)
                    columns = list(frame.columns)
                    types = [t for _, t in frame.dtypes]  # Spark's type names: bigint, decimal(38,2), timestamp
                    local = frame.limit(max_rows + 1).toLocalIterator()  # rows arrive in batches, measured as they do
                    rows = fetch_rows(iterator_fetchmany(tuple(row) for row in local), max_rows)
                except Exception as error:
                    if timer.fired:
                        raise QueryTimeout(timeout_message(timeout_s)) from None
                    if isinstance(error, self._errors.PySparkException):
                        raise ExecutionError(_first_line(error)) from None
                    raise BackendUnavailable(f"Spark Connect failed: {_first_line(error)}") from None
        finally:
            session.removeTag(tag)
        return make_result(columns, rows, max_rows, started, types)

    def close(self) -> None:
        if self._session is not None:
            self._session.stop()
            self._session = None


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    require(settings, "url")
    return SparkConnectExecutor(str(settings["url"]), dialect=dialect)
