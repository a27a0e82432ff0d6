"""`Server-Timing` on every response: how long the service held the request, and the database's share.

`total` runs from the request reaching the app to the response headers leaving it; `db` is the
executor's time (driver call, fetch and JSON-safe values), set by the routes that run SQL. The
difference is the service's own overhead, visible per request in browser dev tools and to load
tests without trusting client-side clocks (`bench/load_service.py` reads it).
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

TIMING_KEY = "smq.timing"
ENTRIES_KEY = "smq.timing.entries"  # further entries, written as given (`cache;desc=hit;dur=0.1`)


def record_db_time(scope: MutableMapping[str, Any], elapsed_ms: float) -> None:
    """Add a database call's time to the request's `db` entry (several calls add up); a result served from
    the result cache took no database time (its `elapsed_ms` is the original run's)."""
    timing = scope.get(TIMING_KEY)
    if timing is not None and not scope.get("smq.cache_hit"):
        timing["db"] = timing.get("db", 0.0) + elapsed_ms


def record_timing_entry(scope: MutableMapping[str, Any], entry: str) -> None:
    """One more `Server-Timing` entry for this request (service.result_cache: hit or miss)."""
    scope.setdefault(ENTRIES_KEY, []).append(entry)


class ServerTimingMiddleware:
    """A plain ASGI middleware (no per-request task, unlike BaseHTTPMiddleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        timing: dict[str, float] = {}
        scope[TIMING_KEY] = timing

        async def timed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                total = (time.perf_counter() - started) * 1000
                value = f"total;dur={total:.3f}"
                if "db" in timing:
                    value = f"db;dur={timing['db']:.3f}, {value}"
                for entry in scope.get(ENTRIES_KEY, ()):
                    value = f"{value}, {entry}"
                message["headers"] = [*message.get("headers", ()), (b"server-timing", value.encode("ascii"))]
            await send(message)

        await self.app(scope, receive, timed_send)
