"""The BI call: an SMQ compiled for the caller's role, paged in SQL, and run.

`limit` defaults to and is capped by SMQ_MAX_ROWS. A page the caller asks for (`limit` or `offset`)
is pushed into the SQL (LIMIT/OFFSET) so the database does the cutting; without one, the compiled
SQL runs exactly as `compile` shows it and the executor stops reading at the cap (a LIMIT on an
ordered multi-CTE query can make DuckDB plan it 1.5x slower). `truncated` says more rows exist.
"""

from __future__ import annotations

from fastapi import APIRouter, Request

from ..deps import DatabaseDep, StateDep, executor_for
from ..result_cache import cached_rows
from engine.paging import paged_sql
from .rows import RowsResponse, rows_response
from .schemas import QueryRequest, QueryResponse, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["smq"],
                   responses=problem_responses(400, 401, 403, 404, 422, 503, 504))


@router.post("/{db}/query", response_model=QueryResponse, summary="Compile an SMQ and return its rows")
def query(body: QueryRequest, database: DatabaseDep, state: StateDep, request: Request) -> RowsResponse:
    layer = database.layer
    max_rows = state.settings.max_rows
    executor = executor_for(state, database)
    if body.limit is None and not body.offset:
        sql = layer.compile(body.smq, dialect=layer.dialect, role=database.role)
        result = cached_rows(request, database, sql, max_rows,
                             lambda: executor.execute(sql, max_rows=max_rows, timeout_s=state.settings.query_timeout_s))
        return rows_response(request, sql, result, limit=max_rows, offset=0)
    limit = max_rows if body.limit is None else min(body.limit, max_rows)
    page = paged_sql(layer, body.smq, database.role, limit, body.offset)
    result = cached_rows(request, database, page.run, page.size,
                         lambda: executor.execute(page.run, max_rows=page.size, timeout_s=state.settings.query_timeout_s))
    return rows_response(request, page.shown, result, limit=page.size, offset=body.offset)
