"""The SMQ as a frozen spec: shape checks only, no knowledge of the layer.

Errors name the field (`metrics[1]`, `order_by[0]`) so a client can point at the exact spot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import Location, QueryError, nearest
from .structured import StructuredFilter, check_shape

SMQ_KEYS = ("metrics", "group_by", "filters", "order_by", "limit")


@dataclass(frozen=True, slots=True)
class OrderKey:
    name: str
    descending: bool
    field: str


@dataclass(frozen=True, slots=True)
class SMQ:
    metrics: tuple[str, ...] = ()
    group_by: tuple[str, ...] = ()
    filters: tuple[str | StructuredFilter, ...] = ()  # SQL text or a structured (JSON) filter
    order_by: tuple[OrderKey, ...] = ()
    limit: int | None = None

    def canonical(self) -> str:
        """A stable text form, used as a cache key."""
        return json.dumps(
            [self.metrics, self.group_by, [f if isinstance(f, str) else json.loads(f.spec) for f in self.filters], [(o.name, o.descending) for o in self.order_by], self.limit],
            separators=(",", ":"),
        )

    def as_dict(self) -> dict[str, Any]:
        """The query as an SMQ object again (the keys it has), e.g. for explain."""
        out: dict[str, Any] = {}
        if self.metrics:
            out["metrics"] = list(self.metrics)
        if self.group_by:
            out["group_by"] = list(self.group_by)
        if self.filters:
            out["filters"] = [f if isinstance(f, str) else f.data for f in self.filters]
        if self.order_by:
            out["order_by"] = [("-" if o.descending else "") + o.name for o in self.order_by]
        if self.limit is not None:
            out["limit"] = self.limit
        return out


def _err(message: str, field: str, code: str = "invalid_query", suggestions: tuple[str, ...] | list[str] = ()) -> QueryError:
    return QueryError(message, code=code, location=Location(field=field), suggestions=suggestions)


def _names(raw: dict[str, Any], key: str) -> tuple[str, ...]:
    value = raw.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise _err(f"'{key}' must be a list of strings, got {type(value).__name__}", key, "invalid_smq")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise _err(f"'{key}[{i}]' must be a non-empty string, got {item!r}", f"{key}[{i}]", "invalid_smq")
        out.append(item.strip())
    seen: dict[str, int] = {}
    for i, item in enumerate(out):
        if item in seen and key != "filters":
            raise _err(f"'{item}' appears twice in {key} (positions {seen[item]} and {i})", f"{key}[{i}]", "duplicate_entry")
        seen[item] = i
    return tuple(out)


def _filters(raw: dict[str, Any]) -> tuple[str | StructuredFilter, ...]:
    """`filters`: SQL-string filters and structured `{member, operator, values}` / `and` / `or` objects."""
    value = raw.get("filters")
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or all(isinstance(v, str) for v in value):
        return _names(raw, "filters")
    out: list[str | StructuredFilter] = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            if not item.strip():
                raise _err(f"'filters[{i}]' must be a non-empty string, got {item!r}", f"filters[{i}]", "invalid_smq")
            out.append(item.strip())
        else:
            out.append(check_shape(item, f"filters[{i}]"))
    return tuple(out)


def parse_smq(raw: Any) -> SMQ:
    """Check the SMQ's shape: known keys, lists of strings, a positive integer limit."""
    if isinstance(raw, SMQ):
        return raw
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _err(f"the SMQ is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", "smq", "invalid_json") from None
    if not isinstance(raw, dict):
        raise _err(f"the SMQ must be a JSON object with keys {', '.join(SMQ_KEYS)}, got {type(raw).__name__}", "smq", "invalid_smq")
    for key in raw:
        if key not in SMQ_KEYS:
            raise _err(f"unknown SMQ key '{key}' (allowed: {', '.join(SMQ_KEYS)})", str(key), "unknown_key", nearest(str(key), SMQ_KEYS, 1))
    metrics = _names(raw, "metrics")
    group_by = _names(raw, "group_by")
    if not metrics and not group_by:
        raise _err("the SMQ needs at least one entry in 'metrics' or 'group_by'", "metrics", "empty_query")
    order: list[OrderKey] = []
    for i, entry in enumerate(_names(raw, "order_by")):
        desc = entry.startswith("-")
        name = entry[1:].strip() if desc or entry.startswith("+") else entry
        order.append(OrderKey(name, desc, f"order_by[{i}]"))
    limit = raw.get("limit")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise _err(f"'limit' must be a non-negative integer, got {limit!r}", "limit", "invalid_smq")
    return SMQ(metrics, group_by, _filters(raw), tuple(order), limit)
