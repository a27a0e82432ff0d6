"""The JSON schema of one SMQ filter: an SQL string, or a structured filter (`engine.resolve.structured`).

One definition for every place that declares filters to a client: the OpenAPI document of the REST
service (`service/routes/smq_schema.py`) and the tool schemas the agent and MCP offer models
(`agent/tool_registry.py`). Structured filters nest freely; the schema spells out two levels of
`and`/`or` and leaves deeper ones open (a recursive `$ref` is not something every model provider takes).
"""

from __future__ import annotations

from typing import Any

from .structured import OPERATORS

CONDITION: dict[str, Any] = {
    "type": "object", "title": "FilterCondition", "additionalProperties": False, "required": ["member", "operator"],
    "description": "a structured filter: an element name, an operator and its values (literals, never SQL)",
    "properties": {
        "member": {"type": "string", "minLength": 1, "description": "an element name, e.g. OrdersModel__status",
                   "examples": ["OrdersModel__status"]},
        "operator": {"type": "string", "enum": list(OPERATORS)},
        "values": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                   "description": "literals; date ranges also as text: 'last 7 days', 'this month', 'from 2024-01-01 to 2024-03-31'"},
    },
}


def group(items: dict[str, Any]) -> dict[str, Any]:
    """`{"and": [...]}` or `{"or": [...]}` over `items`."""
    return {"anyOf": [
        {"type": "object", "title": "FilterAnd", "additionalProperties": False, "required": ["and"],
         "properties": {"and": {"type": "array", "minItems": 1, "items": items}}},
        {"type": "object", "title": "FilterOr", "additionalProperties": False, "required": ["or"],
         "properties": {"or": {"type": "array", "minItems": 1, "items": items}}},
    ]}


INNER: dict[str, Any] = {"anyOf": [CONDITION, group({"type": "object", "description": "a condition or a further group"})]}
FILTER: dict[str, Any] = {"anyOf": [{"type": "string", "minLength": 1}, CONDITION, group(INNER)]}
