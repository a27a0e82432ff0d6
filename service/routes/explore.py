"""What a query builder asks before it has a query: a dimension's values (to suggest and to check filter
values) and the spellings each dimension may take as a group-by next to the chosen metrics (one name, or
one per join path when the plain name is ambiguous).

Both answer from the engine and the database as `/query` does (the caller's role, `paged_sql`,
`executor_for`, the result cache): a value a role may not see is never suggested, and the spellings are
what `compile` accepts, never a guess.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from engine import Layer
from engine.errors import EngineError, Location, QueryError, nearest
from engine.lru import LruCache
from engine.paging import paged_sql

from ..deps import Database, DatabaseDep, StateDep, executor_for
from ..result_cache import cached_rows
from .schemas import Strict, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["explore"], responses=problem_responses(400, 401, 403, 404, 422, 503, 504))

MAX_VALUES = 1000
CHECK_POOL = 1000  # the values a missing one is compared with for suggestions


class ValuesRequest(Strict):
    dimension: str = Field(description="a dimension (`OrdersModel__status`; a join path's dimension lists the same values)",
                           examples=["OrdersModel__status"])
    search: str | None = Field(None, description="only values containing this text, case-insensitive (text dimensions)")
    limit: int = Field(100, ge=1, le=MAX_VALUES, description="at most this many values")
    check: list[str | int | float] = Field(default_factory=list, max_length=100,
                                           description="values to look for: those no row has come back in `missing`")


class MissingValue(BaseModel):
    value: str | int | float
    suggestions: list[str] = Field(description="the nearest values the dimension has")


class ValuesResponse(BaseModel):
    dimension: str
    values: list[Any] = Field(description="distinct values in the default order, NULL left out")
    truncated: bool = Field(description="more values exist than `limit`")
    missing: list[MissingValue] = Field(description="the `check` values no row has")


class GroupByOptionsRequest(Strict):
    metrics: list[str] = Field(default_factory=list, max_length=50, description="the query's metrics and measures",
                               examples=[["OrderItemsModel__revenue"]])


class GroupByOption(BaseModel):
    spelling: str = Field(description="the name to put in group_by")
    via: list[str] = Field(description="the models a join path walks, from the metric's model; [] for a plain name")


class DimensionOptions(BaseModel):
    name: str
    type: str
    status: str = Field(description="ok: the plain name works; ambiguous: pick one of `options` (a join path); "
                                    "unusable: it cannot be grouped by next to these metrics (`message` says why)")
    options: list[GroupByOption]
    message: str | None = None


class GroupByOptionsResponse(BaseModel):
    dimensions: list[DimensionOptions]


def _bare(dimension: str) -> str:
    """A join path's dimension (`order.customer.nation.NationsModel__country`) -> its element."""
    return dimension.rsplit(".", 1)[-1]


def _rows(request: Request, database: Database, state: Any, smq: dict[str, Any], limit: int) -> list[list[Any]]:
    page = paged_sql(database.layer, smq, database.role, limit, 0)
    executor = executor_for(state, database)
    timeout = state.settings.query_timeout_s
    result = cached_rows(request, database, page.run, page.size,
                         lambda: executor.execute(page.run, max_rows=page.size, timeout_s=timeout))
    return result.rows


def _dimension_type(layer: Layer, element: str, role: str | None) -> str | None:
    for model in layer.elements(role=role)["models"]:
        for dim in model["dimensions"]:
            if dim["name"] == element:
                return str(dim["type"])
    return None


@router.post("/{db}/values", response_model=ValuesResponse, summary="The values of a dimension (suggestions, checks)")
def values(body: ValuesRequest, database: DatabaseDep, state: StateDep, request: Request) -> ValuesResponse:
    """Distinct values of one dimension as the caller's role sees them, optionally only those containing
    `search`; `check` values that no row has are listed in `missing` with the nearest values."""
    element = _bare(body.dimension)
    kind = _dimension_type(database.layer, element, database.role)
    if kind is None:
        known = [d["name"] for m in database.layer.elements(role=database.role)["models"] for d in m["dimensions"]]
        raise QueryError(f"'{body.dimension}' is not a dimension of database '{database.name}'", code="unknown_element",
                         location=Location(field="dimension"), suggestions=nearest(element, known))
    smq: dict[str, Any] = {"group_by": [element], "filters": [{"member": element, "operator": "set"}]}
    if body.search and kind == "string":
        smq["filters"].append({"member": element, "operator": "contains", "values": [body.search]})
    try:
        rows = _rows(request, database, state, smq, body.limit + 1)
        missing: list[MissingValue] = []
        if body.check:
            wanted = {"group_by": [element], "filters": [{"member": element, "operator": "equals", "values": body.check}]}
            found = {str(r[0]) for r in _rows(request, database, state, wanted, len(body.check) + 1)}
            absent = [v for v in body.check if str(v) not in found]
            if absent:
                pool = [str(r[0]) for r in _rows(request, database, state, {"group_by": [element], "filters": smq["filters"][:1]},
                                                 CHECK_POOL)]
                missing = [MissingValue(value=v, suggestions=_nearest_values(str(v), pool)) for v in absent]
    except EngineError as err:
        if err.location is not None and err.location.field and re.match(r"(group_by|filters)\[", err.location.field):
            raise type(err)(err.message, code=err.code, location=Location(field="dimension"), suggestions=err.suggestions) from None
        raise
    return ValuesResponse(dimension=body.dimension, values=[r[0] for r in rows[:body.limit]], truncated=len(rows) > body.limit,
                          missing=missing)


def _nearest_values(value: str, pool: list[str]) -> list[str]:
    """Close spellings first; then values that contain it or that it contains, ignoring case ('ship' -> 'shipped')."""
    out = nearest(value, pool, 3)
    low = value.lower().strip()
    for candidate in pool:
        if len(out) >= 3:
            break
        c = candidate.lower()
        if candidate not in out and low and (low in c or c in low):
            out.append(candidate)
    return out


_OPTIONS: LruCache[tuple, list[DimensionOptions]] = LruCache(256)


def _walked(layer: Layer, start: str, spelling: str) -> list[str]:
    keys, _, element = spelling.rpartition(".")
    model = element.partition("__")[0]
    try:
        steps = layer.graph.walk(start, keys.split("."), element, target=model)
    except QueryError:
        return []
    return [start, *(step.target for step in steps)]


@router.post("/{db}/group-by-options", response_model=GroupByOptionsResponse,
             summary="How each dimension may be grouped by next to these metrics (join paths where needed)")
def group_by_options(body: GroupByOptionsRequest, database: DatabaseDep) -> GroupByOptionsResponse:
    """Every dimension the role sees, with the spellings `compile` accepts next to `metrics`: the plain name, or,
    where it is ambiguous (a customer's or a supplier's country), one spelling per join path."""
    layer, role = database.layer, database.role
    if body.metrics:
        layer.compile({"metrics": body.metrics}, role=role)  # a bad metric is the caller's error, at metrics[i]
    key = (id(layer), layer.version, role, tuple(body.metrics))
    cached = _OPTIONS.get(key)
    if cached is None:
        cached = [_options(layer, role, body.metrics, d) for m in layer.elements(role=role)["models"] for d in m["dimensions"]]
        _OPTIONS.put(key, cached)
    return GroupByOptionsResponse(dimensions=cached)


def _options(layer: Layer, role: str | None, metrics: list[str], dim: dict[str, Any]) -> DimensionOptions:
    name, kind = dim["name"], dim["type"]
    plain = DimensionOptions(name=name, type=kind, status="ok", options=[GroupByOption(spelling=name, via=[])])
    if not metrics:
        return plain
    try:
        layer.compile({"metrics": metrics, "group_by": [name]}, role=role)
        return plain
    except QueryError as err:
        if err.code == "ambiguous_path":
            start = re.search(r"is ambiguous from (\w+)", err.message)
            options = [GroupByOption(spelling=s, via=_walked(layer, start.group(1), s) if start else []) for s in err.suggestions]
            return DimensionOptions(name=name, type=kind, status="ambiguous", options=options, message=err.message)
        return DimensionOptions(name=name, type=kind, status="unusable", options=[], message=err.message)
