"""The OpenAPI document declares errors as what is sent: `application/problem+json` with the Problem schema.

FastAPI files a response model under the route's own media type (application/json) and adds its own 422
(`HTTPValidationError`) to every route with parameters; the service answers every error with a problem
(service.errors), so the generated document is corrected once, when it is first built: every 4xx/5xx
response gets exactly one content type, application/problem+json, referencing `Problem`.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from .errors import PROBLEM_MEDIA_TYPE

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


def problems_as_sent(doc: dict[str, Any]) -> dict[str, Any]:
    """Every error response of `doc` declared as application/problem+json (in place; returned for chaining)."""
    for operations in doc.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for status, response in operation.get("responses", {}).items():
                if str(status)[:1] in ("4", "5"):
                    response["content"] = {PROBLEM_MEDIA_TYPE: {"schema": dict(PROBLEM_REF)}}
    schemas = doc.get("components", {}).get("schemas", {})
    text = str(doc.get("paths", {}))
    for unused in ("HTTPValidationError", "ValidationError"):  # FastAPI's 422 body, never sent by this service
        if unused in schemas and f"/{unused}'" not in text:
            del schemas[unused]
    return doc


def install(app: FastAPI) -> None:
    """Build the app's document through `problems_as_sent` (once; FastAPI caches `app.openapi_schema`)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = problems_as_sent(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
