"""Databricks SQL warehouse executor: databricks-sql-connector.

Read-only: a warehouse has no read-only session. The guard runs first; the second lock is the token:
use a service principal whose Unity Catalog grants are USE CATALOG/USE SCHEMA/SELECT only.
Timeout: the session's ``STATEMENT_TIMEOUT`` (seconds, enforced by the warehouse) and a timer that
cancels the cursor. Rows: at most max_rows + 1 are fetched (Arrow batches), the rest is never read.

Not tested against a warehouse here (none is reachable); see docs/dialects.md.
"""

from __future__ import annotations

import math
import time
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
    description_types,
    fetch_rows,
    import_driver,
    make_result,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout
from .settings import require

CONNECT_KEYS = ("server_hostname", "http_path", "access_token", "catalog", "schema")


class DatabricksExecutor:
    backend = "databricks"

    def __init__(self, settings: Mapping[str, Any], *, dialect: str = "databricks") -> None:
        self.dialect = dialect
        self._sql = import_driver("databricks.sql", "databricks-sql-connector")
        self._kwargs = {k: settings[k] for k in CONNECT_KEYS if settings.get(k) not in (None, "")}

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        refuse_unsafe(sql, self.dialect)  # engine-specific table functions and settings (smq_db/unsafe_functions.py)
        config = {"STATEMENT_TIMEOUT": str(max(1, math.ceil(timeout_s))), "ANSI_MODE": "true"}
        try:
            conn = self._sql.connect(**self._kwargs, session_configuration=config)
        except Exception as error:
            raise BackendUnavailable(f"cannot connect to the Databricks SQL warehouse: {_first_line(error)}") from None
        started = time.perf_counter()
        try:
            cursor = conn.cursor()
            with CancelTimer(timeout_s, cursor.cancel) as timer:
                try:
                    cursor.execute(sql)
                    columns = [d[0] for d in cursor.description or ()]
                    types = description_types(cursor.description)
                    rows = fetch_rows(cursor.fetchmany, max_rows)  # measured as they arrive
                except Exception as error:
                    if timer.fired or "STATEMENT_TIMEOUT" in str(error).upper():
                        raise QueryTimeout(timeout_message(timeout_s)) from None
                    if type(error).__name__ in ("OperationalError", "RequestError", "InterfaceError"):
                        raise BackendUnavailable(f"Databricks connection failed: {_first_line(error)}") from None
                    raise ExecutionError(_first_line(error)) from None
            if timer.fired:
                raise QueryTimeout(timeout_message(timeout_s))
        finally:
            try:
                conn.close()
            except Exception:  # closing is best effort
                pass
        return make_result(columns, [tuple(r) for r in rows], max_rows, started, types)

    def close(self) -> None:
        """Nothing pooled: each query opens its own session."""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    for key in ("server_hostname", "http_path", "access_token"):
        require(settings, key)
    return DatabricksExecutor(settings, dialect=dialect)
