"""Bounds on what one request may cost: its body, its SQL, and how many of a key's requests run at once.

* `LimitsMiddleware` refuses a body over SMQ_MAX_BODY_BYTES (413) before anything parses it: a
  declared Content-Length is checked before a byte is read, a chunked body while it streams in.
* `check_sql_length` refuses SQL over SMQ_MAX_SQL_CHARS (413) before the guard parses it (3 MB of
  SQL took sqlglot 73 s and 4.4 GB).
* `ConcurrencyQuota` counts each key's requests in progress; past SMQ_MAX_INFLIGHT_PER_KEY a request
  is answered 429 with Retry-After at once, so one key's slow calls cannot take every worker thread
  while other keys wait. `InProcessQuota` counts in this process; a shared store (Redis) can
  implement the same two methods for several workers or hosts.

The result side (JSON bytes of the rows, conversion inside the timeout) is `smq_db`'s `result_budget`,
set around every executor call by `service.deps.executor_for`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.errors import Location
from smq_db.executors.base import ResultTooLarge

from .errors import ServiceError, error_items, problem

log = logging.getLogger("smq.service")

RETRY_AFTER_S = 1
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class LimitExceeded(ServiceError):
    """A request over one of the service's bounds; `status` is its HTTP status."""

    status = 400


class RequestTooLarge(LimitExceeded):
    code = "request_too_large"
    status = 413


class SqlTooLong(LimitExceeded):
    code = "sql_too_long"
    status = 413


class QuotaExceeded(LimitExceeded):
    code = "too_many_requests"
    status = 429


def body_too_large_message(limit: int, size: int | None = None) -> str:
    got = f" ({size:,} bytes)" if size is not None else ""
    return (f"the request body{got} is larger than the limit of {limit:,} bytes (SMQ_MAX_BODY_BYTES); "
            "send a smaller request")


def check_sql_length(sql: str, limit: int, field: str = "sql") -> None:
    """Refuse SQL longer than `limit` characters before anything parses it."""
    if len(sql) > limit:
        raise SqlTooLong(f"the SQL is {len(sql):,} characters long, more than the limit of {limit:,} "
                         "(SMQ_MAX_SQL_CHARS); send a shorter query", location=Location(field=field))


def check_tool_arguments(arguments: dict[str, Any], max_sql_chars: int, max_bytes: int) -> None:
    """An MCP tool call's arguments: no string over the SQL limit, all of them under the body limit."""
    total = 0
    for name, value in arguments.items():
        if isinstance(value, str):
            check_sql_length(value, max_sql_chars, field=name)
            total += len(value.encode("utf-8", "surrogatepass"))
        else:
            total += len(repr(value))  # numbers, lists of names: small; a rough count is enough
        if total > max_bytes:
            raise RequestTooLarge(f"the tool call's arguments are larger than the limit of {max_bytes:,} bytes "
                                  "(SMQ_MAX_BODY_BYTES); send a smaller call", location=Location(field=name))


QUOTA_SCOPE_KEY = "smq.quota_key"  # the key whose quota slot this request holds (set by `take_quota_slot`)


class LimitsMiddleware:
    """Reads a request's body up to `max_bytes` before the app sees it (over that, a 413 problem), and
    gives back the quota slot a request took (`take_quota_slot`) once its response is sent.

    The body is buffered here and replayed to the app (FastAPI would buffer it anyway), so the
    refusal is one clean response instead of an error raised in the middle of parsing. Releasing the
    slot here, not in a FastAPI dependency with `yield`, costs a few microseconds per request (such a
    dependency cost 90 µs, a twentieth of a small query's whole time in the service).
    """

    def __init__(self, app: ASGIApp, max_bytes: int, quota: ConcurrencyQuota | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.quota = quota

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            if scope.get("method") in _BODY_METHODS:
                await self._bounded(scope, receive, send)
            else:
                await self.app(scope, receive, send)
        finally:
            key = scope.get(QUOTA_SCOPE_KEY)
            if key is not None and self.quota is not None:
                with anyio.CancelScope(shield=True):  # a client that went away still gives its slot back
                    await self.quota.release(key)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send, declared)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the app see it
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(scope, receive, send, None)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, size: int | None) -> None:
        log.info("%s %s -> request_too_large (limit %d bytes)", scope.get("method"), scope.get("path"), self.max_bytes)
        response = problem(413, "request_too_large", body_too_large_message(self.max_bytes, size),
                           scope.get("path", ""), title=TITLES["request_too_large"], limit=self.max_bytes,
                           headers={"Connection": "close"})  # the unread rest of the body is not drained
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server rejects a malformed length itself
    return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()  # http.disconnect, for apps that watch for it

    return replay


class ConcurrencyQuota(Protocol):
    """Requests in progress per API key. `acquire` never waits: False means the key is at its limit."""

    limit: int

    async def acquire(self, key: str) -> bool: ...

    async def release(self, key: str) -> None: ...


class InProcessQuota:
    """The quota of one server process (a counter per key name). With `--workers N` each worker
    counts its own requests, so a key may have up to N x limit in progress across the workers."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._in_flight: dict[str, int] = {}
        self._lock = threading.Lock()  # MCP tool calls and the REST app may share one quota

    async def acquire(self, key: str) -> bool:
        with self._lock:
            held = self._in_flight.get(key, 0)
            if held >= self.limit:
                return False
            self._in_flight[key] = held + 1
            return True

    async def release(self, key: str) -> None:
        with self._lock:
            held = self._in_flight.get(key, 0) - 1
            if held > 0:
                self._in_flight[key] = held
            else:
                self._in_flight.pop(key, None)

    def in_flight(self, key: str) -> int:
        with self._lock:
            return self._in_flight.get(key, 0)


async def _acquire(quota: ConcurrencyQuota, key: str) -> None:
    if not await quota.acquire(key):
        raise QuotaExceeded(f"API key '{key}' already has {quota.limit} requests in progress "
                            f"(SMQ_MAX_INFLIGHT_PER_KEY); retry after {RETRY_AFTER_S} s or when one has finished")


@asynccontextmanager
async def quota_slot(quota: ConcurrencyQuota, key: str) -> AsyncIterator[None]:
    """One of `key`'s slots for the block, or QuotaExceeded at once (MCP tool calls)."""
    await _acquire(quota, key)
    try:
        yield
    finally:
        await quota.release(key)


async def take_quota_slot(quota: ConcurrencyQuota, key: str, scope: Scope) -> None:
    """One of `key`'s slots for this HTTP request, or QuotaExceeded; `LimitsMiddleware` gives it back
    after the response. A request holds one slot however often it asks."""
    if scope.get(QUOTA_SCOPE_KEY) is not None:
        return
    await _acquire(quota, key)
    scope[QUOTA_SCOPE_KEY] = key


TITLES = {
    "request_too_large": "The request is too large",
    "sql_too_long": "The SQL is too long",
    "too_many_requests": "Too many requests in progress for this API key",
    "result_too_large": "The result is too large",
}


async def _limit_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, (LimitExceeded, ResultTooLarge))
    # 422, not 413: the request was fine to receive; what it asks for cannot be answered in one piece
    status = exc.status if isinstance(exc, LimitExceeded) else 422
    headers = {"Retry-After": str(RETRY_AFTER_S)} if isinstance(exc, QuotaExceeded) else None
    log.info("%s %s -> %s", request.method, request.url.path, exc.code)
    return problem(status, exc.code, exc.formatted(), request.url.path, errors=error_items(exc),
                   title=TITLES.get(exc.code), headers=headers)


async def _recursion_handler(request: Request, exc: Exception) -> JSONResponse:
    """A RecursionError left over from a parser or generator: the input nests too deeply. One log line."""
    log.warning("%s %s -> too_deeply_nested (RecursionError)", request.method, request.url.path)
    return problem(400, "too_deeply_nested", "the request nests too deeply to be processed (parentheses, "
                   "sub-expressions or JSON); write it with less nesting", request.url.path,
                   title="The request nests too deeply")


def install(app: FastAPI, max_body_bytes: int, quota: ConcurrencyQuota) -> None:
    """The body limit, the release of quota slots, and the problems of every limit (413, 422, 429, deep nesting)."""
    app.add_exception_handler(LimitExceeded, _limit_handler)
    app.add_exception_handler(ResultTooLarge, _limit_handler)
    app.add_exception_handler(RecursionError, _recursion_handler)
    app.add_middleware(LimitsMiddleware, max_bytes=max_body_bytes, quota=quota)
