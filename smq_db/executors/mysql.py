"""MySQL / MariaDB executor: pymysql with a small pool of our own (pymysql has none).

Read-only twice: the guard, and the session: ``SET SESSION TRANSACTION READ ONLY`` makes every
transaction of the connection read-only, the autocommit one each query runs in included (pymysql
never enables multi-statements, so no query can switch it back). The timeout is the server's own
per-statement limit (MariaDB ``max_statement_time`` in seconds, MySQL ``max_execution_time`` in ms),
so the server kills a slow query itself. ``sql_select_limit`` makes the server stop after
max_rows + 1 rows; a LIMIT written in the query takes precedence, so rows are read unbuffered and,
when more are left than we keep, the query is stopped with KILL QUERY from a second connection.

One round trip per query in the usual case: the limits are set only when they change, and a
connection is not pinged when taken from the pool; one the server dropped fails on first use and
the query, being read-only, runs again on a fresh connection.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..readonly import ensure_read_only
from .base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    Executor,
    QueryResult,
    ResultTooLarge,
    check_limits,
    description_types,
    fetch_rows,
    import_driver,
    make_result,
    run_retrying_stale,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout, StaleConnection
from .pool import SimplePool
from .settings import integer

# server error numbers meaning "your statement ran out of time / was killed"
_TIMEOUT_ERRORS = {1969, 3024, 1317}  # MariaDB max_statement_time, MySQL max_execution_time, KILL QUERY
# sql_mode flags that change where strings and identifiers end (see _connect)
_GUARD_UNSAFE_SQL_MODES = {"NO_BACKSLASH_ESCAPES", "ANSI_QUOTES", "ANSI"}
# client error numbers meaning the connection is gone (CR_* codes) or could not be made
_CONNECTION_ERRORS = {2002, 2003, 2005, 2006, 2013, 2055, 1040, 1045, 1049}


class MySQLExecutor:
    backend = "mysql"

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 3306,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        dialect: str = "mysql",
        pool_size: int = 4,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self._pymysql = import_driver("pymysql", "pymysql")
        field_types = import_driver("pymysql.constants.FIELD_TYPE", "pymysql")  # type codes -> names (LONGLONG, NEWDECIMAL)
        self._type_names: dict[int, str] = {}
        for name, code in vars(field_types).items():  # the first name of a code: TINY, not its alias CHAR
            if name.isupper() and isinstance(code, int):
                self._type_names.setdefault(code, name)
        self.dialect = dialect
        self._settings = {
            "host": host, "port": int(port), "user": user, "password": password or "", "database": database,
            "connect_timeout": connect_timeout_s, "autocommit": True, "charset": "utf8mb4",
        }
        self._pool: SimplePool[Any] = SimplePool(self._connect, lambda c: c.close(), size=pool_size)

    def _connect(self) -> Any:
        try:
            conn = self._pymysql.connect(**self._settings)
        except self._pymysql.MySQLError as error:
            where = f"{self._settings['host']}:{self._settings['port']}"
            raise BackendUnavailable(f"cannot connect to MySQL/MariaDB at {where}: {_message(error)}") from None
        conn.is_mariadb = "mariadb" in conn.get_server_info().lower()
        with conn.cursor() as cursor:
            cursor.execute("SET SESSION TRANSACTION READ ONLY")
            # strings and identifiers must end where the read-only guard (sqlglot) thinks they do:
            # no NO_BACKSLASH_ESCAPES (a backslash would not escape a quote), no ANSI_QUOTES ("..." an identifier)
            cursor.execute("SELECT @@SESSION.sql_mode")
            modes = [m for m in str(cursor.fetchone()[0] or "").split(",") if m]
            kept = [m for m in modes if m.upper() not in _GUARD_UNSAFE_SQL_MODES]
            if kept != modes:
                cursor.execute("SET SESSION sql_mode = %s", (",".join(kept),))
        return conn

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        return run_retrying_stale(lambda: self._run(sql, max_rows, timeout_s), "MySQL/MariaDB")

    def _run(self, sql: str, max_rows: int, timeout_s: float) -> QueryResult:
        conn = self._acquire_prepared(max_rows, timeout_s)
        discard = True  # unless the connection is known clean afterwards, close it
        try:
            started = time.perf_counter()
            cursor = conn.cursor(self._pymysql.cursors.SSCursor)  # unbuffered: read only what we keep
            cursor.execute(sql)
            columns = [d[0] for d in cursor.description or ()]
            types = description_types(cursor.description, self._type_names.get)
            try:
                rows = fetch_rows(cursor.fetchmany, max_rows)  # unbuffered: measured as they arrive
            except ResultTooLarge:  # rows left on the wire: stop the server, read what ends the killed query
                self._kill_query(conn)
                with contextlib.suppress(self._pymysql.MySQLError):
                    cursor.close()
                discard = not self._alive(conn)
                raise
            killed = len(rows) > max_rows and cursor.fetchone() is not None
            if killed:
                self._kill_query(conn)  # rows left on the wire: stop the server instead of reading them
            with contextlib.suppress(self._pymysql.MySQLError):
                cursor.close()  # reads what is left: nothing, or the error ending a killed query
            discard = killed and not self._alive(conn)
            return make_result(columns, rows, max_rows, started, types)
        except self._pymysql.MySQLError as error:
            translated = self._translate(error, timeout_s)
            if isinstance(translated, BackendUnavailable):  # the connection is gone: worth one more try
                raise StaleConnection(_message(error)) from None
            discard = False  # a server-side error (timeout, bad SQL): the session is fine
            raise translated from None
        finally:
            self._pool.release(conn, discard=discard)

    def _acquire_prepared(self, max_rows: int, timeout_s: float) -> Any:
        """A pooled connection with this query's limits set; a stale one (server restarted) is replaced once."""
        for attempt in (1, 2):
            conn = self._pool.acquire()
            try:
                self._prepare(conn, max_rows, timeout_s)
                return conn
            except self._pymysql.MySQLError as error:
                self._pool.release(conn, discard=True)
                translated = self._translate(error, timeout_s)
                if attempt == 2 or not isinstance(translated, BackendUnavailable):
                    raise translated from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _kill_query(self, conn: Any) -> None:
        """KILL QUERY from a second connection; if that fails, draining is still bounded by the timeout."""
        try:
            other = self._pymysql.connect(**self._settings)
            try:
                with other.cursor() as cursor:
                    cursor.execute("KILL QUERY %s", (conn.thread_id(),))
            finally:
                other.close()
        except self._pymysql.MySQLError:
            pass

    def _alive(self, conn: Any) -> bool:
        """Whether the connection still answers (after a KILL QUERY)."""
        try:
            conn.ping(reconnect=False)
            return True
        except self._pymysql.MySQLError:
            return False

    def _prepare(self, conn: Any, max_rows: int, timeout_s: float) -> None:
        """The server-side time and row limits of this query, when they differ from the session's last ones."""
        limits = (max_rows, timeout_s)
        if getattr(conn, "smq_limits", None) == limits:
            return
        conn.smq_limits = None  # unknown until the SET succeeded
        with conn.cursor() as cursor:
            if conn.is_mariadb:
                cursor.execute("SET SESSION max_statement_time = %s, sql_select_limit = %s", (round(timeout_s, 6), max_rows + 1))
            else:
                cursor.execute("SET SESSION max_execution_time = %s, sql_select_limit = %s", (max(1, int(timeout_s * 1000)), max_rows + 1))
        conn.smq_limits = limits

    def _translate(self, error: Exception, timeout_s: float) -> Exception:
        code = error.args[0] if error.args and isinstance(error.args[0], int) else None
        if code in _TIMEOUT_ERRORS:
            return QueryTimeout(timeout_message(timeout_s))
        if code in _CONNECTION_ERRORS or isinstance(error, self._pymysql.err.InterfaceError):
            return BackendUnavailable(f"MySQL/MariaDB connection failed: {_message(error)}")
        return ExecutionError(_message(error))

    def close(self) -> None:
        self._pool.close()


def _message(error: BaseException) -> str:
    """pymysql errors are (code, message) tuples; users want the message."""
    if len(error.args) >= 2 and isinstance(error.args[1], str):
        return error.args[1]
    return str(error) or type(error).__name__


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    merged = dict(settings)
    if settings.get("url"):  # mysql://user:password@host:port/database; explicit keys win
        url = urlparse(str(settings["url"]))
        from_url = {"host": url.hostname, "port": url.port, "user": unquote(url.username or "") or None,
                    "password": unquote(url.password or "") or None, "database": url.path.lstrip("/") or None}
        merged = {k: v for k, v in from_url.items() if v is not None} | {k: v for k, v in settings.items() if v not in (None, "")}
    return MySQLExecutor(host=str(merged.get("host") or "127.0.0.1"), port=integer(merged, "port", 3306), user=merged.get("user"),
                         password=merged.get("password"), database=merged.get("database"), dialect=dialect,
                         pool_size=integer(merged, "pool_size", 4), connect_timeout_s=float(merged.get("connect_timeout", 10)))
