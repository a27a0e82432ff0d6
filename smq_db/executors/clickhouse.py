"""ClickHouse executor: clickhouse-connect (HTTP) to a ClickHouse server or ClickHouse Cloud.

The limits travel as settings of every query, enforced by the server:
``readonly = 1`` (reads only; ``SET`` refused), ``max_execution_time`` (the server stops the query),
``max_result_rows`` = max_rows + 1 with ``result_overflow_mode = 'break'`` (the server stops
producing rows past the cap instead of failing), ``max_result_bytes`` (a byte cap, same mode) and
``join_use_nulls = 1`` (the compiled SQL carries it too: LEFT JOIN misses are NULL, not '' or 0).
A timer also cancels the HTTP request from the client. ClickHouse accepts a query-level SETTINGS
clause under readonly = 1 only when it does not change a value: our compiled SQL sets
join_use_nulls = 1, the value the request already has.

Not tested against a ClickHouse server here (the tests run the compiled SQL on chdb, ClickHouse
in-process, which has another API); see docs/dialects.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..readonly import ensure_read_only
from ..unsafe_functions import refuse_unsafe
from .base import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, CancelTimer, Executor, QueryResult, check_limits, import_driver, make_result, timeout_message
from .errors import BackendUnavailable, ExecutionError, QueryTimeout
from .settings import require

DEFAULT_MAX_RESULT_BYTES = 256 * 1024 * 1024
_TIMEOUT_CODES = {159, 394}  # TIMEOUT_EXCEEDED, QUERY_WAS_CANCELLED
CONNECT_KEYS = ("host", "port", "username", "password", "database", "secure", "verify", "connect_timeout")


def query_settings(max_rows: int, timeout_s: float, max_result_bytes: int) -> dict[str, Any]:
    """The server-side limits of one query (see the module docstring)."""
    return {
        "readonly": 1,
        "max_execution_time": max(1, math.ceil(timeout_s)),
        "max_result_rows": max_rows + 1,
        "max_result_bytes": max_result_bytes,
        "result_overflow_mode": "break",
        "join_use_nulls": 1,
    }


class ClickHouseExecutor:
    backend = "clickhouse"

    def __init__(self, settings: Mapping[str, Any], *, dialect: str = "clickhouse") -> None:
        self.dialect = dialect
        self._driver = import_driver("clickhouse_connect", "clickhouse-connect")
        self._kwargs = {k: settings[k] for k in CONNECT_KEYS if settings.get(k) not in (None, "")}
        if "user" in settings and "username" not in self._kwargs:
            self._kwargs["username"] = settings["user"]
        self._max_result_bytes = int(settings.get("max_result_bytes") or DEFAULT_MAX_RESULT_BYTES)
        self._client: Any = None

    def _connected(self) -> Any:
        if self._client is None:
            try:
                self._client = self._driver.get_client(**self._kwargs, autogenerate_session_id=False)
            except Exception as error:  # connection refused, bad credentials, TLS
                raise BackendUnavailable(f"cannot connect to ClickHouse: {_first_line(error)}") from None
        return self._client

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        refuse_unsafe(sql, self.dialect)  # engine-specific table functions and settings (smq_db/unsafe_functions.py)
        client = self._connected()
        started = time.perf_counter()
        with CancelTimer(timeout_s, client.close) as timer:
            try:
                result = client.query(sql, settings=query_settings(max_rows, timeout_s, self._max_result_bytes))
            except Exception as error:
                code = getattr(error, "code", None)
                if timer.fired or code in _TIMEOUT_CODES:
                    self._client = None  # closed by the timer: a fresh client next time
                    raise QueryTimeout(timeout_message(timeout_s)) from None
                if type(error).__name__ in ("OperationalError",):
                    self._client = None
                    raise BackendUnavailable(f"ClickHouse connection failed: {_first_line(error)}") from None
                raise ExecutionError(_first_line(error)) from None
        types = [getattr(t, "name", None) for t in result.column_types]  # ClickHouse's own type names
        return make_result(list(result.column_names), result.result_rows, max_rows, started, types)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    require(settings, "host")
    return ClickHouseExecutor(settings, dialect=dialect)
