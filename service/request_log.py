"""One log line per request, a request id on every response, and the log format (text or JSON).

`RequestLogMiddleware` is the outermost layer of the app: it takes the client's `X-Request-ID` when it
is sane (1-128 characters of letters, digits and `._:-`) or makes one, echoes it in the response's
`X-Request-ID`, and keeps it in a context variable so every log record of the request carries it
(`request_id`, in both formats), the unhandled-error line with its error id included. When the
response is sent it logs one line on `smq.access`: method, route template, path, status, duration,
the API key's name (never the key) and, for a problem response, its `code` (noted by the innermost
`ProblemCodeMiddleware`, so a compression layer in between does not hide it). The same facts go to
`on_response` (the Prometheus metrics, `service.metrics`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .limits import QUOTA_SCOPE_KEY

log = logging.getLogger("smq.access")

HEADER = "X-Request-ID"
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
MAX_PROBLEM_BYTES = 65_536  # a problem body longer than this is not parsed for its code
request_id_var: ContextVar[str | None] = ContextVar("smq_request_id", default=None)


def request_id_from(headers: list[tuple[bytes, bytes]]) -> str:
    """The client's X-Request-ID if it is sane (no spaces, quotes or control characters; 128 at most), else a new one."""
    for name, value in headers:
        if name.lower() == b"x-request-id":
            text = value.decode("latin-1")
            if _SANE_ID.fullmatch(text):
                return text
            break
    return os.urandom(16).hex()  # as random as uuid4().hex (32 hex digits), without building a UUID object


@dataclass(slots=True)
class Finished:
    """What one request came to: the access line's and the metrics' facts."""

    method: str
    route: str  # the route template (`/v1/databases/{db}/query`), `unmatched` when none matched
    path: str
    status: int
    seconds: float
    key: str | None  # the API key's name
    code: str | None  # the problem's code on an error response
    request_id: str


def route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else "unmatched"


class RequestLogMiddleware:
    """A plain ASGI middleware (no per-request task): the request id, the access line, the metrics hook."""

    def __init__(self, app: ASGIApp, on_response: Callable[[Finished], None] | None = None,
                 on_request: Callable[[], None] | None = None) -> None:
        self.app = app
        self.on_response = on_response
        self.on_request = on_request

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(scope.get("headers", []))
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        if self.on_request is not None:
            self.on_request()
        status = 500
        problem_body: list[bytes] | None = None

        async def observed_send(message: Message) -> None:
            nonlocal status, problem_body
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", ()))
                if status >= 400 and _is_plain_problem(headers):
                    problem_body = []
                message["headers"] = [*headers, (b"x-request-id", request_id.encode("ascii"))]
            elif message["type"] == "http.response.body" and problem_body is not None:
                problem_body.append(message.get("body", b""))
                if sum(map(len, problem_body)) > MAX_PROBLEM_BYTES:
                    problem_body = None
            await send(message)

        try:
            await self.app(scope, receive, observed_send)
        finally:
            done = Finished(method=scope.get("method", ""), route=route_template(scope), path=scope.get("path", ""),
                            status=status, seconds=time.perf_counter() - started, key=scope.get(QUOTA_SCOPE_KEY),
                            code=(scope.get(PROBLEM_CODE_KEY) or _problem_code(problem_body)) if status >= 400 else None,
                            request_id=request_id)
            try:
                _log_line(done)
                if self.on_response is not None:
                    self.on_response(done)
            finally:
                request_id_var.reset(token)


PROBLEM_CODE_KEY = "smq.problem_code"  # set by ProblemCodeMiddleware: the code of the problem answered


class ProblemCodeMiddleware:
    """The innermost layer: notes a problem response's `code` in the scope before any outer middleware
    (a compression layer, say) changes the body; `RequestLogMiddleware` reads it from there, and parses
    the body itself only for problems made outside this one (413 from the body limit, the catch-all 500)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body: list[bytes] | None = None

        async def sniffing_send(message: Message) -> None:
            nonlocal body
            if message["type"] == "http.response.start":
                if message["status"] >= 400 and _is_plain_problem(list(message.get("headers", ()))):
                    body = []
            elif message["type"] == "http.response.body" and body is not None:
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    code = _problem_code(body)
                    if code is not None:
                        scope[PROBLEM_CODE_KEY] = code
                    body = None
                elif sum(map(len, body)) > MAX_PROBLEM_BYTES:
                    body = None
            await send(message)

        await self.app(scope, receive, sniffing_send)


def _is_plain_problem(headers: list[tuple[bytes, bytes]]) -> bool:
    """A problem+json body not compressed on the way out: its `code` can be read."""
    kind = encoding = b""
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"content-type":
            kind = value
        elif lowered == b"content-encoding":
            encoding = value
    return kind.startswith(b"application/problem+json") and encoding in (b"", b"identity")


def _problem_code(chunks: list[bytes] | None) -> str | None:
    if not chunks:
        return None
    try:
        code = json.loads(b"".join(chunks)).get("code")
    except (ValueError, AttributeError):
        return None
    return code if isinstance(code, str) else None


def _log_line(done: Finished) -> None:
    level = logging.WARNING if done.status >= 500 else logging.INFO
    if not log.isEnabledFor(level):  # the access line is built only when someone reads it (µs on every request)
        return
    fields: dict[str, Any] = {"method": done.method, "route": done.route, "path": done.path, "status": done.status,
                              "duration_ms": round(done.seconds * 1000, 3), "key": done.key}
    if done.code is not None:
        fields["code"] = done.code
    text = f"{done.method} {done.path} {done.status} {fields['duration_ms']}ms key={done.key or '-'}"
    if done.code:
        text += f" code={done.code}"
    log.log(level, text, extra={"smq": fields})


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record (`%(request_id)s`; `-` outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, an access line's fields, the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or request_id_var.get()
        if request_id and request_id != "-":
            out["request_id"] = request_id
        out.update(getattr(record, "smq", None) or {})
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


JsonFormatter.converter = time.gmtime  # timestamps in UTC, as the Z says

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"


def configure_logging(level: str, fmt: str = "text", stream: Any = None) -> logging.Handler:
    """The root logger for `smq serve`: one handler, text or JSON lines, each record with its request id.

    Replaces the handlers a previous call installed (a worker configures itself as its parent did).
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(RequestIdFilter())
    handler.set_name("smq")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "smq"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):  # uvicorn's own lines in the same format, not twice
        logging.getLogger(name).handlers = []
        logging.getLogger(name).propagate = True
    return handler
