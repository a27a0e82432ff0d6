"""A small blocking connection pool for drivers that have none (sqlite3, pymysql, snowflake).

Each connection is used by one thread at a time, which is all these drivers promise. Connections
are opened lazily, up to ``size``; a broken one is discarded instead of being handed out again.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from .errors import BackendUnavailable

C = TypeVar("C")


class SimplePool(Generic[C]):
    def __init__(self, create: Callable[[], C], close: Callable[[C], None], *, size: int = 4, wait_s: float = 30.0) -> None:
        if size < 1:
            raise ValueError(f"pool_size must be >= 1, got {size}")
        self._create = create
        self._close_one = close
        self._idle: queue.LifoQueue[C] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(size)
        self._wait_s = wait_s
        self._closed = False

    def acquire(self) -> C:
        """An idle connection, a new one if none is idle, or wait for one (BackendUnavailable after wait_s)."""
        if self._closed:
            raise BackendUnavailable("the executor is closed")
        if not self._slots.acquire(timeout=self._wait_s):
            raise BackendUnavailable(f"no free connection after {self._wait_s:g} s; the pool is exhausted")
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        try:
            return self._create()
        except BaseException:
            self._slots.release()
            raise

    def release(self, conn: C, *, discard: bool = False) -> None:
        """Give a connection back; ``discard`` closes it (broken, or state unknown after an error)."""
        try:
            if discard or self._closed:
                self._safe_close(conn)
            else:
                self._idle.put(conn)
        finally:
            self._slots.release()

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._safe_close(self._idle.get_nowait())
            except queue.Empty:
                return

    def _safe_close(self, conn: C) -> None:
        with contextlib.suppress(Exception):  # closing a dead connection may fail; it is gone either way
            self._close_one(conn)
