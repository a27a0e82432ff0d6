"""The BI call: an SMQ compiled for the caller's role, paged in SQL, and run.

`limit` defaults to and is capped by SMQ_MAX_ROWS. A page the caller asks for (`limit` or `offset`)
is pushed into the SQL (LIMIT/OFFSET) so the database does the cutting; without one, the compiled
SQL runs exactly as `compile` shows it and the executor stops reading at the cap (a LIMIT on an
ordered multi-CTE query can make DuckDB plan it 1.5x slower). `truncated` says more rows exist.

The same query is `POST` (the SMQ in the body) or `GET` (the SMQ as JSON in `?q=`, for links and
HTTP caches). The answer's columns are typed (`fields`, service.columns), its format is JSON, CSV,
Arrow or NDJSON (service.result_formats), and `total=true` adds the whole answer's row count.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response

from engine.errors import EngineError, Location
from engine.paging import paged_sql
from ..columns import raw_columns, smq_columns
from ..deps import Database, DatabaseDep, ServiceState, StateDep, executor_for
from ..errors import ServiceError
from ..result_cache import cached_rows
from ..result_formats import OPENAPI_CONTENT, negotiate, respond
from ..total import total_rows
from .rows import rows_payload
from .schemas import QueryRequest, QueryResponse, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["smq"],
                   responses=problem_responses(400, 401, 403, 404, 422, 503, 504))

FormatParam = Annotated[Literal["json", "csv", "arrow", "ndjson"] | None, Query(
    description="the answer's format; default: from the Accept header (text/csv, application/vnd.apache.arrow.stream, "
                "application/x-ndjson), else JSON")]
CsvSafeParam = Annotated[bool, Query(description="CSV only: text cells starting with = + - @ tab or CR get a leading ' so "
                                                "spreadsheets show them as text, not run them as formulas; false: as stored")]
TotalParam = Annotated[bool, Query(description="also count the rows of the whole answer (`total`; one more query)")]


class LimitTooLarge(ServiceError):
    code = "limit_too_large"


def check_limit(value: Any, maximum: int, field: str) -> None:
    """A limit above the service's maximum is the caller's error, said before any SQL is built
    (a 10^20 LIMIT otherwise reaches the database and fails there with an integer overflow)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > maximum:
        raise LimitTooLarge(f"{field.split('.')[-1]} {value} is larger than the maximum of {maximum:,} (SMQ_MAX_LIMIT); "
                            "page through the answer with limit and offset", location=Location(field=field))


def _fields(database: Database, smq: Any, columns: list[str], db_types: list[str | None] | None) -> list[dict[str, Any]]:
    layer = database.layer
    hidden = layer.visibility(database.role_obj.name if database.role_obj else None).hidden
    try:
        return smq_columns(layer, smq, hidden, columns, db_types, layer.dialect)
    except EngineError:  # compiled a moment ago, so this is not expected; the database's types still hold
        return raw_columns(columns, db_types, layer.dialect)


def run_query(body: QueryRequest, database: Database, state: ServiceState, request: Request,
              fmt: str | None, total: bool, csv_safe: bool = True) -> Response:
    """The rows of one SMQ page in the format asked for."""
    layer = database.layer
    settings = state.settings
    check_limit(body.limit, settings.max_limit, "limit")
    check_limit(body.offset, settings.max_limit, "offset")
    if isinstance(body.smq, dict):
        check_limit(body.smq.get("limit"), settings.max_limit, "smq.limit")
    form = negotiate(fmt, request.headers.get("accept"))
    max_rows = settings.max_rows
    executor = executor_for(state, database)
    if body.limit is None and not body.offset:
        sql = layer.compile(body.smq, dialect=layer.dialect, role=database.role)
        result = cached_rows(request, database, sql, max_rows,
                             lambda: executor.execute(sql, max_rows=max_rows, timeout_s=settings.query_timeout_s))
        shown = layer.compile(body.smq, dialect=layer.dialect, role=database.role, shown=True) if layer.shows_filters(database.role) else sql
        payload = rows_payload(request, shown, result, limit=max_rows, offset=0)  # a role's filters' values named
    else:
        limit = max_rows if body.limit is None else min(body.limit, max_rows)
        page = paged_sql(layer, body.smq, database.role, limit, body.offset)
        result = cached_rows(request, database, page.run, page.size,
                             lambda: executor.execute(page.run, max_rows=page.size, timeout_s=settings.query_timeout_s))
        payload = rows_payload(request, page.shown, result, limit=page.size, offset=body.offset)
    payload["fields"] = _fields(database, body.smq, result.columns, result.column_types)
    payload["total"] = None
    if total or body.total:
        if not result.truncated and (result.row_count or not body.offset):  # the last page: no need to count
            payload["total"] = body.offset + result.row_count
        else:
            payload["total"] = total_rows(layer, body.smq, database.role, executor, settings.query_timeout_s)
    return respond(payload, form, name=database.name, csv_safe=csv_safe)


@router.post("/{db}/query", response_model=QueryResponse, responses=OPENAPI_CONTENT,
             summary="Compile an SMQ and return its rows")
def query(body: QueryRequest, database: DatabaseDep, state: StateDep, request: Request,
          format: FormatParam = None, total: TotalParam = False, csv_safe: CsvSafeParam = True) -> Response:
    return run_query(body, database, state, request, format, total, csv_safe)


@router.get("/{db}/query", response_model=QueryResponse, responses=OPENAPI_CONTENT,
            summary="The same query, the SMQ as JSON in the query string")
def query_get(database: DatabaseDep, state: StateDep, request: Request,
              q: Annotated[str, Query(description="the SMQ as JSON, URL-encoded, e.g. "
                                                  "q=%7B%22metrics%22%3A%5B%22OrdersModel__orderCount%22%5D%7D")],
              limit: Annotated[int | None, Query(ge=0, description="page size (as in the POST body)")] = None,
              offset: Annotated[int, Query(ge=0, description="rows to skip")] = 0,
              format: FormatParam = None, total: TotalParam = False, csv_safe: CsvSafeParam = True) -> Response:
    try:
        smq = json.loads(q)
    except ValueError as err:
        raise ServiceError(f"q is not valid JSON: {err}", code="invalid_request", location=Location(field="q")) from None
    if not isinstance(smq, dict):
        raise ServiceError("q must be a JSON object (an SMQ)", code="invalid_request", location=Location(field="q"))
    body = QueryRequest.model_construct(smq=smq, limit=limit, offset=offset, total=False)
    return run_query(body, database, state, request, format, total, csv_safe)
