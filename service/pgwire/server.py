"""The PostgreSQL-protocol listener: an asyncio server beside uvicorn, in the same process and event loop.

`start_pg_server(state, host, port)` binds the port (0 picks a free one: `server.port` says which) and
serves every connection as a `PgSession`. The sessions answer their statements in the worker threads the
REST routes use, under the same keys, roles, quotas and limits. Cancel requests are matched to the
session by (backend pid, secret), as PostgreSQL does.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import socket
import threading

from ..deps import ServiceState
from .session import PgSession

log = logging.getLogger("smq.pgwire")


class PgServer:
    """The listener and its live sessions."""

    def __init__(self, state: ServiceState) -> None:
        self.state = state
        self.server: asyncio.base_events.Server | None = None
        self._sessions: dict[int, PgSession] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._pids = itertools.count((os.getpid() % 10_000) * 100_000 + 1)
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]

    def next_pid(self) -> int:
        with self._lock:
            return next(self._pids) & 0x7FFFFFFF

    def register(self, session: PgSession) -> None:
        with self._lock:
            self._sessions[session.pid] = session

    def forget(self, session: PgSession) -> None:
        with self._lock:
            if self._sessions.get(session.pid) is session:
                del self._sessions[session.pid]

    def cancel(self, pid: int, secret: int) -> None:
        """A CancelRequest: cancel the session's running statement if the secret matches (else nothing, as PostgreSQL)."""
        with self._lock:
            session = self._sessions.get(pid)
        if session is not None and session.secret == secret:
            session.cancel()

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._sessions)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await PgSession(self, reader, writer).run()
        except Exception:  # never let one connection's bug take the listener down
            log.exception("pgwire: a connection failed")
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def start(self, host: str, port: int) -> None:
        self.server = await asyncio.start_server(self._handle, host, port, reuse_address=True)
        log.info("PostgreSQL protocol (SQL API) on %s:%d", host, self.port)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.server.wait_closed()


async def start_pg_server(state: ServiceState, host: str, port: int) -> PgServer:
    server = PgServer(state)
    await server.start(host, port)
    return server
