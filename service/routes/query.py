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

import functools
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from engine.errors import EngineError, Location
from smq_db.compiled import compiled_page, compiled_sql
from smq_db.rollup_runs import count as count_answer, rollups_of

from ..columns import raw_columns, smq_columns
from ..deps import Database, DatabaseDep, ServiceState, StateDep, executor_for_async
from ..errors import ServiceError
from ..lean_route import LeanRoute
from ..result_cache import cached_rows_async, large_result
from ..result_formats import OPENAPI_CONTENT, negotiate, respond
from ..timing import record_timing_entry
from ..total import total_rows
from .rows import rows_payload
from .schemas import QueryRequest, QueryResponse, problem_responses

# the BI call's route answers without FastAPI's generic dependency walk (service/lean_route.py): same answers
router = APIRouter(prefix="/v1/databases", tags=["smq"], route_class=LeanRoute,
                   responses=problem_responses(400, 401, 403, 404, 422, 503, 504))

FormatParam = Annotated[Literal["json", "csv", "arrow", "ndjson"] | None, Query(
    description="the answer's format; default: from the Accept header (text/csv, application/vnd.apache.arrow.stream, "
                "application/x-ndjson), else JSON")]
CsvSafeParam = Annotated[bool, Query(description="CSV only: text cells starting with = + - @ tab or CR get a leading ' so "
                                                "spreadsheets show them as text, not run them as formulas; false: as stored")]
TotalParam = Annotated[bool, Query(description="also count the rows of the whole answer (`total`; one more query)")]
RollupsParam = Annotated[Literal["on", "off"], Query(
    description="off: answer from the facts, never from a rollup (docs/rollups.md); on (default): from a rollup where "
                "provably the same (Server-Timing names it)")]


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


async def run_query(body: QueryRequest, database: Database, state: ServiceState, request: Request,
                    fmt: str | None, total: bool, csv_safe: bool = True, rollups: bool = True) -> Response:
    """The rows of one SMQ page in the format asked for.

    On the event loop: compiling, the result cache's lookup and the answer's JSON are memory work, and a DuckDB
    or SQLite worker's reply is awaited on the loop (smq_db.executors.worker); a blocking backend, the cache on
    Redis and a large answer go to the thread pool. No request waits for a thread it does not need.
    """
    layer = database.layer
    settings = state.settings
    check_limit(body.limit, settings.max_limit, "limit")
    check_limit(body.offset, settings.max_limit, "offset")
    if isinstance(body.smq, dict):
        check_limit(body.smq.get("limit"), settings.max_limit, "smq.limit")
    form = negotiate(fmt, request.headers.get("accept"))
    max_rows = settings.max_rows
    timeout_s = settings.query_timeout_s
    executor = await executor_for_async(state, database)
    smq = layer.parse(body.smq)  # once (a saved query expanded): compiling and typing the fields take the parsed SMQ
    if body.limit is None and not body.offset:
        sql = compiled_sql(layer, smq, database.role, rollups=rollups)  # checked read-only on its tree: the executor does not parse it
        shown = sql
        if layer.shows_filters(database.role):  # a role sees its filters' values named, not spelled out
            shown = compiled_page(layer, smq, database.role, max_rows, probe=False, rollups=rollups).shown \
                if rollups_of(sql) else layer.compile(smq, dialect=layer.dialect, role=database.role, shown=True, rollups=False)
        run, size = sql, max_rows
    else:
        limit = max_rows if body.limit is None else min(body.limit, max_rows)
        page = compiled_page(layer, smq, database.role, limit, body.offset, rollups=rollups)
        run, shown, size = page.run, page.shown, page.size
    if layer.rollups:
        used = rollups_of(run)
        count_answer(bool(used))
        if used:
            record_timing_entry(request.scope, f'rollup;desc="{",".join(used)}"')
    result = await cached_rows_async(
        request, database, run, size,
        lambda: executor.execute_async(run, max_rows=size, timeout_s=timeout_s, in_thread=run_in_threadpool),
        run_in_threadpool)
    payload = rows_payload(request, shown, result, limit=size, offset=body.offset)
    payload["fields"] = _fields(database, smq, result.columns, result.column_types)
    payload["total"] = None
    if total or body.total:
        if not result.truncated and (result.row_count or not body.offset):  # the last page: no need to count
            payload["total"] = body.offset + result.row_count
        else:
            payload["total"] = await run_in_threadpool(total_rows, layer, smq, database.role, executor, timeout_s)
    if form == "json" and not large_result(result):
        return respond(payload, form, name=database.name, csv_safe=csv_safe)
    return await run_in_threadpool(functools.partial(respond, payload, form, name=database.name, csv_safe=csv_safe))


@router.post("/{db}/query", response_model=QueryResponse, responses=OPENAPI_CONTENT,
             summary="Compile an SMQ and return its rows")
async def query(body: QueryRequest, database: DatabaseDep, state: StateDep, request: Request,
                format: FormatParam = None, total: TotalParam = False, csv_safe: CsvSafeParam = True,
                rollups: RollupsParam = "on") -> Response:
    return await run_query(body, database, state, request, format, total, csv_safe, rollups == "on")


@router.get("/{db}/query", response_model=QueryResponse, responses=OPENAPI_CONTENT,
            summary="The same query, the SMQ as JSON in the query string")
async def query_get(database: DatabaseDep, state: StateDep, request: Request,
              q: Annotated[str, Query(description="the SMQ as JSON, URL-encoded, e.g. "
                                                  "q=%7B%22metrics%22%3A%5B%22OrdersModel__orderCount%22%5D%7D")],
              limit: Annotated[int | None, Query(ge=0, description="page size (as in the POST body)")] = None,
              offset: Annotated[int, Query(ge=0, description="rows to skip")] = 0,
              format: FormatParam = None, total: TotalParam = False, csv_safe: CsvSafeParam = True,
              rollups: RollupsParam = "on") -> Response:
    try:
        smq = json.loads(q)
    except ValueError as err:
        raise ServiceError(f"q is not valid JSON: {err}", code="invalid_request", location=Location(field="q")) from None
    if not isinstance(smq, dict):
        raise ServiceError("q must be a JSON object (an SMQ)", code="invalid_request", location=Location(field="q"))
    body = QueryRequest.model_construct(smq=smq, limit=limit, offset=offset, total=False)
    return await run_query(body, database, state, request, format, total, csv_safe, rollups == "on")
