"""Cube's query format <-> the SMQ: member names, timeDimensions, filters, order, and the answer's shape.

Models are cubes: `OrdersModel.orderCount` is the element `OrdersModel__orderCount`. Metrics (which
belong to no single model) live under the virtual cube `Metrics`: `Metrics.revenue` is `revenue`.
A time dimension with a granularity is the element with that grain (`OrdersModel.orderDate` by
`month` is `OrdersModel__orderDate__month`), its dateRange a structured `inDateRange` filter, and
Cube's filters are the SMQ's structured filters with member names translated. A member reached through
joins is spelled as Cube spells join paths, the cubes walked then the member
(`OrderItemsModel.OrdersModel.CustomersModel.NationsModel.country`: cube_paths.py).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from engine import Layer
from engine.errors import Location, QueryError, nearest

from .cube_paths import path_element

METRICS_CUBE = "Metrics"
GRANULARITIES = ("day", "week", "month", "quarter", "year")
QUERY_KEYS = ("measures", "dimensions", "timeDimensions", "filters", "order", "limit", "offset", "segments",
              "timezone", "renewQuery", "ungrouped", "total", "responseFormat")


def _err(message: str, field_name: str, code: str = "invalid_query", suggestions: list[str] | None = None) -> QueryError:
    return QueryError(message, code=code, location=Location(field=f"query.{field_name}"), suggestions=suggestions or ())


def to_element(member: Any, where: str, layer: Layer | None = None) -> str:
    """`Cube.member` -> the SMQ element name (`Metrics.x` -> `x`); `A.B.Cube.member`, a join path, -> `ab.bc.Cube__member`."""
    if not isinstance(member, str) or member.count(".") < 1 or not all(member.split(".")) or (
            member.count(".") > 1 and (layer is None or member.startswith(f"{METRICS_CUBE}."))):
        raise _err(f"{member!r} is not a Cube member name; write 'Cube.member' (e.g. 'OrdersModel.orderCount'), or a join "
                   "path 'Cube.JoinedCube.member' for a dimension", where)
    if member.count(".") > 1:
        assert layer is not None
        return path_element(layer, member, where)
    cube, name = member.split(".")
    return name if cube == METRICS_CUBE else f"{cube}__{name}"


def to_member(element: str) -> str:
    """The SMQ element name -> `Cube.member`."""
    if "__" not in element:
        return f"{METRICS_CUBE}.{element}"
    model, _, rest = element.partition("__")
    return f"{model}.{rest.replace('__', '.')}"


@dataclass
class Translated:
    """An SMQ and how to put its columns back into Cube's keys."""

    smq: dict[str, Any]
    limit: int | None
    offset: int
    columns: dict[str, list[str]] = field(default_factory=dict)  # SMQ column -> Cube keys it fills
    time_columns: set[str] = field(default_factory=set)
    cube_filters: int = 0  # the SMQ's first filters are the Cube query's, in order; dateRanges follow

    def member(self, column: str) -> str:
        """The Cube member an SMQ column was asked as (a join path stays as the client spelled it)."""
        keys = self.columns.get(column)
        return keys[0] if keys else to_member(column)


def translate(query: Any, layer: Layer | None = None) -> Translated:
    """A Cube query -> an SMQ; anything this layer cannot honour is refused, naming the field."""
    if not isinstance(query, dict):
        raise _err(f"the query must be a JSON object, got {type(query).__name__}", "query")
    for key in query:
        if key not in QUERY_KEYS:
            raise _err(f"unknown query key '{key}'", str(key), "unknown_key", nearest(str(key), QUERY_KEYS, 1))
    if query.get("segments"):
        raise _err("segments are not supported: this semantic layer has no segments; write the condition as a filter",
                   "segments", "invalid_query")
    if query.get("ungrouped"):
        raise _err("ungrouped queries are not supported: every answer is aggregated", "ungrouped")
    measures = [to_element(m, f"measures[{i}]") for i, m in enumerate(_list(query, "measures"))]  # no paths: a measure is its cube's
    group_by: list[str] = []
    columns: dict[str, list[str]] = {}
    for i, member in enumerate(_list(query, "dimensions")):
        element = to_element(member, f"dimensions[{i}]", layer)
        group_by.append(element)
        columns.setdefault(element, []).append(member)
    filters: list[Any] = [_filter(f, f"filters[{i}]", layer) for i, f in enumerate(_list(query, "filters"))]
    time_columns: set[str] = set()
    for i, td in enumerate(_list(query, "timeDimensions")):
        where = f"timeDimensions[{i}]"
        if not isinstance(td, dict) or "dimension" not in td:
            raise _err("a time dimension is an object with 'dimension' (and 'granularity' and/or 'dateRange')", where)
        member = td["dimension"]
        element = to_element(member, f"{where}.dimension", layer)
        granularity = td.get("granularity")
        if granularity is not None:
            if granularity not in GRANULARITIES:
                raise _err(f"granularity {granularity!r} is not supported (supported: {', '.join(GRANULARITIES)})",
                           f"{where}.granularity", suggestions=nearest(str(granularity), GRANULARITIES, 1))
            column = f"{element}__{granularity}"
            if column not in group_by:
                group_by.append(column)
            columns.setdefault(column, []).extend([f"{member}.{granularity}", member])
            time_columns.add(column)
        date_range = td.get("dateRange")
        if date_range is not None:
            values = [date_range] if isinstance(date_range, str) else date_range
            filters.append({"member": element, "operator": "inDateRange", "values": values})
    for element in measures:
        columns.setdefault(element, []).append(to_member(element))
    smq: dict[str, Any] = {"metrics": measures, "group_by": group_by}
    if filters:
        smq["filters"] = filters
    order = _order(query.get("order"), columns)
    if order:
        smq["order_by"] = order
    limit, offset = query.get("limit"), query.get("offset") or 0
    for name, value in (("limit", limit), ("offset", offset)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise _err(f"'{name}' must be a non-negative integer, got {value!r}", name)
    return Translated(smq, limit, offset, columns, time_columns, len(_list(query, "filters")))


def _list(query: dict[str, Any], key: str) -> list[Any]:
    value = query.get(key) or []
    if not isinstance(value, list):
        raise _err(f"'{key}' must be a list", key)
    return value


def _filter(raw: Any, where: str, layer: Layer | None = None) -> Any:
    """A Cube filter -> a structured SMQ filter (the same operators; `dimension` is an old name of `member`)."""
    if not isinstance(raw, dict):
        raise _err("a filter is an object {member, operator, values} or {and: [...]} / {or: [...]}", where)
    for key in ("and", "or"):
        if key in raw:
            items = raw[key]
            if not isinstance(items, list):
                raise _err(f"'{key}' must be a list of filters", f"{where}.{key}")
            return {key: [_filter(item, f"{where}.{key}[{i}]", layer) for i, item in enumerate(items)]}
    member = raw.get("member", raw.get("dimension"))
    out: dict[str, Any] = {"member": to_element(member, f"{where}.member", layer), "operator": raw.get("operator")}
    if raw.get("values") is not None:
        out["values"] = raw["values"]
    return out


def _order(order: Any, columns: dict[str, list[str]]) -> list[str]:
    """Cube's `order` ({member: dir} or [[member, dir]]) -> SMQ order_by, on the query's own columns."""
    if not order:
        return []
    pairs = list(order.items()) if isinstance(order, dict) else order
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[1] not in ("asc", "desc"):
            raise _err("order entries are {member: 'asc'|'desc'} or [member, 'asc'|'desc']", f"order[{i}]")
        member, direction = pair
        column = next((c for c, keys in columns.items() if member in keys), None)
        if column is None:
            raise _err(f"cannot order by {member!r}: it is not a measure, dimension or time dimension of the query",
                       f"order[{i}]", suggestions=nearest(str(member), [k for keys in columns.values() for k in keys]))
        out.append(("-" if direction == "desc" else "") + column)
    return out


def cube_field(smq_field: str | None, tr: Translated | None) -> str | None:
    """An SMQ error location (`metrics[1]`, `group_by[0]`) as the Cube query's field (`query.measures[1]`...)."""
    if smq_field is None or tr is None or smq_field.startswith("query."):
        return smq_field
    head, sep, rest = smq_field.partition("]")
    name, _, index = head.partition("[")
    if not sep or not index.isdigit():
        return smq_field
    if name == "metrics":
        return f"query.measures[{index}]{rest}"
    if name == "group_by":
        column = tr.smq["group_by"][int(index)]
        return f"query.{'timeDimensions' if column in tr.time_columns else 'dimensions'}: {tr.member(column)}{rest}"
    if name == "filters" and int(index) < tr.cube_filters:
        return f"query.filters[{index}]{rest}"
    if name == "filters":
        return f"query.timeDimensions.dateRange{rest}"
    return smq_field


def cube_time(value: Any) -> Any:
    """A date/timestamp value as Cube writes it: `2024-01-01T00:00:00.000`."""
    if value is None:
        return None
    text = str(value).replace(" ", "T")
    if len(text) == 10:
        return f"{text}T00:00:00.000"
    try:
        return dt.datetime.fromisoformat(text).isoformat(timespec="milliseconds")
    except ValueError:
        return text


def cube_rows(tr: Translated, columns: list[str], rows: list[list[Any]]) -> list[dict[str, Any]]:
    """Executor rows -> Cube's `data`: one object per row keyed by `Cube.member`; numbers as Cube sends them (strings)."""
    out = []
    for row in rows:
        item: dict[str, Any] = {}
        for column, value in zip(columns, row):
            if column in tr.time_columns:
                value = cube_time(value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                value = str(value)
            for key in tr.columns.get(column, [to_member(column)]):
                item[key] = value
        out.append(item)
    return out
