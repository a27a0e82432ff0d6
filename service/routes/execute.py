"""The agent's terminal action: one read-only SQL query, run as the caller's role.

Order of the locks: the read-only guard (one SELECT, no file/network functions), then this
service's refusals (system catalogs, semantic model names used as tables: errors an agent can act
on), then the role (`apply_role_to_sql`: restricted tables become filtered subqueries, or the SQL
is refused), then the executor, whose connection is read-only too.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlglot import exp

from engine.access import apply_role_to_sql
from engine.readpolicy import TABLE_FUNCTION_REFUSED, TABLE_NOT_IN_LAYER, policy_for

from ..deps import Database, DatabaseDep, StateDep, executor_for
from smq_db.executors import check_read_only
from .rows import RowsResponse, rows_response
from .schemas import ExecuteRequest, Rows, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["sql"], responses=problem_responses(400, 401, 403, 404, 422, 503, 504))

@router.post("/{db}/execute", response_model=Rows, summary="execute: run one read-only SELECT")
def execute(body: ExecuteRequest, database: DatabaseDep, state: StateDep, request: Request) -> RowsResponse:
    layer = database.layer
    tree = check_read_only(body.sql, layer.dialect)
    _refuse_non_tables(tree, database)
    rewritten = apply_role_to_sql(tree, layer.semantic, layer.graph, database.role_obj)
    sql = body.sql if rewritten is tree else rewritten.sql(dialect=layer.dialect)
    result = executor_for(state, database).execute(sql, max_rows=state.settings.max_rows,
                                                   timeout_s=state.settings.query_timeout_s)
    return rows_response(request, sql, result)


def _refuse_non_tables(tree: exp.Expression, database: Database) -> None:
    """System catalogs and semantic model names are not tables an answer may read (engine.readpolicy)."""
    policy_for(database.layer.semantic).check(tree, allow=(TABLE_FUNCTION_REFUSED, TABLE_NOT_IN_LAYER))
