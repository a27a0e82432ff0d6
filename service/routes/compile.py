"""convertSmqToSql: an SMQ compiled to SQL for the caller's role, with a five-row preview.

The preview runs in the database's own dialect (whatever dialect the SQL is shown in) with its
LIMIT pushed into the SQL. When the database cannot run it (backend down, query failing or timing
out) the SQL is still returned, with `preview: null` and `preview_error`: compiling needs no database.
"""

from __future__ import annotations

from fastapi import APIRouter, Request

from engine.errors import EngineError
from smq_db.compiled import compiled_page

from ..deps import DatabaseDep, StateDep, executor_for
from ..settings import PREVIEW_ROWS
from ..timing import record_db_time
from .query import check_limit
from .schemas import CompileRequest, CompileResponse, Preview, ProblemItem, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["smq"], responses=problem_responses(400, 401, 403, 404, 422, 503))


@router.post("/{db}/compile", response_model=CompileResponse, summary="convertSmqToSql: compile an SMQ (and preview it)")
def compile_smq(body: CompileRequest, database: DatabaseDep, state: StateDep, request: Request) -> CompileResponse:
    layer = database.layer
    check_limit(body.smq.get("limit"), state.settings.max_limit, "smq.limit")  # as /query: not an engine overflow
    dialect = (body.dialect or layer.dialect).lower()
    sql = layer.compile(body.smq, dialect=dialect, role=database.role, shown=True)  # its filters' values named
    if not body.preview:
        return CompileResponse(sql=sql, dialect=dialect)
    page = compiled_page(layer, body.smq, database.role, PREVIEW_ROWS, probe=False)
    try:
        result = executor_for(state, database).execute(page.run, max_rows=PREVIEW_ROWS,
                                                       timeout_s=state.settings.query_timeout_s)
    except EngineError as err:  # the SQL is fine; only running it failed
        return CompileResponse(sql=sql, dialect=dialect, preview_error=ProblemItem(**err.to_dict()))
    record_db_time(request.scope, result.elapsed_ms)
    return CompileResponse(sql=sql, dialect=dialect, preview=Preview(columns=result.columns, rows=result.rows))
