"""The SMQ as a JSON schema for the OpenAPI document (what `/query` and `/compile` take as `smq`).

Only the document changes: the service still reads `smq` as any object and the engine checks it, so
a bad SMQ keeps its precise 400 (`unknown_element` with the nearest name...) instead of a schema 422.
The schema accepts what the parser accepts (a name alone for a list of one, null for absent), so a
client generated from it never sends what the service refuses for its shape. Structured filters nest
freely; the schema spells out two levels of `and`/`or` and leaves deeper ones open.
"""

from __future__ import annotations

from typing import Any

from engine.resolve.filter_schema import FILTER

DEFAULT_MAX_LIMIT = 1_000_000_000  # SMQ_MAX_LIMIT's default (service.settings); a 10^20 LIMIT overflows engines

# as the parser reads them: a list of names, one name alone, or null (absent)
_NAMES = {"anyOf": [{"type": "array", "items": {"type": "string", "minLength": 1}}, {"type": "string", "minLength": 1},
                    {"type": "null"}]}

_FILTER = FILTER  # a filter: SQL text or structured, as engine/smq/filter_schema.py declares it

SMQ_SCHEMA: dict[str, Any] = {
    "type": "object", "title": "SMQ", "additionalProperties": False,
    "description": "a semantic query: what to compute (metrics), by what (group_by), for which rows (filters), "
                   "in which order and how many. At least one of metrics and group_by. See docs/smq.md.",
    "properties": {
        "metrics": {**_NAMES, "description": "measures (Model__measure) and metrics (by name)",
                    "examples": [["OrdersModel__orderCount", "unpaidRevenue"]]},
        "group_by": {**_NAMES, "description": "dimensions, optionally with a grain (Model__date__month) or a join path",
                     "examples": [["OrdersModel__status", "OrdersModel__orderDate__month"]]},
        "filters": {"anyOf": [{"type": "array", "items": _FILTER}, *_FILTER["anyOf"], {"type": "null"}],
                    "description": "SQL-string conditions over element names, or structured filters (one alone is a list of one)",
                    "examples": [["OrdersModel__orderDate >= '2024-01-01'",
                                  {"member": "OrdersModel__channel", "operator": "equals", "values": ["web"]}]]},
        "order_by": {**_NAMES, "description": "output columns; a leading '-' sorts descending",
                     "examples": [["-OrdersModel__orderCount"]]},
        "limit": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": DEFAULT_MAX_LIMIT}, {"type": "null"}],
                  "description": "at most this many rows; the service refuses more than SMQ_MAX_LIMIT "
                                 f"(default {DEFAULT_MAX_LIMIT:,}) with 422 limit_too_large"},
        "saved_query": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}],
                        "description": "the name of a saved query of the database (saved_queries.yml); with it only "
                                       "limit and order_by (replacing the saved ones) and filters (added) may be given",
                        "examples": ["order_metrics"]},
    },
}
