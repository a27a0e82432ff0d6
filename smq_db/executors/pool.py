"""A small blocking connection pool for drivers that have none (sqlite3, pymysql, snowflake).

Each connection is used by one thread at a time, which is all these drivers promise. Connections
are opened lazily, up to ``size``; a broken one is discarded instead of being handed out again.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from .errors import BackendUnavailable

C = TypeVar("C")


class SimplePool(Generic[C]):
    """At most `size` connections; the most recently returned idle one is handed out first (LIFO: the others age
    out of use, and a pool of worker processes starts its second worker only when two queries overlap).

    One lock guards the idle list and the count, so taking and returning a connection costs two lock round trips
    (a queue and a semaphore cost several times that: a few microseconds of every query); a caller waits on the
    condition only when every connection is out.
    """

    def __init__(self, create: Callable[[], C], close: Callable[[C], None], *, size: int = 4, wait_s: float = 30.0) -> None:
        if size < 1:
            raise ValueError(f"pool_size must be >= 1, got {size}")
        self._create = create
        self._close_one = close
        self._idle: list[C] = []
        self._size = size
        self._out = 0  # connections handed out, plus those being created
        self._lock = threading.Lock()
        self._returned = threading.Condition(self._lock)
        self._wait_s = wait_s
        self._closed = False

    def acquire(self) -> C:
        """An idle connection, a new one if none is idle, or wait for one (BackendUnavailable after wait_s)."""
        with self._lock:
            if self._closed:
                raise BackendUnavailable("the executor is closed")
            if self._out >= self._size:
                deadline = time.monotonic() + self._wait_s
                while self._out >= self._size:
                    left = deadline - time.monotonic()
                    if left <= 0 or not self._returned.wait(left):
                        if self._out >= self._size:
                            raise BackendUnavailable(f"no free connection after {self._wait_s:g} s; the pool is exhausted")
                    if self._closed:
                        raise BackendUnavailable("the executor is closed")
            self._out += 1
            if self._idle:
                return self._idle.pop()
        try:
            return self._create()
        except BaseException:
            with self._lock:
                self._out -= 1
                self._returned.notify()
            raise

    def acquire_idle(self) -> C | None:
        """An idle connection, or None at once (when a new one would have to be made or waited for)."""
        with self._lock:
            if self._closed or not self._idle or self._out >= self._size:
                return None
            self._out += 1
            return self._idle.pop()

    def release(self, conn: C, *, discard: bool = False) -> None:
        """Give a connection back; ``discard`` closes it (broken, or state unknown after an error)."""
        with self._lock:
            self._out -= 1
            keep = not (discard or self._closed)
            if keep:
                self._idle.append(conn)
            self._returned.notify()
        if not keep:
            self._safe_close(conn)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._returned.notify_all()
        for conn in idle:
            self._safe_close(conn)

    def _safe_close(self, conn: C) -> None:
        with contextlib.suppress(Exception):  # closing a dead connection may fail; it is gone either way
            self._close_one(conn)
