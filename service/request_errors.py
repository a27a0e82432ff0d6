"""Clear answers for a request body that is not JSON, or not sent as JSON.

FastAPI reports these as field errors: malformed JSON as `[31]: JSON decode error`, a body without
`Content-Type: application/json` as "Input should be a valid dictionary". Both are still the
`invalid_request` problem (422) every contract test and client knows, with a detail that says what is
wrong and how to send it right; every other validation error keeps service/errors.py's handler.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from .errors import _validation_handler, problem

_NOT_AN_OBJECT = ("model_attributes_type", "dict_type", "model_type")


def _json_error(request: Request, body: bytes, err: dict[str, Any]) -> JSONResponse:
    position = next((p for p in err.get("loc", ())[1:] if isinstance(p, int)), 0)
    before = body[:position].decode("utf-8", "replace")
    line, column = before.count("\n") + 1, position - (before.rfind("\n") + 1) + 1
    reason = str((err.get("ctx") or {}).get("error") or "JSON decode error")
    detail = f"the request body is not valid JSON: {reason} at line {line} column {column}"
    item = {"code": "invalid_json", "message": detail, "location": {"field": "body", "line": line, "column": column},
            "suggestions": []}
    return problem(422, "invalid_request", detail, request.url.path, errors=[item])


def _content_type_error(request: Request, content_type: str) -> JSONResponse:
    got = f"'{content_type}'" if content_type else "no Content-Type"
    detail = f"send the request body as a JSON object with `Content-Type: application/json` (got {got})"
    item = {"code": "invalid_request", "message": detail, "location": {"field": "body"}, "suggestions": ["application/json"]}
    return problem(422, "invalid_request", detail, request.url.path, errors=[item])


async def handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {}
    content_type = request.headers.get("content-type", "")
    if first.get("type") == "json_invalid":
        return _json_error(request, await request.body(), first)
    if first.get("type") in _NOT_AN_OBJECT and tuple(first.get("loc", ())) == ("body",):
        if "json" not in content_type.split(";")[0].lower():
            return _content_type_error(request, content_type)
        got = type(first.get("input")).__name__.replace("list", "an array").replace("str", "a string")
        detail = f"the request body must be a JSON object ({{\"smq\": ...}}), got {got}"
        return problem(422, "invalid_request", detail, request.url.path, errors=[
            {"code": "invalid_request", "message": detail, "location": {"field": "body"}, "suggestions": []}])
    return await _validation_handler(request, exc)


def install(app: FastAPI) -> None:
    """Replace the generic validation handler (service/errors.py installs it first)."""
    app.add_exception_handler(RequestValidationError, handler)
