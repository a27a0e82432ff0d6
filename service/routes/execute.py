"""The agent's terminal action: one read-only SQL query, run as the caller's role.

Order of the locks (`smq_db.rawsql.prepare_raw_sql`, shared by every raw-SQL path): the read-only
guard (one SELECT, no file/network functions), then the read policy (`engine.access.readpolicy`: system
catalogs, semantic model names used as tables, functions off the allow-list: errors an agent can
act on), then the role (`apply_role_to_sql`: restricted tables become filtered subqueries, or the
SQL is refused), then the executor, whose connection is read-only too. What runs is the SQL
regenerated from the checked tree, never the client's text.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from smq_db.rawsql import prepare_raw_sql

from ..columns import raw_columns
from ..deps import DatabaseDep, StateDep, executor_for
from ..limits import check_sql_length
from ..result_cache import cached_rows
from ..result_formats import OPENAPI_CONTENT, negotiate, respond
from .query import CsvSafeParam, FormatParam
from .rows import rows_payload
from .schemas import ExecuteRequest, Rows, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["sql"], responses=problem_responses(400, 401, 403, 404, 422, 503, 504))


@router.post("/{db}/execute", response_model=Rows, responses=OPENAPI_CONTENT, summary="execute: run one read-only SELECT")
def execute(body: ExecuteRequest, database: DatabaseDep, state: StateDep, request: Request,
            format: FormatParam = None, csv_safe: CsvSafeParam = True) -> Response:
    layer = database.layer
    check_sql_length(body.sql, state.settings.max_sql_chars)
    prepared = prepare_raw_sql(body.sql, layer.semantic, layer.graph, database.role_obj)
    executor, max_rows = executor_for(state, database), state.settings.max_rows
    result = cached_rows(request, database, prepared.sql, max_rows,  # the SQL after the role's rewrite
                         lambda: executor.execute(prepared.sql, max_rows=max_rows, timeout_s=state.settings.query_timeout_s))
    payload = rows_payload(request, prepared.sql, result)
    payload["fields"] = raw_columns(result.columns, result.column_types, layer.dialect)  # no elements: raw SQL
    return respond(payload, negotiate(format, request.headers.get("accept")), name=database.name, csv_safe=csv_safe)
