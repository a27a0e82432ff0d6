"""Values in a client's SQL: literals, `$n` parameters and the few constant forms BI tools write.

A value is read out of the tree (never its text spliced anywhere) as a Python str, int, float or bool,
so a filter holds it as a literal typed against the element it is compared with.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

from sqlglot import exp

from .errors import INVALID_TEXT_REPRESENTATION, UNDEFINED_PARAMETER, SqlApiError

Value = str | int | float | bool
NOT_A_VALUE = object()

# a `$n` parameter: its number -> its value, typed by the listener from the Bind message (text as str)
Parameters = Mapping[int, Any]
# called with (parameter number, the pg type it is compared with) while describing a statement
ParameterSink = Callable[[int, str], None]

_PG_FORMAT = {"YYYY": "%Y", "MM": "%m", "DD": "%d", "HH24": "%H", "HH": "%I", "MI": "%M", "SS": "%S", "US": "%f", "MS": "%f"}


def parameter_number(node: exp.Expression) -> int | None:
    """The n of a `$n` node (sqlglot reads it as Parameter or Placeholder), else None."""
    if isinstance(node, exp.Parameter):
        inner = node.this
        text = inner.name if isinstance(inner, (exp.Literal, exp.Var, exp.Identifier)) else str(inner)
        return int(text) if str(text).isdigit() else None
    if isinstance(node, exp.Placeholder) and str(node.name).lstrip("$").isdigit():
        return int(str(node.name).lstrip("$"))
    return None


def value_of(node: exp.Expression, params: Parameters | None, pg_type: str = "text",
             sink: ParameterSink | None = None) -> Any:
    """The constant `node` stands for, or NOT_A_VALUE when it is not a constant (a column, CURRENT_DATE ...).

    Recognised: literals, `$n`, `-1`, `'x'::type` / `CAST`, `DATE '...'` / `TIMESTAMP '...'`, TRUE/FALSE, and
    `TO_TIMESTAMP('2024-01-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.US')` / `TO_DATE` (Superset's time filters).
    """
    if isinstance(node, exp.Paren):
        return value_of(node.this, params, pg_type, sink)
    number = parameter_number(node)
    if number is not None:
        if sink is not None:
            sink(number, pg_type)
            return _placeholder_value(pg_type)
        if params is None or number not in params:
            have = f"{len(params)} were bound" if params else "none were bound"
            raise SqlApiError(f"there is no parameter ${number} ({have})", UNDEFINED_PARAMETER)
        value = params[number]
        if value is None:
            raise SqlApiError(f"parameter ${number} is NULL; compare with IS NULL instead", INVALID_TEXT_REPRESENTATION)
        return value
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        try:
            return int(text)
        except ValueError:
            return float(text)
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Neg):
        inner = value_of(node.this, params, pg_type, sink)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
        return NOT_A_VALUE
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return value_of(node.this, params, pg_type, sink)
    if isinstance(node, (exp.StrToTime, exp.StrToDate)) or (
            isinstance(node, exp.Anonymous) and node.name.lower() in ("to_timestamp", "to_date")):
        return _formatted_time(node, params, sink)
    return NOT_A_VALUE


def _placeholder_value(pg_type: str) -> Value:
    values: dict[str, Value] = {"numeric": 0, "int8": 0, "float8": 0.0, "bool": True, "date": "2000-01-01",
              "timestamp": "2000-01-01 00:00:00"}
    return values.get(pg_type, "")


def _formatted_time(node: exp.Expression, params: Parameters | None, sink: ParameterSink | None) -> Any:
    args = [node.this, node.args.get("format")] if not isinstance(node, exp.Anonymous) else list(node.expressions)
    if not args or args[0] is None:
        return NOT_A_VALUE
    text = value_of(args[0], params, "timestamp", sink)
    if not isinstance(text, str):
        return NOT_A_VALUE
    fmt = args[1] if len(args) > 1 else None
    pattern = value_of(fmt, params) if isinstance(fmt, exp.Expression) else None
    if isinstance(pattern, str) and "%" not in pattern:
        python = pattern
        for pg, py in sorted(_PG_FORMAT.items(), key=lambda kv: -len(kv[0])):
            python = python.replace(pg, py)
        try:
            moment = dt.datetime.strptime(text, python)
        except ValueError:
            raise SqlApiError(f"'{text}' does not match the format '{pattern}'", INVALID_TEXT_REPRESENTATION) from None
        return moment.strftime("%Y-%m-%d") if moment.time() == dt.time() and "H" not in pattern else \
            moment.isoformat(sep=" ")
    return text


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def typed_literal(value: Value, pg_type: str, what: str) -> exp.Expression:
    """`value` as a sqlglot literal of the element's kind; a value the element cannot hold is refused."""
    if pg_type == "bool":
        if isinstance(value, bool):
            return exp.Boolean(this=value)
        text = str(value).strip().lower()
        if text in ("t", "true", "yes", "on", "1", "y"):
            return exp.Boolean(this=True)
        if text in ("f", "false", "no", "off", "0", "n"):
            return exp.Boolean(this=False)
        raise SqlApiError(f"invalid input syntax for type boolean: '{value}' ({what} is a boolean)", INVALID_TEXT_REPRESENTATION)
    if pg_type in ("numeric", "int8", "float8"):
        if isinstance(value, bool) or not (isinstance(value, (int, float)) or _NUMBER.match(str(value).strip())):
            raise SqlApiError(f"invalid input syntax for a number: '{value}' ({what} is a number)", INVALID_TEXT_REPRESENTATION)
        return exp.Literal.number(str(value).strip())
    return exp.Literal.string(str(value))


def structured_value(value: Value, pg_type: str, what: str) -> str | int | float:
    """`value` as a structured filter's value (strings or numbers), checked against the element's type."""
    if pg_type in ("numeric", "int8", "float8"):
        literal = typed_literal(value, pg_type, what)
        text = literal.this
        try:
            return int(text)
        except ValueError:
            return float(text)
    if isinstance(value, bool):
        return "true" if value else "false"
    if pg_type in ("date", "timestamp"):
        return _time_text(str(value), what)
    return str(value)


_MOMENT = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$")


def _time_text(text: str, what: str) -> str:
    """A date or timestamp as the engine's filters take it: `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS[.f]` (UTC when
    the client sent an offset: JDBC's setDate sends `2024-01-01 +00`)."""
    raw = text.strip()
    match = _MOMENT.match(raw)
    if match is None:
        raise SqlApiError(f"invalid input syntax for a date or timestamp: '{text}' ({what} is a time dimension; "
                          "write 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS')", INVALID_TEXT_REPRESENTATION)
    day, clock, offset = match.groups()
    try:
        dt.date.fromisoformat(day)
        if clock is None:
            return day
        moment = dt.datetime.fromisoformat(f"{day} {clock}")
    except ValueError:
        raise SqlApiError(f"'{text}' is not a valid date or timestamp ({what})", INVALID_TEXT_REPRESENTATION) from None
    if offset and offset != "Z":
        sign = 1 if offset[0] == "+" else -1
        digits = offset[1:].replace(":", "")
        shift = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        moment -= sign * shift
    return moment.isoformat(sep=" ")
