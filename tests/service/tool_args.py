"""Tool arguments made from a tool's JSON schema alone (pydantic-ai's TestModel idea).

`example_arguments(schema, values)` builds an object that is valid for the schema: its required properties (and,
with `optional`, the others), each value the test's value for that property name when that value fits the
property's declared schema, else one built from the schema (`enum`, `minItems`, `minimum`, ...). A test's value
that does not fit the declaration is not used: the call then gets a built value, and fails if the handler needed
a real one — which is what a schema that disagrees with its handler looks like. `arguments(schema)` is a
hypothesis strategy of random schema-valid objects for the same schemas (the subset of JSON Schema tool
declarations use: objects, arrays, strings, integers, numbers, booleans, enums, min/max constraints).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema
from hypothesis import strategies as st


def fits(value: Any, schema: Mapping[str, Any]) -> bool:
    return jsonschema.Draft202012Validator(dict(schema)).is_valid(value)


def example_arguments(schema: Mapping[str, Any], values: Mapping[str, Any], *, optional: bool = True) -> dict[str, Any]:
    args = _object(schema, values, optional)
    jsonschema.validate(args, dict(schema))  # never call a tool with arguments its own schema refuses
    return args


def _object(schema: Mapping[str, Any], values: Mapping[str, Any], optional: bool) -> dict[str, Any]:
    required = set(schema.get("required", []))
    return {name: _value(name, prop, values, optional) for name, prop in schema.get("properties", {}).items()
            if optional or name in required}


def _value(name: str, schema: Mapping[str, Any], values: Mapping[str, Any], optional: bool) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    if name in values and fits(values[name], schema):
        return values[name]
    kind = schema.get("type")
    if kind == "object":
        return _object(schema, values, optional)
    if kind == "array":
        return [_value(name, schema.get("items", {}), {}, optional)] * max(schema.get("minItems", 0), 1)
    if kind == "integer":
        return max(schema.get("minimum", 1), 1)
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return True
    return "x" * max(schema.get("minLength", 1), 1)


def arguments(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Random values valid for `schema` (optional properties sometimes present, sometimes not)."""
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries({k: arguments(v) for k, v in props.items() if k in required},
                                     optional={k: arguments(v) for k, v in props.items() if k not in required})
    if kind == "array":
        return st.lists(arguments(schema.get("items", {})), min_size=schema.get("minItems", 0),
                        max_size=max(schema.get("maxItems", 4), schema.get("minItems", 0)))
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))
    if kind == "number":
        return st.floats(min_value=schema.get("minimum"), max_value=schema.get("maximum"), allow_nan=False,
                         allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "string":
        return st.text(min_size=schema.get("minLength", 0), max_size=schema.get("maxLength", 40))
    return st.none() | st.booleans() | st.integers() | st.text(max_size=10)
