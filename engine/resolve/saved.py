"""`{"saved_query": NAME, ...}`: a saved query of the layer as the SMQ it stands for.

Expanded before anything else reads the query, so a saved query is checked, compiled, cached and access-checked
exactly as the SMQ written out would be (a role's hidden names and row filters apply unchanged). Beside the name a
body may override `limit` and `order_by` (they replace the saved ones) and add `filters` (ANDed with the saved
query's own, as `mf query --saved-query X --where ...` does); `metrics` and `group_by` are the saved query's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import Location, QueryError, nearest

SAVED_KEY = "saved_query"
OVERRIDES = ("limit", "order_by", "filters")


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def expand_saved_query(raw: Any, saved: Mapping[str, Any]) -> Any:
    """The SMQ body a `{"saved_query": NAME}` body stands for; any other body is returned as it came."""
    if isinstance(raw, str) and SAVED_KEY in raw:
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return raw  # parse_smq reports it
    if not isinstance(raw, dict) or SAVED_KEY not in raw:
        return raw
    if raw[SAVED_KEY] is None:  # null is absent, as for every SMQ key
        return {k: v for k, v in raw.items() if k != SAVED_KEY}
    name = raw[SAVED_KEY]
    if not isinstance(name, str) or not name.strip():
        raise QueryError(f"'saved_query' must be the name of a saved query, got {name!r}", code="invalid_smq",
                         location=Location(field=SAVED_KEY))
    entry = saved.get(name.strip())
    if entry is None:
        known = ", ".join(sorted(saved)) or "none: the layer has no saved_queries.yml"
        raise QueryError(f"unknown saved query '{name}' (saved queries: {known})", code="unknown_saved_query",
                         location=Location(field=SAVED_KEY), suggestions=nearest(name, list(saved)))
    for key in raw:
        if key != SAVED_KEY and key not in OVERRIDES:
            raise QueryError(f"'{key}' cannot be given with 'saved_query' (the saved query fixes metrics and group_by; "
                             f"it may be given {', '.join(OVERRIDES)})", code="unknown_key", location=Location(field=str(key)),
                             suggestions=nearest(str(key), OVERRIDES, 1))
    body = {k: (list(v) if isinstance(v, list) else v) for k, v in entry.query.items()}
    if "filters" in raw:
        body["filters"] = _listed(body.get("filters")) + _listed(raw["filters"])
    for key in ("limit", "order_by"):
        if key in raw:
            body[key] = raw[key]
    return body
