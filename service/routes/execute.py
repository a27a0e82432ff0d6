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
from engine.errors import Location, QueryError, nearest

from ..deps import Database, DatabaseDep, StateDep, executor_for
from ..errors import Forbidden
from ..limits import check_sql_length
from smq_db.executors import check_read_only
from .rows import RowsResponse, rows_response
from .schemas import ExecuteRequest, Rows, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["sql"], responses=problem_responses(400, 401, 403, 404, 422, 503, 504))

CATALOG_SCHEMAS = {"information_schema", "pg_catalog", "mysql", "performance_schema", "sys"}
CATALOG_PREFIXES = ("pg_", "sqlite_", "duckdb_")


@router.post("/{db}/execute", response_model=Rows, summary="execute: run one read-only SELECT")
def execute(body: ExecuteRequest, database: DatabaseDep, state: StateDep, request: Request) -> RowsResponse:
    layer = database.layer
    check_sql_length(body.sql, state.settings.max_sql_chars)
    tree = check_read_only(body.sql, layer.dialect)
    _refuse_non_tables(tree, database)
    rewritten = apply_role_to_sql(tree, layer.semantic, layer.graph, database.role_obj)
    sql = body.sql if rewritten is tree else rewritten.sql(dialect=layer.dialect)
    result = executor_for(state, database).execute(sql, max_rows=state.settings.max_rows,
                                                   timeout_s=state.settings.query_timeout_s)
    return rows_response(request, sql, result)


def _refuse_non_tables(tree: exp.Expression, database: Database) -> None:
    """System catalogs and semantic model names are not tables an answer may read."""
    semantic = database.layer.semantic
    physical = {m.source.name.lower(): m.name for m in semantic.models.values() if isinstance(m.source, exp.Table)}
    if semantic.time_spine is not None:
        physical[semantic.time_spine.table_node.name.lower()] = ""
    models = {name.lower(): name for name in semantic.models}
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        parts = [p.name.lower() for p in table.parts]
        name = parts[-1] if parts else ""
        if name in physical or name in ctes:
            continue
        if any(p in CATALOG_SCHEMAS for p in parts[:-1]) or name in CATALOG_SCHEMAS or name.startswith(CATALOG_PREFIXES):
            raise Forbidden(f"system catalog '{table.sql(dialect=database.layer.dialect)}' is not available here; "
                            "use getModelDataElements (POST /v1/databases/{db}/elements) to learn the models",
                            code="catalog_refused", location=Location(field="sql"))
        if name in models:
            model = semantic.models[models[name]]
            suggestion = [model.source.sql(dialect=database.layer.dialect)] if isinstance(model.source, exp.Table) else []
            raise QueryError(f"'{table.name}' is a semantic model, not a table; SQL reads physical tables "
                             "(compile an SMQ to see which)", code="not_a_table", location=Location(field="sql"),
                             suggestions=suggestion or nearest(name, list(physical)))
