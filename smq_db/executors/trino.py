"""Trino executor: the official ``trino`` client (DB-API over Trino's HTTP protocol).

Read-only: Trino has no read-only session. The guard runs first; the second lock is the Trino
user: give the service a user whose access control (file-based rules, Ranger, the connector's own
grants) allows SELECT only. Timeout: ``query_max_execution_time`` is set per query as a session
property (the coordinator kills the query), and a timer cancels it from the client too (DELETE on
the query's ``nextUri``). Rows: at most max_rows + 1 are fetched, then the query is cancelled so the
cluster stops producing the rest.

Tested against a local fake of Trino's HTTP protocol (``POST /v1/statement``, ``nextUri`` polling,
``columns``/``data``, ``error`` objects) driven through the real client; not against a live cluster.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..readonly import ensure_read_only
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
from .settings import integer, require

# Trino error names that mean "our time budget ran out" (the property above, or our cancel)
_TIMEOUT_ERRORS = {"EXCEEDED_TIME_LIMIT", "USER_CANCELED", "ADMINISTRATIVELY_KILLED"}


class TrinoExecutor:
    backend = "trino"

    def __init__(self, *, host: str, port: int = 8080, user: str = "smq", catalog: str | None = None,
                 schema: str | None = None, http_scheme: str = "http", password: str | None = None,
                 dialect: str = "trino", request_timeout_s: float = 30.0) -> None:
        self.dialect = dialect
        self._trino = import_driver("trino", "trino")
        auth = self._trino.auth.BasicAuthentication(user, password) if password else None
        self._kwargs: dict[str, Any] = {
            "host": host, "port": port, "user": user, "catalog": catalog, "schema": schema,
            "http_scheme": http_scheme, "auth": auth, "request_timeout": request_timeout_s, "source": "smq-semantic-layer",
        }

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        exceptions = self._trino.exceptions
        properties = {"query_max_execution_time": f"{max(1, math.ceil(timeout_s))}s"}
        conn = self._trino.dbapi.connect(**self._kwargs, session_properties=properties)
        started = time.perf_counter()
        try:
            cursor = conn.cursor()
            with CancelTimer(timeout_s, cursor.cancel) as timer:
                try:
                    cursor.execute(sql)
                    rows = fetch_rows(cursor.fetchmany, max_rows)  # measured as they arrive
                    columns = [d[0] for d in cursor.description or ()]
                    types = description_types(cursor.description)
                except exceptions.TrinoQueryError as error:
                    if timer.fired or error.error_name in _TIMEOUT_ERRORS:
                        raise QueryTimeout(timeout_message(timeout_s)) from None
                    raise ExecutionError(f"{error.error_name}: {error.message}") from None
                except Exception as error:
                    if timer.fired:
                        raise QueryTimeout(timeout_message(timeout_s)) from None
                    if isinstance(error, (exceptions.HttpError, exceptions.TrinoConnectionError, OSError)) or _is_requests_error(error):
                        raise BackendUnavailable(f"cannot reach Trino at {self._kwargs['host']}:{self._kwargs['port']}: {error}") from None
                    raise
            if timer.fired:  # the cancel ended the polling before the query finished
                raise QueryTimeout(timeout_message(timeout_s))
            if len(rows) > max_rows:
                with contextlib.suppress(Exception):  # stop the cluster producing rows nobody reads
                    cursor.cancel()
        finally:
            with contextlib.suppress(Exception):
                conn.close()
        return make_result(columns, rows, max_rows, started, types)

    def close(self) -> None:
        """Nothing pooled: each query opens its own HTTP session."""


def _is_requests_error(error: BaseException) -> bool:
    return type(error).__module__.split(".")[0] in {"requests", "urllib3"}


def settings_from(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """The TrinoExecutor keyword arguments a ``connection:`` block names."""
    keys = ("host", "user", "catalog", "schema", "http_scheme", "password")
    return {k: mapping[k] for k in keys if mapping.get(k) not in (None, "")}


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    require(settings, "host")
    return TrinoExecutor(**settings_from(settings), port=integer(settings, "port", 8080), dialect=dialect)
