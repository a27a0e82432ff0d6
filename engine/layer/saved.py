"""A layer's saved queries (`saved_queries.yml` beside database.yml): named SMQs, run by name.

MetricFlow's saved_queries, as `smq import dbt` writes them, and the same file in a layer written by hand:

    saved_queries:
      - name: order_metrics
        description: Orders by day
        label: Order metrics
        query: {metrics: [orders], group_by: [metric_time__day], filters: [...], order_by: [...], limit: 10}

Read here for their shape only; the query itself is checked as any SMQ is, when the layer is loaded
(engine/resolve/saved.py expands a `{"saved_query": NAME}` body into that SMQ before anything else).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import Location
from .reader import BaseReader
from .yamlpos import YMap, where

SAVED_QUERIES_FILE = "saved_queries.yml"
SAVED_QUERY_KEYS = ("name", "description", "label", "query")
QUERY_KEYS = ("metrics", "group_by", "filters", "order_by", "limit")


@dataclass(frozen=True, slots=True)
class SavedQuery:
    name: str
    description: str
    label: str
    query: Mapping[str, Any]  # a plain SMQ body (MetricFlow's names or the layer's)
    location: Location


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def read_saved_queries(reader: BaseReader, directory: Path) -> dict[str, SavedQuery]:
    """`saved_queries.yml` of a layer folder (none: no saved queries); problems go to the reader's errors."""
    path = directory / SAVED_QUERIES_FILE
    if not path.exists():
        return {}
    raw, file = reader.read(path)
    node = reader.mapping(raw, file, "") if raw is not None else None
    if node is None:
        return {}
    reader.known_keys(node, ("saved_queries",), file, "")
    out: dict[str, SavedQuery] = {}
    for i, item, seq in reader.items(node, "saved_queries", file, ""):
        field = f"saved_queries[{i}]"
        body = reader.mapping(item, file, field, seq, i)
        if body is None:
            continue
        reader.known_keys(body, SAVED_QUERY_KEYS, file, field)
        name = reader.name(body, file, field, "saved query")
        if name is None:
            continue
        loc = where(file, seq, i, field=field)
        if name in out:
            reader.errors.add(f"{field}: saved query '{name}' is defined twice (first at line {out[name].location.line})", loc,
                              code="duplicate_name")
            continue
        query = body.get("query")
        if not isinstance(query, YMap):
            reader.errors.add(f"{field}.query: expected a mapping (metrics, group_by, filters, order_by, limit)",
                              where(file, body, "query", field=f"{field}.query"), code="invalid_shape")
            continue
        reader.known_keys(query, QUERY_KEYS, file, f"{field}.query")
        out[name] = SavedQuery(name, reader.text(body, "description", file, field), reader.text(body, "label", file, field),
                               _plain(query), loc)
    return out
