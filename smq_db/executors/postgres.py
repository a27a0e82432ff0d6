"""PostgreSQL executor: psycopg 3 with a psycopg_pool pool; every query in a READ ONLY transaction.

The read-only lock is the server's: connections are ``read_only`` (``BEGIN READ ONLY``) with
``default_transaction_read_only`` on, and every query's transaction is rolled back. The timeout is
the server's ``statement_timeout``, so a slow query is cancelled where it runs. Rows are fetched
through a server-side cursor, so a huge result never crosses the wire: at most max_rows + 1 rows are
fetched, a chunk at a time, and fetching stops once they are more JSON than the result's byte cap
(``fetch_rows``): 10,001 rows of 1 MB no longer all reach the client first.

Round trips are what a query costs beyond the database's own work (one per statement, a
millisecond each across a data centre). A query of up to 64 rows makes two: BEGIN READ ONLY, DECLARE
and the first FETCH (64 rows) go in one pipeline, then ROLLBACK (which also closes the cursor); a
longer answer adds a FETCH sized from the bytes per row seen so far (usually one for the rest). Each
connection gets the usual timeout once, when it is made, and a query sets its own (in the same
pipeline) only when it asks for another; connections are not pinged when taken from the pool: a
connection the server dropped fails on first use and the query, being read-only, is simply run
again on a fresh one.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..readonly import ensure_read_only
from .base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    FIRST_FETCH_ROWS,
    Executor,
    QueryResult,
    check_limits,
    fetch_rows,
    import_driver,
    make_result,
    run_retrying_stale,
    strip_trailing_semicolons,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout, StaleConnection
from .settings import integer

_cursor_ids = itertools.count(1)


class PostgresExecutor:
    backend = "postgres"

    def __init__(
        self,
        conninfo: str,
        *,
        dialect: str = "postgres",
        schema: str | None = None,
        pool_size: int = 4,
        connect_timeout_s: float = 10.0,
        default_timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self._psycopg = import_driver("psycopg", "psycopg[binary,pool]")
        self._sql = import_driver("psycopg.sql", "psycopg[binary,pool]")
        pool_module = import_driver("psycopg_pool", "psycopg[binary,pool]")
        self.dialect = dialect
        self.schema = schema
        self._conninfo = conninfo
        self._connect_timeout_s = connect_timeout_s
        self._default_timeout_ms = _timeout_ms(default_timeout_s)
        self._pool = pool_module.ConnectionPool(
            conninfo,
            kwargs={"autocommit": False, "connect_timeout": max(1, int(connect_timeout_s))},
            min_size=1,
            max_size=pool_size,
            open=False,
            configure=self._configure,
            timeout=connect_timeout_s,
            name="smq-postgres",
        )
        self._opened = False
        self._open_lock = threading.Lock()

    def _configure(self, conn: Any) -> None:
        """Run once per new connection: read-only, the usual timeout, string syntax, the search_path (one round trip)."""
        conn.read_only = True  # every transaction starts as BEGIN READ ONLY
        conn.execute(
            "SELECT set_config('default_transaction_read_only', 'on', false), "
            "set_config('statement_timeout', %s, false), set_config('cursor_tuple_fraction', '1', false), "
            # backslashes are plain characters in '...', as the read-only guard (sqlglot) reads them
            "set_config('standard_conforming_strings', 'on', false), "
            "set_config('search_path', COALESCE(%s, current_setting('search_path')), false)",
            [str(self._default_timeout_ms), self.schema],
        )
        conn.commit()

    def _ensure_open(self) -> None:
        """Open the pool on first use, so a service starts even while one database is down."""
        if self._opened:
            return
        with self._open_lock:
            if self._opened:
                return
            try:  # one direct connection first: it reports the real reason (refused, bad password ...)
                self._psycopg.connect(self._conninfo, connect_timeout=max(1, int(self._connect_timeout_s))).close()
                self._pool.open(wait=True, timeout=self._connect_timeout_s)
            except Exception as error:  # psycopg errors and psycopg_pool.PoolTimeout
                raise BackendUnavailable(f"cannot connect to PostgreSQL: {_first_line(error)}") from None
            self._opened = True

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)
        query = strip_trailing_semicolons(sql, self.dialect)  # it is wrapped in DECLARE ... CURSOR FOR
        self._ensure_open()
        return run_retrying_stale(lambda: self._run(query, max_rows, timeout_s), "PostgreSQL")

    def _run(self, query: str, max_rows: int, timeout_s: float) -> QueryResult:
        errors = self._psycopg.errors
        timeout_ms = _timeout_ms(timeout_s)
        first = min(max_rows + 1, FIRST_FETCH_ROWS)  # more in further FETCHes, sized by the bytes seen (fetch_rows)
        try:
            with self._pool.connection(timeout=self._connect_timeout_s) as conn:
                started = time.perf_counter()
                try:
                    sql = self._sql
                    cursor_name = sql.Identifier(f"smq_q{next(_cursor_ids)}")
                    # one round trip for BEGIN READ ONLY, the timeout, DECLARE and the first FETCH
                    with conn.pipeline():
                        if timeout_ms != self._default_timeout_ms:  # this query only (rolled back with it)
                            conn.execute("SELECT set_config('statement_timeout', %s, true)", [str(timeout_ms)])
                        # extended protocol: the server refuses a second statement smuggled into `query`
                        conn.execute(sql.SQL("DECLARE {} NO SCROLL CURSOR FOR ").format(cursor_name) + sql.SQL(query))
                        fetched = conn.execute(sql.SQL("FETCH FORWARD {} FROM {}").format(sql.Literal(first), cursor_name))
                    columns = [c.name for c in fetched.description or ()]
                    types = [c.type_display for c in fetched.description or ()]
                    pending = [fetched.fetchall()]

                    def fetchmany(size: int) -> list[Any]:  # the pipelined first rows, then one FETCH per chunk
                        if pending:
                            return pending.pop()
                        more = conn.execute(sql.SQL("FETCH FORWARD {} FROM {}").format(sql.Literal(size), cursor_name))
                        return more.fetchall()

                    rows = fetch_rows(fetchmany, max_rows, first=first)
                finally:
                    if not conn.closed:
                        conn.rollback()  # nothing to keep, ever
        except errors.QueryCanceled:
            raise QueryTimeout(timeout_message(timeout_s)) from None
        except (errors.AdminShutdown, errors.CrashShutdown) as error:  # the server ended this session
            raise StaleConnection(_first_line(error)) from None
        except self._psycopg.Error as error:
            if getattr(error, "sqlstate", None) is None:  # raised by the client: the connection is gone
                raise StaleConnection(_first_line(error)) from None
            raise ExecutionError(_pg_message(error)) from None
        except Exception as error:  # psycopg_pool.PoolTimeout: every connection busy or server gone
            if type(error).__module__.startswith("psycopg_pool"):
                raise BackendUnavailable(f"no PostgreSQL connection available: {error}") from None
            raise
        return make_result(columns, rows, max_rows, started, types)

    def close(self) -> None:
        self._pool.close()


def _timeout_ms(timeout_s: float) -> int:
    return max(1, int(timeout_s * 1000))


def _pg_message(error: Any) -> str:
    """The server's message with its detail/hint lines, not psycopg's wrapper text."""
    diag = getattr(error, "diag", None)
    primary = getattr(diag, "message_primary", None)
    if diag is None or not primary:
        return _first_line(error)
    extra = [f"{label}: {text}" for label, text in (("DETAIL", diag.message_detail), ("HINT", diag.message_hint)) if text]
    return "\n".join([primary, *extra])


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def from_settings(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    """The executor from a database.yml `connection:` mapping (its dialect names this function)."""
    conninfo_module = import_driver("psycopg.conninfo", "psycopg[binary,pool]")
    parts = {"host": settings.get("host"), "port": settings.get("port"), "user": settings.get("user"),
             "password": settings.get("password"), "dbname": settings.get("database")}
    conninfo = conninfo_module.make_conninfo(str(settings.get("url") or ""), **{k: str(v) for k, v in parts.items() if v not in (None, "")})
    return PostgresExecutor(conninfo, dialect=dialect, schema=settings.get("schema"), pool_size=integer(settings, "pool_size", 4),
                            connect_timeout_s=float(settings.get("connect_timeout", 10)), default_timeout_s=default_timeout_s)
