"""Snowflake executor: snowflake-connector-python, a small pool of sessions.

Timeout: the connector's ``cursor.execute(timeout=...)`` cancels the query on the server when it
expires, and the session's ``STATEMENT_TIMEOUT_IN_SECONDS`` is a server-side backstop. fakesnow,
the Snowflake emulator our tests run on, executes on DuckDB and ignores both, so a timer also
interrupts its DuckDB connection when there is one.

Read-only: Snowflake has no read-only session or transaction mode. Besides the guard, the second
lock must be the ``role``: give the service a role that holds only USAGE and SELECT grants.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
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
from .pool import SimplePool
from .settings import file_path, integer

# connection-mapping keys passed to snowflake.connector.connect as they are
SETTING_KEYS = ("account", "user", "password", "warehouse", "database", "schema", "role", "authenticator",
                "host", "port", "protocol", "login_timeout", "network_timeout", "private_key_file_pwd")
_TIMEOUT_ERRNOS = {604, 630}  # SQL execution canceled; statement reached its statement timeout
MAX_STATEMENT_TIMEOUT_S = 3600  # session backstop; each query's own timeout is shorter


class SnowflakeExecutor:
    backend = "snowflake"

    def __init__(
        self,
        settings: Mapping[str, Any],
        *,
        dialect: str = "snowflake",
        pool_size: int = 4,
        connect: Callable[..., Any] | None = None,
    ) -> None:
        self.dialect = dialect
        connector = import_driver("snowflake.connector", "snowflake-connector-python")
        self._errors = connector.errors
        self._type_names = import_driver("snowflake.connector.constants", "snowflake-connector-python").FIELD_ID_TO_NAME
        self._connect_fn = connect or connector.connect
        self._kwargs = _connect_kwargs(settings)
        self._pool: SimplePool[Any] = SimplePool(self._connect, lambda c: c.close(), size=pool_size)

    def _connect(self) -> Any:
        try:
            return self._connect_fn(**self._kwargs)
        except self._errors.Error as error:
            raise BackendUnavailable(f"cannot connect to Snowflake: {_message(error)}") from None

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        conn = self._pool.acquire()
        discard = False
        started = time.perf_counter()
        cursor = conn.cursor()
        try:
            with CancelTimer(timeout_s, lambda: _interrupt_emulator(conn)) as timer:
                try:
                    cursor.execute(sql, timeout=max(1, math.ceil(timeout_s)))
                    columns = [d[0] for d in cursor.description or ()]
                    types = description_types(cursor.description, self._type_names.get)
                    rows = fetch_rows(cursor.fetchmany, max_rows)  # measured as they arrive
                except Exception as error:
                    if timer.fired or getattr(error, "errno", None) in _TIMEOUT_ERRNOS:
                        raise QueryTimeout(timeout_message(timeout_s)) from None
                    if isinstance(error, (self._errors.OperationalError, self._errors.InterfaceError)):
                        discard = True
                        raise BackendUnavailable(f"Snowflake connection failed: {_message(error)}") from None
                    if isinstance(error, self._errors.Error) or _is_duckdb_error(error):
                        raise ExecutionError(_message(error)) from None
                    raise
        finally:
            try:
                cursor.close()
            finally:
                self._pool.release(conn, discard=discard)
        return make_result(columns, rows, max_rows, started, types)

    def close(self) -> None:
        self._pool.close()


def _connect_kwargs(settings: Mapping[str, Any]) -> dict[str, Any]:
    kwargs = {k: settings[k] for k in SETTING_KEYS if settings.get(k) not in (None, "")}
    if settings.get("private_key_path"):
        kwargs["private_key_file"] = str(settings["private_key_path"])
    params = {"STATEMENT_TIMEOUT_IN_SECONDS": MAX_STATEMENT_TIMEOUT_S, "QUERY_TAG": "smq-semantic-layer"}
    kwargs["session_parameters"] = params | dict(settings.get("session_parameters") or {})
    return kwargs


def _interrupt_emulator(conn: Any) -> None:
    """fakesnow runs on DuckDB and ignores timeout=; interrupt its DuckDB connection instead."""
    duck = getattr(conn, "_duck_conn", None)
    if duck is not None:
        duck.interrupt()


_EMULATOR_MODULES = frozenset({"duckdb", "_duckdb"})  # the Python modules of the engine under fakesnow


def _is_duckdb_error(error: BaseException) -> bool:
    """An error of the local emulator's own engine (fakesnow runs on DuckDB), not of Snowflake."""
    return type(error).__module__.split(".")[0] in _EMULATOR_MODULES


def _message(error: BaseException) -> str:
    msg = getattr(error, "msg", None) or getattr(error, "raw_msg", None)
    return str(msg if msg else error).strip()


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    resolved = dict(settings)
    if settings.get("private_key_path"):
        resolved["private_key_path"] = file_path(settings, "private_key_path", base_dir)
    return SnowflakeExecutor(resolved, dialect=dialect, pool_size=integer(settings, "pool_size", 4))
