"""One error shape for every failure: RFC 9457 `application/problem+json`.

Every body has `type` (`https://smq.dev/errors/<code>`, a stable identifier), `title`, `status`,
`detail`, `code` (the engine's stable error code: clients branch on it), `errors[]` (each
`{code, message, location, suggestions}`) and `instance` (the request path). The engine's errors
already carry code, location and suggestions; this module only maps codes to HTTP statuses and
formats. Unexpected exceptions become a 500 problem without internals, logged with an id.
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
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.errors import (
    EngineError,
    LayerError,
    LayerValidationError,
    Location,
    QueryError,
)

log = logging.getLogger("smq.service")

PROBLEM_TYPE_BASE = "https://smq.dev/errors/"
PROBLEM_MEDIA_TYPE = "application/problem+json"

# engine/executor error code -> HTTP status; anything not listed falls back by class (see status_for)
STATUS_BY_CODE: dict[str, int] = {
    "unauthorized": 401,
    "forbidden": 403, "database_forbidden": 403, "role_not_defined": 403, "admin_required": 403,
    "raw_sql_refused": 403, "catalog_refused": 403,
    "function_not_allowed": 403, "table_function_refused": 403,
    "unknown_database": 404, "not_found": 404,
    "method_not_allowed": 405,
    "invalid_request": 422,
    "internal_error": 500,
    "database_invalid": 503, "layer_invalid": 503, "backend_unavailable": 503, "invalid_connection": 503,
    "query_timeout": 504,
    "agent_not_configured": 503, "invalid_agent_config": 503,
    "tool_disabled": 403, "unknown_tool": 404,
}

TITLES: dict[str, str] = {
    "unauthorized": "Missing or invalid API key",
    "database_forbidden": "This API key may not use this database",
    "role_not_defined": "This API key's role is not defined by this database",
    "admin_required": "This action needs an admin API key",
    "raw_sql_refused": "The SQL is refused for this role",
    "catalog_refused": "System catalogs are not available",
    "function_not_allowed": "The function is not on the raw-SQL allow-list",
    "table_function_refused": "The table function is not on the raw-SQL allow-list",
    "unknown_database": "Unknown database",
    "database_invalid": "The database's semantic layer failed to load",
    "invalid_request": "The request body is invalid",
    "not_read_only": "Only one read-only query is allowed",
    "sql_syntax": "The SQL cannot be parsed",
    "execution_failed": "The database rejected the query",
    "backend_unavailable": "The database backend is unavailable",
    "invalid_connection": "The database's connection settings are invalid",
    "query_timeout": "The query timed out",
    "internal_error": "Internal server error",
    "agent_not_configured": "No model is configured for the agent",
    "invalid_agent_config": "The agent's model configuration is invalid",
}


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
    """HTTP status of an engine/executor/service error: by code, else 400 (a caller's mistake)."""
    if error.code in STATUS_BY_CODE:
        return STATUS_BY_CODE[error.code]
    if error.code.startswith("internal"):
        return 500
    return 400


def problem(status: int, code: str, detail: str, instance: str, *, errors: Iterable[dict[str, Any]] = (),
            title: str | None = None, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """The one response every failure goes through."""
    items = list(errors) or [{"code": code, "message": detail, "location": {}, "suggestions": []}]
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title or TITLES.get(code) or HTTPStatus(status).phrase,
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
    items = error.errors if isinstance(error, LayerValidationError) else [error]
    out = []
    for item in items:
        entry = item.to_dict()
        entry.setdefault("location", {})
        out.append(entry)
    return out


def title_for(error: EngineError) -> str:
    """A short human title: by code, else by the kind of error (a bad SMQ, a broken layer)."""
    if error.code in TITLES:
        return TITLES[error.code]
    if isinstance(error, QueryError):
        return "The query is invalid"
    if isinstance(error, (LayerError, LayerValidationError)):
        return "The semantic layer is invalid"
    return HTTPStatus(status_for(error)).phrase


def engine_problem(error: EngineError, instance: str) -> JSONResponse:
    status = status_for(error)
    detail = error.message if isinstance(error, LayerValidationError) else error.formatted()
    headers = {"WWW-Authenticate": 'Bearer realm="smq"'} if status == 401 else None
    return problem(status, error.code, detail, instance, errors=error_items(error), title=title_for(error), headers=headers)


async def _engine_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, EngineError)
    if status_for(exc) >= 500:
        log.warning("%s %s -> %s: %s", request.method, request.url.path, exc.code, exc.message)
    return engine_problem(exc, request.url.path)


async def _validation_handler(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 for a bad request body, reshaped into a problem with one entry per field."""
    assert isinstance(exc, RequestValidationError)
    items = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ())]
        where = loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc
        field = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in where).lstrip(".") or None
        items.append({"code": str(err.get("type", "invalid")), "message": str(err.get("msg", "invalid value")),
                      "location": Location(field=field).to_dict(), "suggestions": []})
    first = items[0] if items else {"message": "invalid request", "location": {}}
    where = first["location"].get("field")
    detail = f"{where}: {first['message']}" if where else first["message"]
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
    return problem(exc.status_code, code, detail, request.url.path, headers=getattr(exc, "headers", None))


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
