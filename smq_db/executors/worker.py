"""An embedded engine (DuckDB, SQLite) run in worker processes under a memory limit: `limits.isolation: process`.

An embedded engine runs in the process that asks it: a query that builds a 4 GB string builds it in the
service. Here each query runs in a worker process of its own database (at most `limits.workers` at once), whose
data segment is held to `limits.memory` by the kernel (RLIMIT_DATA: what the process can fill, heap and
private mappings; not the address space it reserves, of which DuckDB's threads alone take 700 MB). What happens
past the limit:

* DuckDB's allocator fails and DuckDB says "Out of Memory Error" -> ResourceLimitExceeded; the worker lives on;
* Python's copies of the rows fail (MemoryError) -> the same;
* the worker dies anyway (a native abort) -> the same, and the next query gets a new worker.

A query the engine does not stop at its timeout (DuckDB checks for interrupts between vectors, not inside a
`repeat()` that runs for a minute) is stopped by killing its worker `GRACE_S` after the timeout. The worker
applies the caller's result budget (bytes of JSON, the conversion's deadline) itself, so what comes back over
the pipe is already capped. A worker is a fresh interpreter (`smq_db.executors.worker_process`) talking over a socket
pair in length-prefixed JSON frames, never a fork of the service's threads, and independent of how the service's
own main module was started (multiprocessing would re-run that module in the child). The parent runs the
read-only guard before a query is sent; the worker runs what passed it, on its read-only, locked connection.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from engine.dialects import dialect as dialect_of
from engine.errors import EngineError

from ..readonly import ensure_read_only
from .base import (
    _BUDGET,
    DEFAULT_MAX_FETCH_BYTES,
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    InThread,
    QueryResult,
    ResultTooLarge,
    check_limits,
    timeout_message,
)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout, ReadOnlyViolation, SqlSyntaxError
from .limits import MIB, ResourceLimitExceeded, ResourceLimits
from .pool import SimplePool
from .worker_process import Channel, spec_message

GRACE_S = 2.0  # after the query's timeout, how long the engine has to stop it itself before its worker is killed
START_TIMEOUT_S = 60.0  # a worker that has not opened its database by then is not coming
_BOOTSTRAP = ("import json, sys; sys.path[:] = json.loads(sys.argv[2]); "
              "from smq_db.executors.worker_process import main; main()")

_ERRORS: dict[str, type[EngineError]] = {cls.__name__: cls for cls in (
    ExecutionError, QueryTimeout, ResourceLimitExceeded, ResultTooLarge, ReadOnlyViolation, SqlSyntaxError,
    BackendUnavailable)}


def reply_limit(max_bytes: int | None) -> int:
    """The longest reply taken from a worker: the rows' JSON is capped there already (the result budget, else the
    fetch cap's lower bound), so a longer frame is a worker gone wrong, refused before it is allocated."""
    return 2 * (max_bytes if max_bytes is not None else DEFAULT_MAX_FETCH_BYTES) + 64 * MIB


class _Worker:
    """One worker process and the parent's end of its socket pair."""

    def __init__(self, backend: str, path: str, dialect: str, limits: ResourceLimits) -> None:
        ours, theirs = socket.socketpair()
        try:  # this process's import path, so the worker imports the same smq_db (isolated: no PYTHON* variables)
            self.process = subprocess.Popen([sys.executable, "-I", "-c", _BOOTSTRAP, str(theirs.fileno()), json.dumps(sys.path)],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        finally:
            theirs.close()
        self.channel = Channel(ours)
        module = dialect_of(backend).executor.partition(":")[0]
        self.channel.send_json({**spec_message(backend, path, dialect, limits, module), "kinds": sorted(_ERRORS)})
        if not self.channel.poll(START_TIMEOUT_S):
            self.stop()
            raise BackendUnavailable(f"the {backend} worker process did not start within {START_TIMEOUT_S:g} s")
        try:
            reply = self.channel.recv_json(64 * MIB)
        except (EOFError, OSError, ValueError):
            self.stop()
            raise BackendUnavailable(f"the {backend} worker process ended while opening {path} "
                                     f"(exit code {self.process.poll()})") from None
        if reply[0] != "ready":
            self.stop()
            raise _ERRORS.get(reply[1], ExecutionError)(reply[2], code=reply[3])

    def stop(self) -> None:
        """End the worker: asked to stop when idle, killed when it is not (or does not answer)."""
        if self.process.poll() is None:
            try:
                self.channel.send(b"")
                self.process.wait(1.0)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(5.0)
        except subprocess.TimeoutExpired:  # pragma: no cover - a killed process that does not go is the kernel's
            pass
        self.channel.close()


class IsolatedExecutor:
    """The executor of an embedded database whose queries run in worker processes (see the module doc)."""

    def __init__(self, backend: str, path: str | Path, *, dialect: str, limits: ResourceLimits) -> None:
        self.backend = backend
        self.dialect = dialect
        self.limits = limits
        self.path = Path(path)
        if not self.path.is_file():
            raise BackendUnavailable(f"{dialect_of(backend).display} database file not found: {self.path}")
        spec = (backend, str(self.path), dialect, limits)
        self._pool: SimplePool[_Worker] = SimplePool(lambda: _Worker(*spec), _Worker.stop, size=limits.workers)
        self._pool.release(self._pool.acquire())  # one worker now: a file the engine cannot open fails here, as in-process

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        request, max_bytes = self._request(sql, max_rows, timeout_s)
        worker = self._pool.acquire()
        healthy = False
        try:
            worker.channel.send(request)
            if not worker.channel.poll(timeout_s + GRACE_S):  # the engine did not stop it: the worker goes
                raise QueryTimeout(timeout_message(timeout_s))
            try:
                reply = worker.channel.recv_json(reply_limit(max_bytes))
            except (EOFError, OSError):
                raise self._ended(worker) from None
            except ValueError as err:
                raise self._unreadable(err) from None
            healthy = _healthy(reply)
        finally:
            self._give_back(worker, healthy)
        return _result(reply)

    async def execute_async(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S,
                            in_thread: InThread) -> QueryResult:
        """`execute` on an event loop: the worker's reply is awaited on the loop (no thread waits for it); only
        starting a worker, or waiting for one when all are busy, happens in `in_thread`."""
        import asyncio

        request, max_bytes = self._request(sql, max_rows, timeout_s)
        worker = self._pool.acquire_idle()
        if worker is None:
            worker = await in_thread(self._pool.acquire)
        healthy = False
        try:
            worker.channel.send(request)
            try:
                deadline = asyncio.get_running_loop().time() + timeout_s + GRACE_S
                reply = await worker.channel.recv_json_async(reply_limit(max_bytes), deadline)
            except TimeoutError:  # the engine did not stop it: the worker goes
                raise QueryTimeout(timeout_message(timeout_s)) from None
            except (EOFError, OSError):
                raise self._ended(worker) from None
            except ValueError as err:
                raise self._unreadable(err) from None
            healthy = _healthy(reply)
        finally:  # a cancelled request leaves its worker mid-query: it goes too (healthy is still False)
            self._give_back(worker, healthy)
        return _result(reply)

    def _request(self, sql: str, max_rows: int, timeout_s: float) -> tuple[bytes, int | None]:
        check_limits(max_rows, timeout_s)
        # the guard runs here, once: refusals cost no round trip, and the worker runs only what passed it
        ensure_read_only(sql, self.dialect)
        budget = _BUDGET.get()
        max_bytes = budget.max_bytes if budget is not None else None
        budget_s = None
        if budget is not None and budget.deadline is not None:
            budget_s = max(0.0, budget.deadline - time.perf_counter())  # spent: the worker stops at its first chunk
        return json.dumps([sql, max_rows, timeout_s, max_bytes, budget_s]).encode(), max_bytes

    def _ended(self, worker: _Worker) -> ResourceLimitExceeded:
        try:
            code = worker.process.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        return ResourceLimitExceeded(self.limits.memory_message(f"the query (its worker process ended, exit code {code})"))

    def _unreadable(self, err: ValueError) -> ExecutionError:
        # a frame too long, or not JSON: not a worker to trust with another query (it is not given back)
        return ExecutionError(f"the {self.backend} worker process sent an unreadable reply ({err})")

    def _give_back(self, worker: _Worker, healthy: bool) -> None:
        if healthy:
            self._pool.release(worker)
        else:
            worker.kill()
            self._pool.release(worker, discard=True)

    def close(self) -> None:
        self._pool.close()


def _healthy(reply: Any) -> bool:
    # past its memory a worker may keep what it had taken (allocator arenas, a half-built value): a new one
    return not (reply[0] == "error" and reply[1] == "ResourceLimitExceeded")


def _result(reply: Any) -> QueryResult:
    if reply[0] == "ok":
        _, columns, rows, truncated, elapsed_ms, column_types = reply
        return QueryResult(columns, rows, truncated, elapsed_ms, len(rows), column_types)
    raise _ERRORS.get(reply[1], ExecutionError)(reply[2], code=reply[3])
