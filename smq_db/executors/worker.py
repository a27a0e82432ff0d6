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
the pipe is already capped. A worker is a fresh interpreter (`python -m smq_db.executors.worker`) talking over
a socket pair, never a fork of the service's threads, and independent of how the service's own main module
was started (multiprocessing would re-run that module in the child).
"""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import import_module
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from engine.dialects import dialect as dialect_of
from engine.errors import EngineError

from .base import (DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, QueryResult, ResultTooLarge, _BUDGET, check_limits, result_budget,
                   timeout_message)
from .errors import BackendUnavailable, ExecutionError, QueryTimeout, ReadOnlyViolation, SqlSyntaxError
from .limits import ResourceLimits, ResourceLimitExceeded
from .pool import SimplePool
from ..readonly import ensure_read_only

GRACE_S = 2.0  # after the query's timeout, how long the engine has to stop it itself before its worker is killed
START_TIMEOUT_S = 60.0  # a worker that has not opened its database by then is not coming
_BOOTSTRAP = "import json, sys; sys.path[:] = json.loads(sys.argv[2]); from smq_db.executors.worker import main; main()"

_ERRORS: dict[str, type[EngineError]] = {cls.__name__: cls for cls in (
    ExecutionError, QueryTimeout, ResourceLimitExceeded, ResultTooLarge, ReadOnlyViolation, SqlSyntaxError,
    BackendUnavailable)}


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker opens: the engine, its file, the dialect of the guard, the limits."""

    backend: str  # duckdb | sqlite
    path: str
    dialect: str
    limits: ResourceLimits


def _open(spec: WorkerSpec) -> Any:
    """The engine's in-process executor (its executor module's `in_process`, as its dialect names the module)."""
    module = import_module(dialect_of(spec.backend).executor.partition(":")[0])
    return module.in_process(spec.path, spec.dialect, spec.limits)


def _error_reply(err: EngineError) -> tuple[str, str, str, str]:
    name = type(err).__name__ if type(err).__name__ in _ERRORS else "ExecutionError"
    return ("error", name, err.message, err.code)


def serve(conn: Connection, spec: WorkerSpec) -> None:
    """The worker: limit itself, open the database, then run one request at a time until told to stop."""
    limit = spec.limits.memory
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        executor = _open(spec)
    except EngineError as err:
        conn.send(_error_reply(err))
        return
    conn.send(("ready",))
    memory_error = ("error", "ResourceLimitExceeded", spec.limits.memory_message(), ResourceLimitExceeded.code)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            break
        if request is None:
            break
        sql, max_rows, timeout_s, max_bytes, budget_s = request
        reply: tuple[Any, ...]
        try:
            with result_budget(max_bytes=max_bytes, timeout_s=budget_s):
                reply = ("ok", executor.execute(sql, max_rows=max_rows, timeout_s=timeout_s))
        except EngineError as err:
            reply = _error_reply(err)
        except MemoryError:
            reply = memory_error
        except Exception as err:  # noqa: BLE001 - a bug must not end the worker nor read as a memory error
            reply = ("error", "ExecutionError", f"the query failed in its worker process: {type(err).__name__}: {err}",
                     ExecutionError.code)
        try:
            conn.send(reply)
        except MemoryError:  # pickling the rows needed more than was left
            conn.send(memory_error)
        del reply
    executor.close()


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, spec: WorkerSpec) -> None:
        ours, theirs = socket.socketpair()
        try:  # this process's import path, so the worker imports the same smq_db (isolated: no PYTHON* variables)
            self.process = subprocess.Popen([sys.executable, "-I", "-c", _BOOTSTRAP, str(theirs.fileno()), json.dumps(sys.path)],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        self.conn.send(spec)
        if not self.conn.poll(START_TIMEOUT_S):
            self.stop()
            raise BackendUnavailable(f"the {spec.backend} worker process did not start within {START_TIMEOUT_S:g} s")
        try:
            reply = self.conn.recv()
        except (EOFError, OSError):
            self.stop()
            raise BackendUnavailable(f"the {spec.backend} worker process ended while opening {spec.path} "
                                     f"(exit code {self.process.poll()})") from None
        if reply[0] != "ready":
            self.stop()
            raise _ERRORS.get(reply[1], ExecutionError)(reply[2], code=reply[3])

    def stop(self) -> None:
        """End the worker: asked to stop when idle, killed when it is not (or does not answer)."""
        if self.process.poll() is None:
            try:
                self.conn.send(None)
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
        self.conn.close()


class IsolatedExecutor:
    """The executor of an embedded database whose queries run in worker processes (see the module doc)."""

    def __init__(self, backend: str, path: str | Path, *, dialect: str, limits: ResourceLimits) -> None:
        self.backend = backend
        self.dialect = dialect
        self.limits = limits
        self.path = Path(path)
        if not self.path.is_file():
            raise BackendUnavailable(f"{dialect_of(backend).display} database file not found: {self.path}")
        self._spec = WorkerSpec(backend, str(self.path), dialect, limits)
        self._pool: SimplePool[_Worker] = SimplePool(lambda: _Worker(self._spec), _Worker.stop, size=limits.workers)
        self._pool.release(self._pool.acquire())  # one worker now: a file the engine cannot open fails here, as in-process

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        check_limits(max_rows, timeout_s)
        ensure_read_only(sql, self.dialect)  # refusals cost no round trip (the worker's executor checks again)
        budget = _BUDGET.get()
        max_bytes = budget.max_bytes if budget is not None else None
        budget_s = None
        if budget is not None and budget.deadline is not None:
            budget_s = max(0.001, budget.deadline - time.perf_counter())
        worker = self._pool.acquire()
        healthy = False
        try:
            worker.conn.send((sql, max_rows, timeout_s, max_bytes, budget_s))
            if not worker.conn.poll(timeout_s + GRACE_S):  # the engine did not stop it: the worker goes
                raise QueryTimeout(timeout_message(timeout_s))
            try:
                reply = worker.conn.recv()
            except (EOFError, OSError):
                try:
                    code = worker.process.wait(1.0)
                except subprocess.TimeoutExpired:
                    code = None
                raise ResourceLimitExceeded(self.limits.memory_message(
                    f"the query (its worker process ended, exit code {code})")) from None
            # past its memory a worker may keep what it had taken (allocator arenas, a half-built value): a new one
            healthy = not (reply[0] == "error" and reply[1] == "ResourceLimitExceeded")
        finally:
            if healthy:
                self._pool.release(worker)
            else:
                worker.kill()
                self._pool.release(worker, discard=True)
        if reply[0] == "ok":
            result: QueryResult = reply[1]
            return result
        raise _ERRORS.get(reply[1], ExecutionError)(reply[2], code=reply[3])

    def close(self) -> None:
        self._pool.close()


def main() -> None:
    """A worker's entry (`_BOOTSTRAP`, argv: FD, the import path): serve the spec sent first over the socket FD."""
    conn = Connection(int(sys.argv[1]))
    try:
        spec = conn.recv()
    except (EOFError, OSError):
        return
    serve(conn, spec)

