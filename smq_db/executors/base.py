"""The one interface every backend implements, and the pieces they share.

An executor runs one read-only query and returns JSON-safe rows. Every backend enforces the
same three things so callers never care which engine they talk to:

* the read-only guard runs first, and the connection itself is read-only too (two locks);
* at most ``max_rows`` rows come back, ``truncated`` says whether more existed;
* a per-query timeout really cancels the query on the engine, and the connection stays usable.

A caller may also set a ``result_budget`` around ``execute`` (the service does, for every call): the
JSON size of the rows is then capped too (``ResultTooLarge``), and making them JSON-safe counts
against the query's timeout (``QueryTimeout``), so a 200 MB cell or ten million small rows cannot
hold a worker past either. It is a context variable so that every backend gets it without each
executor passing it along.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import datetime as dt
import functools
import heapq
import itertools
import math
import operator
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

from .errors import ExecutionError, QueryTimeout

DEFAULT_MAX_ROWS = 10_000
DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class QueryResult:
    """Rows of one query, JSON-safe (see ``to_json_value``), capped at the caller's max_rows."""

    columns: list[str]
    rows: list[list]
    truncated: bool  # the query had more rows than max_rows
    elapsed_ms: float
    row_count: int  # rows returned here, i.e. len(rows)
    # each column's type as the database reports it (cursor description or the engine's own type);
    # None for a column (or every column) whose backend reports none, e.g. SQLite
    column_types: list[str | None] | None = None

    def to_dict(self) -> dict:
        return {
            "columns": self.columns,
            "rows": self.rows,
            "truncated": self.truncated,
            "elapsed_ms": self.elapsed_ms,
            "row_count": self.row_count,
            "column_types": self.column_types,
        }


def description_types(description: Sequence[Sequence[Any]] | None,
                      names: Callable[[Any], str | None] | None = None) -> list[str | None]:
    """Each column's database type from a DB-API cursor description (its `type_code`), as text.

    Drivers disagree on `type_code`: a type name (Trino, Databricks), a type object whose text is the
    name (DuckDB), a number (MySQL, Snowflake: `names` maps it) or None (SQLite). Front ends show the
    text as is, so no normalisation happens here (the service derives the semantic type from it).
    """
    out: list[str | None] = []
    for column in description or ():
        code = column[1] if len(column) > 1 else None
        if names is not None:
            out.append(names(code))
        elif code is None or isinstance(code, (int, float)):
            out.append(None)
        else:
            out.append(str(code))
    return out


@runtime_checkable
class Executor(Protocol):
    """Runs read-only SQL on one database."""

    backend: str  # sqlite | duckdb | postgres | mysql | snowflake | bigquery
    dialect: str  # the sqlglot dialect the SQL is written in

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        """Guard, run, cap and time one query; raise ExecutionError / QueryTimeout / ReadOnlyViolation."""
        ...

    def close(self) -> None:
        """Release connections; the executor is unusable afterwards."""
        ...


# How an async caller runs a blocking call: in a worker thread of its own event loop (the service passes
# Starlette's `run_in_threadpool`-style callable), context variables (the result budget) carried along.
InThread = Callable[[Callable[[], Any]], Awaitable[Any]]


async def execute_async(executor: Any, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S,
                        in_thread: InThread) -> QueryResult:
    """`executor.execute` from an event loop: natively when the executor can wait on the loop (a worker process's
    socket, `IsolatedExecutor.execute_async`), else the blocking call in `in_thread`."""
    native = getattr(type(executor), "execute_async", None)
    if native is not None:
        result: QueryResult = await executor.execute_async(sql, max_rows=max_rows, timeout_s=timeout_s, in_thread=in_thread)
        return result
    return await in_thread(functools.partial(executor.execute, sql, max_rows=max_rows, timeout_s=timeout_s))


def to_json_value(value: Any) -> Any:
    """One database value as a JSON-safe Python value.

    Rules (the same for every backend, so results compare across engines):
    * None, bool, int, str stay as they are (bool is checked before int: it stays a bool).
    * float stays a float; NaN and +/-Infinity become None (JSON has no such numbers).
    * Decimal becomes a JSON number: an int when written without fractional digits
      (``Decimal('12')``, exact at any size), otherwise a float (about 15-17 significant digits
      kept: enough for reporting, not for accounting); NaN/Infinity become None.
    * datetime, date, time become ISO 8601 strings (``2024-01-31T12:00:00+00:00`` keeps the offset
      of aware values; naive values have none); timedelta becomes an ISO 8601 duration
      (``P1DT2H3M4.5S``, negative as ``-P...``).
    * bytes, bytearray, memoryview become **base64** strings (standard alphabet, padded).
    * UUID becomes its canonical string; lists, tuples and sets become lists; dicts become dicts
      with string keys (DuckDB LIST/STRUCT/MAP, PostgreSQL arrays and JSON, BigQuery records).
    * anything else becomes ``str(value)`` (IP addresses, enums, ranges).
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        if not value.is_finite():
            return None
        exponent = value.as_tuple().exponent
        return int(value) if isinstance(exponent, int) and exponent >= 0 else float(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return _iso_duration(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json_value(v) for v in value]
    return str(value)


def _iso_duration(delta: dt.timedelta) -> str:
    sign = "-" if delta < dt.timedelta(0) else ""
    delta = abs(delta)
    hours, rest = divmod(delta.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    secs = seconds + delta.microseconds / 1_000_000
    secs_text = f"{secs:.6f}".rstrip("0").rstrip(".")
    days = f"{delta.days}D" if delta.days else ""
    clock = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M")) if n) + (f"{secs_text}S" if secs else "")
    if not days and not clock:
        return "PT0S"
    return f"{sign}P{days}" + (f"T{clock}" if clock else "")


class ResultTooLarge(ExecutionError):
    """The rows, as JSON, are larger than the caller's byte cap; fewer rows or columns would fit."""

    code = "result_too_large"


@dataclass(frozen=True)
class ResultBudget:
    """What one query's result may cost beyond its rows: JSON bytes, and time up to a deadline."""

    max_bytes: int | None
    timeout_s: float | None
    deadline: float | None  # time.perf_counter() value; None: no deadline


_BUDGET: contextvars.ContextVar[ResultBudget | None] = contextvars.ContextVar("smq_result_budget", default=None)
BUDGET_CHUNK_ROWS = 1024  # rows converted and measured at a time under a budget


class result_budget:  # noqa: N801 - used as a function: `with result_budget(...) as budget:`
    """Within the block, ``make_result`` caps the rows' JSON at ``max_bytes`` and stops converting
    them once ``timeout_s`` (from now) has passed; an executor's timeout covers only the database.
    (A class, not a generator context manager: it is entered around every query.)"""

    __slots__ = ("max_bytes", "timeout_s", "_token")

    def __init__(self, *, max_bytes: int | None, timeout_s: float | None) -> None:
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    def __enter__(self) -> ResultBudget:
        deadline = None if self.timeout_s is None else time.perf_counter() + self.timeout_s
        budget = ResultBudget(self.max_bytes, self.timeout_s, deadline)
        self._token = _BUDGET.set(budget)
        return budget

    def __exit__(self, *exc: object) -> None:
        _BUDGET.reset(self._token)


DEFAULT_MAX_FETCH_BYTES = 256 * 1024 * 1024  # without a result budget (CLI, authoring): what a driver may hand over
FIRST_FETCH_ROWS = 64  # the first chunk; later ones are sized from the bytes per row seen so far
MAX_FETCH_ROWS = 65_536


def fetch_cap() -> tuple[int, bool]:
    """The bytes of JSON a fetch may gather (the result budget's, else DEFAULT_MAX_FETCH_BYTES), and whether it
    is the caller's budget."""
    budget = _BUDGET.get()
    if budget is not None and budget.max_bytes is not None:
        return budget.max_bytes, True
    return DEFAULT_MAX_FETCH_BYTES, False


def fetch_rows(fetchmany: Callable[[int], Sequence[Sequence[Any]]], max_rows: int, *, first: int = FIRST_FETCH_ROWS
               ) -> list[Sequence[Any]]:
    """At most ``max_rows + 1`` rows from a driver, a chunk at a time, measured while they arrive: once what was
    fetched is surely more JSON than the cap (`fetch_cap`; measured by `json_size_floor`, a lower bound, so
    nothing the JSON cap would pass is refused here), ResultTooLarge, and nothing more is read. Before, every
    executor fetched all ``max_rows + 1`` rows first: 10,001 rows of 1 MB were 10 GB in the process.

    Chunks grow with the room left (the bytes per row seen so far), so a small answer costs one or two calls."""
    cap, budgeted = fetch_cap()
    limit = max_rows + 1
    rows: list[Sequence[Any]] = []
    size = 1
    want = min(first, limit)
    while want > 0:
        chunk = fetchmany(want)
        if not chunk:
            break
        size += json_size_floor(chunk)
        if size > cap:
            raise ResultTooLarge(
                f"the result is larger than the cap of {cap:,} bytes of JSON (passed within the first "
                f"{len(rows) + len(chunk):,} rows, while they were fetched); ask for fewer rows at a time (`limit` and "
                "`offset` on a query, LIMIT/OFFSET in SQL), fewer or smaller columns, or filters"
                + ("" if budgeted else " (the executor's own cap without a result budget)"))
        rows.extend(chunk)
        if len(chunk) < want:  # DB-API: fewer rows than asked for means there are no more
            break
        per_row = max(1, (size - 1) // len(rows))
        want = min(limit - len(rows), MAX_FETCH_ROWS, max(FIRST_FETCH_ROWS, (cap - size) // per_row + 1))
    return rows


def iterator_fetchmany(rows: Iterable[Sequence[Any]]) -> Callable[[int], list[Sequence[Any]]]:
    """A DB-API `fetchmany` over a driver's row iterator (BigQuery's pages, Spark's local iterator)."""
    iterator = iter(rows)
    return lambda size: list(itertools.islice(iterator, size))


_FLOOR_PLAIN = frozenset({type(None), bool, int, float, Decimal})


def json_size_floor(rows: Sequence[Sequence[Any]]) -> int:
    """A lower bound of the bytes `rows` take as JSON once made JSON-safe: each row's brackets and commas, a
    string's characters and quotes, a blob's base64 text, a list's items; 1 byte for any other value. Column by
    column in C-level passes for the usual columns of numbers or strings."""
    if not rows:
        return 0
    widths = set(map(len, rows))
    if len(widths) != 1:
        return sum(_value_floor(list(row)) for row in rows)
    width = widths.pop()
    total = len(rows) * (width + 2)  # [ ... ] and the commas between values and rows
    for column in zip(*rows):
        kinds = set(map(type, column))
        if kinds <= _FLOOR_PLAIN:
            continue  # at least a byte each: counted with the commas above
        if kinds <= {str, type(None)}:
            total += sum(map(len, filter(None, column))) + 2 * len(column)
        else:
            total += sum(map(_value_floor, column))
    return total


def _value_floor(value: Any) -> int:
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, (bytes, bytearray, memoryview)):
        return (len(value) + 2) // 3 * 4 + 2
    if isinstance(value, (list, tuple, set, frozenset)):
        return 2 + sum(_value_floor(v) + 1 for v in value)
    if isinstance(value, dict):
        return 2 + sum(len(str(k)) + 4 + _value_floor(v) for k, v in value.items())
    return 1


def make_result(columns: Sequence[str], rows: Iterable[Sequence[Any]], max_rows: int, started: float,
                column_types: Sequence[str | None] | None = None) -> QueryResult:
    """Build the capped, JSON-safe result; ``rows`` may hold max_rows + 1 rows (the probe row)."""
    taken = list(itertools.islice(rows, max_rows + 1))
    truncated = len(taken) > max_rows
    if truncated:
        del taken[max_rows:]
    budget = _BUDGET.get()
    kept = json_safe_rows(taken, len(columns)) if budget is None else _budgeted_rows(taken, len(columns), budget)
    elapsed = round((time.perf_counter() - started) * 1000, 3)
    types = list(column_types) if column_types is not None and len(column_types) == len(columns) else None
    return QueryResult(list(columns), kept, truncated, elapsed, len(kept), types)


def _budgeted_rows(rows: list[Sequence[Any]], width: int, budget: ResultBudget) -> list[list]:
    """``json_safe_rows`` a chunk at a time, each chunk measured as JSON and the deadline checked between."""
    import pydantic_core  # on first use: the CLI and a worker without a budget never need it

    out: list[list] = []
    size = 1  # "[" + each chunk without its own "[" (its "]" stands for the comma, or the closing "]")
    for start in range(0, len(rows), BUDGET_CHUNK_ROWS):
        if budget.deadline is not None and time.perf_counter() > budget.deadline:
            raise QueryTimeout(f"the result was still being converted when the query's {budget.timeout_s:g} s "
                               f"timeout passed (after {start:,} of {len(rows):,} rows); ask for fewer rows or columns")
        chunk = json_safe_rows(rows[start:start + BUDGET_CHUNK_ROWS], width)
        if budget.max_bytes is not None:
            size += len(pydantic_core.to_json(chunk)) - 1
            if size > budget.max_bytes:
                raise ResultTooLarge(
                    f"the result is larger than the cap of {budget.max_bytes:,} bytes of JSON (passed within rows "
                    f"{start + 1:,}-{start + len(chunk):,} of {len(rows):,}); ask for fewer rows at a time "
                    "(`limit` and `offset` on a query, LIMIT/OFFSET in SQL), fewer columns, or filters")
        out.extend(chunk)
    return out


_EXPONENT = operator.attrgetter("exponent")
_NONE_TYPE = type(None)
_PLAIN_TYPES = frozenset({_NONE_TYPE, bool, int, str})


def json_safe_rows(rows: Sequence[Sequence[Any]], width: int) -> list[list]:
    """``to_json_value`` over every value, a column at a time.

    A driver returns one type per column (plus NULLs), so a column of ints or strings is checked
    with one C-level pass (``set(map(type, ...))``) and kept as is, and a column of dates is
    converted by one bound method: several times faster than a Python call per value on
    thousand-row answers, with the same result.
    """
    if not rows:
        return []
    if width == 0 or set(map(len, rows)) != {width}:  # ragged rows: value by value
        return [[to_json_value(v) for v in row] for row in rows]
    columns = [_json_safe_column(values) for values in zip(*rows)]
    return [list(row) for row in zip(*columns)]


def _json_safe_column(values: tuple) -> Sequence[Any]:
    kinds = set(map(type, values))
    if kinds <= _PLAIN_TYPES:
        return values
    nullable = _NONE_TYPE in kinds
    kinds.discard(_NONE_TYPE)
    if len(kinds) == 1:
        (kind,) = kinds
        present = [v for v in values if v is not None] if nullable else values
        converted = _convert_uniform(kind, present)
        if converted is not None:
            if not nullable:
                return converted
            it = iter(converted)
            return [None if v is None else next(it) for v in values]
    return [to_json_value(v) for v in values]


def _convert_uniform(kind: type, values: Sequence[Any]) -> Sequence[Any] | None:
    """The values (all of type `kind`) made JSON-safe in C-level passes, or None when no fast path applies."""
    if kind is float:
        return values if all(map(math.isfinite, values)) else None
    if kind in (dt.datetime, dt.date, dt.time):
        return list(map(kind.isoformat, values))
    if kind is Decimal:  # one scale per column is the rule (NUMERIC(p, s), SUM of it)
        exponents = set(map(_EXPONENT, map(Decimal.as_tuple, values)))
        if all(isinstance(e, int) for e in exponents):  # finite ('n', 'N', 'F' mark NaN/Infinity)
            if min(exponents) >= 0:
                return list(map(int, values))
            if max(exponents) < 0:
                return list(map(float, values))
    return None


def check_limits(max_rows: int, timeout_s: float) -> None:
    """Refuse nonsense limits early: they are caller bugs, not database errors."""
    if max_rows < 0:
        raise ValueError(f"max_rows must be >= 0, got {max_rows}")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0, got {timeout_s}")


def strip_trailing_semicolons(sql: str, dialect: str) -> str:
    """The SQL up to its last real token, so drivers that wrap it (DECLARE ... CURSOR FOR) work.

    Trailing semicolons and comments go; everything else is passed through byte for byte. SQL
    without a semicolon needs nothing (a trailing comment ends the wrapped statement harmlessly),
    and the rest is remembered: tokenizing costs a quarter of a millisecond on a 2 KB query.
    """
    if ";" not in sql:
        return sql
    return _strip_trailing_semicolons(sql, dialect)


@functools.lru_cache(maxsize=1024)
def _strip_trailing_semicolons(sql: str, dialect: str) -> str:
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.tokens import TokenType

    tokens = [t for t in Dialect.get_or_raise(dialect).tokenize(sql) if t.token_type != TokenType.SEMICOLON]
    return sql[: tokens[-1].end + 1] if tokens else sql


class _Watchdog:
    """One thread that fires every pending cancellation at its deadline.

    A thread per query (threading.Timer) costs ~0.3 ms to start, a sizeable share of a small
    query's time; one long-lived thread with a heap of deadlines costs nothing per query.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, CancelTimer]] = []
        self._seq = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, deadline: float, timer: CancelTimer) -> None:
        with self._cond:
            self._seq += 1
            entry = (deadline, self._seq, timer)
            heapq.heappush(self._heap, entry)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="smq-query-watchdog", daemon=True)
                self._thread.start()
            if self._heap[0] is entry:
                # only a new earliest deadline needs the thread awake; waking it for every query
                # would hand the GIL to it and back on each one
                self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._heap and self._heap[0][2].done:
                    heapq.heappop(self._heap)  # finished in time: forget it
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, _, timer = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
            timer.fire()  # outside the lock: a cancel may block on the driver


_WATCHDOG = _Watchdog()


class CancelTimer:
    """Calls ``cancel`` once ``timeout_s`` has passed, unless the block finished first.

    Used as a context manager around the blocking database call; ``fired`` tells afterwards
    whether the error the driver raised comes from our cancellation (then it is a QueryTimeout).
    """

    def __init__(self, timeout_s: float, cancel: Callable[[], Any]) -> None:
        self.fired = False
        self.done = False
        self._cancel = cancel
        self._cancellation: Cancellation | None = None
        self._timeout_s = timeout_s
        self._lock = threading.Lock()  # no cancel may land after __exit__ (on the next query)

    def fire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.fired = True
            with contextlib.suppress(Exception):  # cancelling a finished query may fail; nothing to do
                self._cancel()

    def __enter__(self) -> CancelTimer:
        _WATCHDOG.add(time.monotonic() + self._timeout_s, self)
        self._cancellation = _CANCELLATION.get()
        if self._cancellation is not None:
            self._cancellation.add(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.done = True
        if self._cancellation is not None:
            self._cancellation.discard(self)


class Cancellation:
    """A caller's handle on the queries running inside its ``cancellable()`` block, from another thread.

    ``cancel()`` fires their ``CancelTimer`` at once (the same cancel on the engine as the timeout: the
    executor then raises ``QueryTimeout``, and ``cancelled`` tells the caller it was its own request). The
    PostgreSQL-protocol listener uses it for a client's CancelRequest. Backends that time out on the server
    instead of with a ``CancelTimer`` (PostgreSQL's statement_timeout, SQLite's progress handler) finish.
    """

    def __init__(self) -> None:
        self.cancelled = False
        self._timers: set[CancelTimer] = set()
        self._lock = threading.Lock()

    def add(self, timer: CancelTimer) -> None:
        with self._lock:
            self._timers.add(timer)
            fire = self.cancelled
        if fire:
            timer.fire()

    def discard(self, timer: CancelTimer) -> None:
        with self._lock:
            self._timers.discard(timer)

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            timers = list(self._timers)
        for timer in timers:
            timer.fire()


_CANCELLATION: contextvars.ContextVar[Cancellation | None] = contextvars.ContextVar("smq_cancellation", default=None)


@contextlib.contextmanager
def cancellable(cancellation: Cancellation) -> Iterator[Cancellation]:
    """Within the block (in this thread), every query's CancelTimer also answers ``cancellation.cancel()``."""
    token = _CANCELLATION.set(cancellation)
    try:
        yield cancellation
    finally:
        _CANCELLATION.reset(token)


def run_retrying_stale(run: Callable[[], QueryResult], backend: str) -> QueryResult:
    """Run a read-only query; if its connection had died under it, once more on a fresh one."""
    from .errors import BackendUnavailable, StaleConnection

    try:
        return run()
    except StaleConnection:
        pass
    try:
        return run()
    except StaleConnection as stale:
        raise BackendUnavailable(f"{backend} connection failed: {stale}") from None


def timeout_message(timeout_s: float) -> str:
    return f"the query was cancelled after {timeout_s:g} s (timeout); simplify it, add filters or a LIMIT"


def import_driver(module: str, package: str) -> Any:
    """Import a backend's driver on first use, so only the backends a deployment uses need installing."""
    import importlib

    from .errors import BackendUnavailable

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise BackendUnavailable(
            f"the Python package '{package}' is needed for this backend but is not installed "
            f"({error}); install it with: pip install {package}"
        ) from None
