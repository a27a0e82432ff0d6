"""One error shape for every failure: RFC 9457 `application/problem+json`.

Every body has `type` (`https://smq.dev/errors/<code>`, a stable identifier), `title`, `status`,
`detail`, `code` (the engine's stable error code: clients branch on it), `errors[]` (each
`{code, message, location, suggestions}`) and `instance` (the request path). The engine's errors
carry code, location and suggestions, and their code's kind, HTTP status and title come from the one
registry (engine/error_codes.py, `EngineError.problem()`); this module only adds `instance` and the
handlers. Unexpected exceptions become a 500 problem without internals, logged with an id.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.error_codes import CODES, PROBLEM_TYPE_BASE
from engine.errors import EngineError, Location

log = logging.getLogger("smq.service")

PROBLEM_MEDIA_TYPE = "application/problem+json"

class ServiceError(EngineError):
    """An error raised by the service itself (auth, routing); an EngineError so it is formatted alike."""

    code = "service_error"


class Unauthorized(ServiceError):
    code = "unauthorized"


class Forbidden(ServiceError):
    code = "forbidden"


class ServiceConfigError(ServiceError):
    """The service cannot start: no keys file and no --open, unreadable keys file, missing models folder."""

    code = "service_not_configured"


def status_for(error: EngineError) -> int:
    """HTTP status of an engine/executor/service error: from its code's kind (engine/error_codes.py)."""
    return error.status


def problem(status: int, code: str, detail: str, instance: str, *, errors: Iterable[dict[str, Any]] = (),
            title: str | None = None, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """The one response every failure goes through."""
    items = list(errors) or [{"code": code, "message": detail, "location": {}, "suggestions": []}]
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title or (CODES[code].title if code in CODES else HTTPStatus(status).phrase),
        "status": status,
        "detail": detail,
        "code": code,
        "errors": items,
        "instance": instance,
        **extra,
    }
    return JSONResponse(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def error_items(error: EngineError) -> list[dict[str, Any]]:
    """`errors[]` of a problem: every error of an invalid layer, else the error itself."""
    return list(error.problem()["errors"])


def engine_problem(error: EngineError, instance: str) -> JSONResponse:
    """An engine error's problem (`EngineError.problem()`, the shape MCP and the agent's tools share) plus `instance`."""
    body = error.problem()
    headers = {"WWW-Authenticate": 'Bearer realm="smq"'} if body["status"] == 401 else None
    return problem(body["status"], body["code"], body["detail"], instance, errors=body["errors"], title=body["title"],
                   headers=headers)


async def _engine_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, EngineError)
    if status_for(exc) >= 500:
        log.warning("%s %s -> %s: %s", request.method, request.url.path, exc.code, exc.message)
    return engine_problem(exc, request.url.path)


async def _validation_handler(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 for a bad request body, reshaped into a problem with one entry per field."""
    assert isinstance(exc, RequestValidationError)
    items: list[dict[str, Any]] = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ())]
        where = loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc
        field = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in where).lstrip(".") or None
        items.append({"code": str(err.get("type", "invalid")), "message": str(err.get("msg", "invalid value")),
                      "location": Location(field=field).to_dict(), "suggestions": []})
    first: dict[str, Any] = items[0] if items else {"message": "invalid request", "location": {}}
    first_field = first["location"].get("field")
    detail = f"{first_field}: {first['message']}" if first_field else str(first["message"])
    if len(items) > 1:
        detail += f" (and {len(items) - 1} more)"
    return problem(422, "invalid_request", detail, request.url.path, errors=items)


async def _http_handler(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own 404 (no such route) / 405 and any HTTPException, as problems."""
    assert isinstance(exc, StarletteHTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, f"http_{exc.status_code}")
    detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"no route {request.method} {request.url.path}; see /docs"
    headers = getattr(exc, "headers", None)
    if exc.status_code == 405:  # Starlette names the methods of the first route on the path only
        headers = {**(headers or {}), "Allow": allowed_methods(request)}
    return problem(exc.status_code, code, detail, request.url.path, headers=headers)


def allowed_methods(request: Request) -> str:
    """Every method some route serves on this path (GET and POST /query are two routes), asked of each
    route the way the router asks it (`matches`), so included routers answer for their own routes."""
    allowed = []
    for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"):
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in request.app.routes):
            allowed.append(method)
    return ", ".join(allowed)


class UnhandledErrorMiddleware:
    """The catch-all: an unexpected exception becomes a 500 problem; the traceback goes to the log only.

    A plain ASGI middleware (not `add_exception_handler(Exception)`, which re-raises after
    responding) so the server logs the failure once, with the id the client sees.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            error_id = uuid.uuid4().hex[:12]
            log.exception("unhandled error %s on %s %s", error_id, scope.get("method"), scope.get("path"))
            if started:  # too late for a clean response; the connection is closed by the server
                raise
            response = problem(500, "internal_error", f"an unexpected error occurred (error id {error_id}); "
                               "it has been logged", scope.get("path", ""), error_id=error_id)
            await response(scope, receive, send)


def install(app: FastAPI) -> None:
    """Register every handler on an app."""
    app.add_exception_handler(EngineError, _engine_handler)
    app.add_exception_handler(RequestValidationError, _validation_handler)
    app.add_exception_handler(StarletteHTTPException, _http_handler)
    app.add_middleware(UnhandledErrorMiddleware)
