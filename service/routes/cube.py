"""Cube's REST API (`/cubejs-api/v1/load`, `/meta`, `/sql`) answered from the semantic layer.

Many BI front ends already speak Cube. A Cube query is translated to an SMQ (cube_query.py), then
compiled and run exactly as `/v1/databases/{db}/query` does it: the caller's role, `compiled_page`,
`executor_for`, the SMQ_MAX_ROWS cap. Keys come as Cube sends them, `Authorization: <key>` or
`Authorization: Bearer <key>`; the database is the `X-SMQ-Database` header, else the key's only
database. Errors are Cube's `{"error": "..."}` (plus our `code` and `errors[]`) with the HTTP status
of the error's code.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

from engine import Layer
from engine.errors import EngineError, Location, QueryError
from smq_db.compiled import compiled_page

from ..deps import CubePrincipalDep, Database, ServiceState, StateDep, executor_for, get_database, may_use
from ..errors import Forbidden
from ..limits import RETRY_AFTER_S, QuotaExceeded
from ..timing import record_db_time
from .cube_paths import cube_suggestions, path_dimensions
from .cube_query import METRICS_CUBE, Translated, cube_field, cube_rows, to_member, translate
from .cube_saved import saved_view_of, saved_views, translate_view


class CubeRoute(APIRoute):
    """A Cube route: an error raised while admitting the caller (401, 403, 429 from the dependencies) is
    answered in Cube's `{"error": ...}` shape too, as the route's own errors are."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def cube_errors(request: Request) -> Response:
            try:
                return await handler(request)
            except EngineError as err:
                return _error(err)

        return cube_errors


# Cube's own contract, not ours: kept out of the OpenAPI document (docs/cube.md describes it)
router = APIRouter(prefix="/cubejs-api/v1", tags=["cube"], include_in_schema=False, route_class=CubeRoute)

DATABASE_HEADER = "x-smq-database"
DEFAULT_LIMIT = 10_000  # Cube's default row limit
_TYPES = {"string": "string", "number": "number", "boolean": "boolean", "date": "time", "timestamp": "time"}


def _error(err: EngineError, tr: Translated | None = None, layer: Layer | None = None) -> JSONResponse:
    """Cube's error body, `{"error": ...}`, with our `code` and `errors[]`; locations named as in the Cube query,
    the join paths of an ambiguous dimension in Cube's spelling."""
    if err.code == "ambiguous_path" and layer is not None:
        message, suggestions = cube_suggestions(layer, err.message, list(err.suggestions))
        err = type(err)(message, code=err.code, location=err.location, suggestions=suggestions)
    items = err.problem()["errors"]
    if len(items) == 1 and tr is not None:
        field = cube_field(err.location.field, tr)
        if field != err.location.field:
            message = re.sub(r"'(\w+__\w+)'", lambda m: f"'{to_member(m.group(1))}'", err.message)
            err = type(err)(message, code=err.code, location=Location(field=field), suggestions=[
                to_member(s) if err.code == "unknown_element" and "." not in s else s for s in err.suggestions])
            items = err.problem()["errors"]
    headers = {"Retry-After": str(RETRY_AFTER_S)} if isinstance(err, QuotaExceeded) else None
    return JSONResponse({"error": err.formatted(), "code": err.code, "errors": items}, status_code=err.status,
                        headers=headers)


async def cube_database(request: Request, principal: CubePrincipalDep, state: StateDep) -> Database:
    """The database the admitted caller asks for (`X-SMQ-Database`) or the only one it may use."""
    name = request.headers.get(DATABASE_HEADER)
    if not name:
        usable = [e.name for e in state.registry.entries() if may_use(principal, e)]
        if len(usable) != 1:
            raise QueryError(f"name the database in the {DATABASE_HEADER} header (this key may use "
                             f"{', '.join(usable) or 'no database'})", code="database_required",
                             location=Location(field=DATABASE_HEADER), suggestions=usable)
        name = usable[0]
    if not principal.grants(name):
        raise Forbidden(f"API key '{principal.name}' may not use database '{name}'", code="database_forbidden")
    return await get_database(name, principal, state)


CubeDatabaseDep = Annotated[Database, Depends(cube_database)]


async def _query_param(request: Request) -> tuple[Any, bool]:
    """The `query` (GET: URL parameter; POST: JSON body) and whether the client asked for `queryType=multi`."""
    if request.method == "GET":
        raw, query_type = request.query_params.get("query"), request.query_params.get("queryType")
        if raw is None:
            raise QueryError("missing the 'query' parameter (a JSON Cube query)", code="invalid_query",
                             location=Location(field="query"))
        try:
            query = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise QueryError(f"the 'query' parameter is not valid JSON: {exc.msg} at column {exc.colno}",
                             code="invalid_json", location=Location(field="query")) from None
    else:
        try:
            body = json.loads(await request.body() or b"{}")
        except json.JSONDecodeError as exc:
            raise QueryError(f"the request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                             code="invalid_json", location=Location(field="body")) from None
        if not isinstance(body, dict) or "query" not in body:
            raise QueryError("the body must be {\"query\": {...}}", code="invalid_query", location=Location(field="query"))
        query, query_type = body["query"], body.get("queryType")
    if isinstance(query, list):
        if len(query) != 1:
            raise QueryError("data blending (several queries at once) is not supported; send one query",
                             code="invalid_query", location=Location(field="query"))
        query = query[0]
    return query, query_type == "multi"


def _annotation(database: Database, tr: Translated) -> dict[str, Any]:
    """Titles and types of the query's members, from the layer as the caller's role sees it."""
    types: dict[str, tuple[str, str]] = {}
    for model in database.layer.elements(role=database.role)["models"]:
        for d in model["dimensions"]:
            types[d["name"]] = (_TYPES.get(d["type"], "string"), d["description"])
        for m in model["measures"] + model["metrics"]:
            types[m["name"]] = ("number", m["description"])
    out: dict[str, dict[str, Any]] = {"measures": {}, "dimensions": {}, "segments": {}, "timeDimensions": {}}
    measures = set(tr.smq["metrics"])
    for column, keys in tr.columns.items():
        base = column.rsplit("__", 1)[0] if column in tr.time_columns else column
        base = base.rsplit(".", 1)[-1]  # a join path's element: its dimension
        kind, description = types.get(base, ("number" if column in measures else "string", ""))
        for key in keys:
            title = key.replace(".", " ")
            entry = {"title": title, "shortTitle": key.split(".", 1)[1], "type": kind, "description": description}
            if column in measures:
                out["measures"][key] = {**entry, "drillMembers": [], "drillMembersGrouped": {"measures": [], "dimensions": []}}
            elif column in tr.time_columns:
                out["timeDimensions"][key] = entry
            else:
                out["dimensions"][key] = entry
    return out


def _normalized(query: dict[str, Any], tr: Translated, limit: int) -> dict[str, Any]:
    return {**query, "limit": limit, "offset": tr.offset, "timezone": query.get("timezone", "UTC"),
            "order": [[tr.member(c.lstrip("-")), "desc" if c.startswith("-") else "asc"] for c in tr.smq.get("order_by", [])],
            "queryType": "regularQuery"}


def _translate(query: Any, layer: Layer) -> Translated:
    """A Cube query as an SMQ: over a saved-query view, the saved query (cube_saved.py); else cube_query.py."""
    view = saved_view_of(query, layer)
    return translate_view(query, layer, view) if view is not None else translate(query, layer)


def _page(database: Database, state: ServiceState, tr: Translated) -> tuple[Any, int]:
    """The SQL page to run, as /query pages it: Cube's default limit, capped by SMQ_MAX_ROWS."""
    limit = min(tr.limit if tr.limit is not None else DEFAULT_LIMIT, state.settings.max_rows)
    return compiled_page(database.layer, tr.smq, database.role, limit, tr.offset), limit


@router.api_route("/load", methods=["GET", "POST"], summary="Cube /v1/load: run a Cube query")
async def load(request: Request, database: CubeDatabaseDep, state: StateDep) -> JSONResponse:
    tr: Translated | None = None
    layer: Layer | None = None
    try:
        layer = database.layer
        query, multi = await _query_param(request)
        tr = _translate(query, database.layer)
        page, limit = _page(database, state, tr)
        executor = executor_for(state, database)
        result = await run_in_threadpool(executor.execute, page.run, max_rows=page.size,
                                         timeout_s=state.settings.query_timeout_s)
    except EngineError as err:
        return _error(err, tr, layer)
    record_db_time(request.scope, result.elapsed_ms)
    normalized = _normalized(query, tr, limit)
    one = {"query": normalized, "data": cube_rows(tr, result.columns, result.rows),
           "lastRefreshTime": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
           "annotation": _annotation(database, tr), "dataSource": "default", "dbType": database.layer.dialect,
           "external": False, "slowQuery": False, "total": None}
    if multi:
        return JSONResponse({"queryType": "regularQuery", "results": [one], "pivotQuery": normalized, "slowQuery": False})
    return JSONResponse(one)


@router.api_route("/sql", methods=["GET", "POST"], summary="Cube /v1/sql: the SQL a Cube query compiles to")
async def sql(request: Request, database: CubeDatabaseDep, state: StateDep) -> JSONResponse:
    tr: Translated | None = None
    layer: Layer | None = None
    try:
        layer = database.layer
        query, _ = await _query_param(request)
        tr = _translate(query, database.layer)
        page, limit = _page(database, state, tr)
    except EngineError as err:
        return _error(err, tr, layer)
    return JSONResponse({"sql": {"sql": [page.shown, []], "status": "ok", "preAggregations": [], "dataSource": "default",
                                 "external": False, "order": _normalized(query, tr, limit)["order"]}})


@router.get("/meta", summary="Cube /v1/meta: models as cubes, metrics under the virtual cube 'Metrics'")
async def meta(database: CubeDatabaseDep) -> JSONResponse:
    cubes = []
    metrics: dict[str, dict[str, Any]] = {}
    listing = database.layer.elements(role=database.role)["models"]
    paths = path_dimensions(database.layer, listing)
    for model in listing:
        cubes.append({
            "name": model["name"], "title": model["name"], "description": model["description"], "type": "cube",
            "connectedComponent": 1, "segments": [],
            "measures": [_meta_member(m["name"], "number", m["description"], aggType=m["agg"], **_format(m))
                         for m in model["measures"]],
            "dimensions": [_meta_member(d["name"], _TYPES.get(d["type"], "string"), d["description"]) for d in model["dimensions"]]
            + [_path_member(member, element, d) for member, element, d in paths.get(model["name"], [])],
        })
        for m in model["metrics"]:
            metrics[m["name"]] = _meta_member(m["name"], "number", m["description"], aggType=m["type"], **_format(m))
    if metrics:
        cubes.append({"name": METRICS_CUBE, "title": METRICS_CUBE, "type": "cube", "connectedComponent": 1, "segments": [],
                      "description": "the layer's metrics (they belong to no single model)",
                      "measures": list(metrics.values()), "dimensions": []})
    cubes += saved_views(database.layer, database.role)  # the saved queries, as views (cube_saved.py)
    return JSONResponse({"cubes": cubes})


def _format(element: dict[str, Any]) -> dict[str, Any]:
    """Cube's `format` of a measure (currency, percent, number), the layer's whole format under `meta`."""
    shown = element.get("format")
    return {"format": shown["type"], "meta": {"format": shown}} if shown else {}


def _path_member(member: str, element: str, dim: dict[str, Any]) -> dict[str, Any]:
    """A dimension reached by one of several join paths, named as Cube names join paths (cube_paths.py)."""
    cubes = member.split(".")[:-1]
    title = f"{dim['name'].split('__', 1)[1]} via {' > '.join(cubes)}"
    return {"name": member, "title": title, "shortTitle": title, "type": _TYPES.get(dim["type"], "string"),
            "description": f"{dim['description']} (reached through {' > '.join(cubes)}; the layer's {element})".strip(),
            "isVisible": True, "public": True, "meta": {"joinPath": cubes, "element": element}}


def _meta_member(element: str, kind: str, description: str, **extra: Any) -> dict[str, Any]:
    name = to_member(element)
    return {"name": name, "title": name.replace(".", " "), "shortTitle": name.split(".", 1)[1], "type": kind,
            "description": description, "isVisible": True, "public": True, **extra}
