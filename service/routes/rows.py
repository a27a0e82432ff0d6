"""Answers that carry rows, serialised once, straight to bytes.

Rows leave the executor already JSON-safe (`to_json_value`), so validating them again against the
response model and encoding them through `jsonable_encoder` only costs time: about a millisecond
per thousand values, more than many queries take. The routes keep their `response_model` for
OpenAPI and return this response, which FastAPI sends as it is.
"""

from __future__ import annotations

from typing import Any

import pydantic_core
from fastapi import Request, Response

from smq_db.executors.base import QueryResult

from ..timing import record_db_time


class RowsResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return pydantic_core.to_json(content)


def rows_payload(request: Request, sql: str, result: QueryResult, **extra: Any) -> dict[str, Any]:
    """`{sql, columns, rows, row_count, truncated, elapsed_ms, **extra}`, and the db time for Server-Timing."""
    record_db_time(request.scope, result.elapsed_ms)
    return {"sql": sql, "columns": result.columns, "rows": result.rows, "row_count": result.row_count,
            "truncated": result.truncated, "elapsed_ms": result.elapsed_ms, **extra}


def rows_response(request: Request, sql: str, result: QueryResult, **extra: Any) -> RowsResponse:
    """`rows_payload` as a JSON response."""
    return RowsResponse(rows_payload(request, sql, result, **extra))
