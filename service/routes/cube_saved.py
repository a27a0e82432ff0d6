"""Saved queries as Cube views: `/meta` lists each as a view, `/load` runs one by its members.

A view `order_metrics` has the saved query's metrics as measures and its group_by as dimensions
(`order_metrics.orders`, `order_metrics.metric_time__day`). A Cube query whose members are all of one view is
the saved query run by name (engine/resolve/saved.py): its `order` and `limit` replace the saved ones; filters
and timeDimensions are refused (the saved query fixes them; filter in an SMQ with `saved_query` instead).
"""

from __future__ import annotations

from typing import Any

from engine import Layer
from engine.errors import Location, QueryError, nearest
from engine.resolve.saved import expand_saved_query

from .cube_query import GRANULARITIES, Translated

_TIME_SUFFIXES = tuple(f"__{g}" for g in GRANULARITIES)


def _columns(saved: Any) -> tuple[list[str], list[str]]:
    query = saved.query

    def listed(key: str) -> list[Any]:
        return [query[key]] if isinstance(query.get(key), str) else list(query.get(key) or [])
    return [str(g) for g in listed("group_by")], [str(m) for m in listed("metrics")]


def _is_time(column: str) -> bool:
    return column == "metric_time" or column.endswith(_TIME_SUFFIXES)


def saved_views(layer: Layer, role: str | None = None) -> list[dict[str, Any]]:
    """/meta's views, one per saved query the role may run."""
    views = []
    runnable = {q["name"] for q in layer.saved_query_list(role)}
    for saved in layer.saved_queries.values():
        if saved.name not in runnable:
            continue
        group_by, metrics = _columns(saved)
        def member(column: str, name: str = saved.name) -> str:
            return f"{name}.{column.replace('.', '__')}"
        views.append({
            "name": saved.name, "title": saved.label or saved.name, "description": saved.description, "type": "view",
            "connectedComponent": 1, "segments": [], "meta": {"saved_query": saved.name},
            "measures": [{"name": member(m), "title": m, "shortTitle": m, "type": "number", "description": "",
                          "isVisible": True, "public": True} for m in metrics],
            "dimensions": [{"name": member(g), "title": g, "shortTitle": g, "type": "time" if _is_time(g) else "string",
                            "description": "", "isVisible": True, "public": True} for g in group_by],
        })
    return views


def _members(query: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for key in ("measures", "dimensions"):
        value = query.get(key)
        out += value if isinstance(value, list) else []
    return out


def saved_view_of(query: Any, layer: Layer) -> str | None:
    """The saved query a Cube query names (all its members in one view), or None for an ordinary Cube query."""
    if not isinstance(query, dict) or not layer.saved_queries:
        return None
    cubes = {m.split(".", 1)[0] for m in _members(query) if isinstance(m, str) and "." in m}
    views = cubes & set(layer.saved_queries)
    if not views:
        return None
    if len(cubes) > 1:
        raise QueryError(f"a saved-query view ({', '.join(sorted(views))}) cannot be mixed with other cubes in one query",
                         code="invalid_query", location=Location(field="query.measures"))
    return views.pop()


def translate_view(query: dict[str, Any], layer: Layer, view: str) -> Translated:
    """A Cube query over a saved-query view -> the saved query (its order and limit as overrides)."""
    saved = layer.saved_queries[view]
    group_by, metrics = _columns(saved)
    by_member = {f"{view}.{c.replace('.', '__')}": c for c in [*group_by, *metrics]}
    for key in ("filters", "timeDimensions", "segments"):
        if query.get(key):
            raise QueryError(f"'{key}' cannot be used on the saved-query view '{view}' (the saved query fixes them)",
                             code="invalid_query", location=Location(field=f"query.{key}"))
    for i, member in enumerate(_members(query)):
        if member not in by_member:
            raise QueryError(f"'{member}' is not a member of the saved-query view '{view}'", code="unknown_element",
                             location=Location(field=f"query.members[{i}]"), suggestions=nearest(str(member), by_member))
    body: dict[str, Any] = {"saved_query": view}
    order = query.get("order")
    pairs = list(order.items()) if isinstance(order, dict) else [tuple(p) for p in order or [] if isinstance(p, (list, tuple))]
    if pairs:
        body["order_by"] = [("-" if str(d).lower() == "desc" else "") + by_member.get(str(m), str(m)) for m, d in pairs]
    limit, offset = query.get("limit"), query.get("offset") or 0
    for name, value in (("limit", limit), ("offset", offset)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise QueryError(f"'{name}' must be a non-negative integer, got {value!r}", code="invalid_query",
                             location=Location(field=f"query.{name}"))
    smq = expand_saved_query(body, layer.saved_queries)
    columns = {c: [f"{view}.{c.replace('.', '__')}"] for c in [*group_by, *metrics]}
    return Translated(smq, limit, offset, columns, {c for c in group_by if _is_time(c)}, 0)
