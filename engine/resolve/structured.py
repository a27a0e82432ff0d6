"""Structured filters: `{"member", "operator", "values"}` and `and`/`or` groups, as sqlglot trees.

A front end should never build or quote SQL text to filter. A structured filter is turned into
the same kind of checked filter tree a SQL-string filter parses to (engine/smq/filters.py): values
become sqlglot literals, so no value is ever spliced into SQL text. Relative date ranges
("last 7 days", "this month") are built on CURRENT_DATE, so the SQL stays the same from day to
day and the engine resolves the dates when the query runs.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ..errors import Location, QueryError, nearest
from ..trees import fresh

OPERATORS = (
    "equals", "notEquals", "contains", "notContains", "startsWith", "notStartsWith", "endsWith", "notEndsWith",
    "gt", "gte", "lt", "lte", "set", "notSet",
    "inDateRange", "notInDateRange", "beforeDate", "beforeOrOnDate", "afterDate", "afterOrOnDate",
)
DATE_OPERATORS = ("inDateRange", "notInDateRange", "beforeDate", "beforeOrOnDate", "afterDate", "afterOrOnDate")
UNITS = ("day", "week", "month", "quarter", "year")
_LIKE_ESCAPE = "!"


@dataclass(frozen=True, slots=True)
class StructuredFilter:
    """One entry of `filters` written as JSON; `spec` is its canonical JSON text (hashable, a cache key)."""

    spec: str

    @property
    def data(self) -> Any:
        return json.loads(self.spec)


def _err(message: str, field: str, code: str = "invalid_filter", suggestions: tuple[str, ...] = ()) -> QueryError:
    return QueryError(message, code=code, location=Location(field=field), suggestions=suggestions)


def check_shape(raw: Any, field: str) -> StructuredFilter:
    """Shape checks at SMQ parse time (no layer needed): keys, operator names, value lists."""
    _shape(raw, field)
    return StructuredFilter(json.dumps(raw, sort_keys=True, separators=(",", ":")))


def _shape(raw: Any, field: str) -> None:
    if not isinstance(raw, dict):
        raise _err(f"a filter is a SQL string or an object, got {type(raw).__name__}", field, "invalid_smq")
    groups = [k for k in ("and", "or") if k in raw]
    if groups:
        key = groups[0]
        if len(raw) != 1:
            raise _err(f"a group filter has exactly one key ('and' or 'or'), got {', '.join(sorted(raw))}", field, "invalid_smq")
        items = raw[key]
        if not isinstance(items, list) or not items:
            raise _err(f"'{key}' must be a non-empty list of filters", f"{field}.{key}", "invalid_smq")
        for i, item in enumerate(items):
            if isinstance(item, str):
                raise _err("inside 'and'/'or' every filter is an object (write SQL-string filters at the top level)",
                           f"{field}.{key}[{i}]", "invalid_smq")
            _shape(item, f"{field}.{key}[{i}]")
        return
    allowed = ("member", "operator", "values")
    for key in raw:
        if key not in allowed:
            raise _err(f"unknown filter key '{key}' (allowed: member, operator, values; or one of and, or)",
                       f"{field}.{key}", "unknown_key", tuple(nearest(str(key), (*allowed, "and", "or"), 1)))
    member, operator = raw.get("member"), raw.get("operator")
    if not isinstance(member, str) or not member.strip():
        raise _err("a filter needs 'member', the element name to filter on", f"{field}.member", "invalid_smq")
    if operator not in OPERATORS:
        raise _err(f"unknown operator {operator!r} (allowed: {', '.join(OPERATORS)})", f"{field}.operator", "invalid_filter",
                   tuple(nearest(str(operator), OPERATORS, 1)))
    values = raw.get("values", [])
    if not isinstance(values, list) or any(isinstance(v, (dict, list, bool)) or v is None for v in values):
        raise _err("'values' must be a list of strings or numbers", f"{field}.values", "invalid_smq")
    if operator in ("set", "notSet"):
        if values:
            raise _err(f"operator '{operator}' takes no values", f"{field}.values", "invalid_filter")
    elif not values:
        raise _err(f"operator '{operator}' needs at least one value in 'values'", f"{field}.values", "invalid_filter")
    elif operator in ("gt", "gte", "lt", "lte", "beforeDate", "beforeOrOnDate", "afterDate", "afterOrOnDate") and len(values) != 1:
        raise _err(f"operator '{operator}' takes exactly one value, got {len(values)}", f"{field}.values", "invalid_filter")
    elif operator in ("inDateRange", "notInDateRange") and len(values) > 2:
        raise _err(f"operator '{operator}' takes a range: one text such as 'last 7 days' or a [from, to] pair",
                   f"{field}.values", "invalid_filter")


# -- building the tree -----------------------------------------------------------------------

def member_node(name: str) -> exp.Expression:
    """An element name as the Column node a parsed filter would hold (dots separate path keys)."""
    parts = [exp.to_identifier(p) for p in name.strip().split(".")]
    if len(parts) == 1:
        return exp.Column(this=parts[0])
    node: exp.Expression = exp.Column(this=parts[1], table=parts[0])
    for p in parts[2:]:
        node = exp.Dot(this=node, expression=p)
    return node


def _today() -> exp.Expression:
    return exp.CurrentDate()


def _start_of(unit: str) -> exp.Expression:
    """The first day of the current unit (rendered per engine by the dialect's truncate, engine/dialects)."""
    return _today() if unit == "day" else exp.DateTrunc(this=_today(), unit=exp.Literal.string(unit))


def _shift(value: exp.Expression, count: int, unit: str) -> exp.Expression:
    """value +/- count units, in the `date ± INTERVAL 'n' unit` shape the renderer turns into engine SQL."""
    if count == 0:
        return value
    interval = exp.Interval(this=exp.Literal.string(str(abs(count))), unit=exp.var(unit.upper()))
    return exp.Add(this=value, expression=interval) if count > 0 else exp.Sub(this=value, expression=interval)


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$")
_MAX_UNITS = {"day": 3_652_425, "week": 521_775, "month": 120_000, "quarter": 40_000, "year": 10_000}
_MAX_DIGITS = 38  # DECIMAL(38): the widest exact number every engine reads; a longer literal overflows there
_RELATIVE = re.compile(r"^(this|last|next)\s+(?:(\d+)\s+)?(day|week|month|quarter|year)s?$")


def date_bounds(text: str, field: str) -> tuple[exp.Expression, exp.Expression]:
    """[start, end) of a date range written as text: a date, a relative form, or 'from X to Y'."""
    raw = str(text).strip()
    low = raw.lower()
    m = re.match(r"^from\s+(.+?)\s+to\s+(.+)$", low)
    if m:
        return date_bounds(m.group(1), field)[0], date_bounds(m.group(2), field)[1]
    if low == "today":
        return _today(), _shift(_today(), 1, "day")
    if low == "yesterday":
        return _shift(_today(), -1, "day"), _today()
    if low == "tomorrow":
        return _shift(_today(), 1, "day"), _shift(_today(), 2, "day")
    m = _RELATIVE.match(low)
    if m:
        which, count_text, unit = m.group(1), m.group(2), m.group(3)
        count = int(count_text) if count_text else 1
        if which == "this":
            if count_text:
                raise _err(f"'{raw}': write 'this {unit}' without a number", field, "invalid_filter")
            return _start_of(unit), _shift(_start_of(unit), 1, unit)
        if count < 1:
            raise _err(f"'{raw}': the number of {unit}s must be at least 1", field, "invalid_filter")
        if count > _MAX_UNITS[unit]:  # past the calendar of every engine: it would fail there with an overflow
            raise _err(f"'{raw}': at most {_MAX_UNITS[unit]:,} {unit}s (10,000 years) fit in a date range",
                       field, "invalid_filter")
        if which == "last":  # the `count` whole units before the current one
            return _shift(_start_of(unit), -count, unit), _start_of(unit)
        return _shift(_start_of(unit), 1, unit), _shift(_start_of(unit), count + 1, unit)
    if _DATE.match(raw):
        day = _parse_date(raw, field)
        if day == dt.date.max:  # the range ends the day after, which no calendar has
            raise _err(f"'{raw}' is the last day of the calendar: a range cannot end after it; "
                       f"use {dt.date.max - dt.timedelta(days=1)} or an afterOrOnDate filter", field, "invalid_filter")
        return exp.Literal.string(raw), exp.Literal.string((day + dt.timedelta(days=1)).isoformat())
    if _DATETIME.match(raw):
        _parse_date(raw[:10], field)
        moment = raw.replace("T", " ")
        return exp.Literal.string(moment), exp.Literal.string(moment)
    raise _err(f"'{raw}' is not a date or date range; write 'YYYY-MM-DD', 'today', 'yesterday', 'this month', "
               f"'last 7 days', 'last month' or 'from 2024-01-01 to 2024-03-31'", field, "invalid_filter")


def _parse_date(text: str, field: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise _err(f"'{text}' is not a valid date (YYYY-MM-DD)", field, "invalid_filter") from None


def _range(values: list[Any], field: str) -> tuple[exp.Expression, exp.Expression, bool]:
    """[start, end) of a range value; the flag says whether `end` is inclusive (an exact timestamp)."""
    if len(values) == 1:
        start, end = date_bounds(values[0], f"{field}.values[0]")
        return start, end, _exact(values[0])
    start = date_bounds(values[0], f"{field}.values[0]")[0]
    end = date_bounds(values[1], f"{field}.values[1]")[1]
    return start, end, _exact(values[1])


def _exact(value: Any) -> bool:
    return bool(_DATETIME.match(str(value).strip()))


def _like(node: exp.Expression, value: str, operator: str) -> exp.Expression:
    """Case-insensitive LIKE with % and _ in the value matched literally."""
    escaped = "".join(_LIKE_ESCAPE + c if c in "%_" + _LIKE_ESCAPE else c for c in value.lower())
    pattern = {"contains": f"%{escaped}%", "startsWith": f"{escaped}%", "endsWith": f"%{escaped}"}[operator]
    like = exp.Like(this=exp.Lower(this=node), expression=exp.Literal.string(pattern))
    return exp.Escape(this=like, expression=exp.Literal.string(_LIKE_ESCAPE))


def _literal(value: Any, kind: str, field: str) -> exp.Expression:
    """A value as the literal its member compares with: values are data, so a JSON number for a text member is the
    text it spells, "true" for a boolean member is TRUE; what cannot be one is refused here, at its field."""
    if kind == "number" or (kind == "any" and isinstance(value, (int, float))):
        if isinstance(value, (int, float)):
            _check_number(value, repr(value), field)
            return exp.Literal.number(value)
        try:
            number = float(value)
        except ValueError:
            raise _err(f"{value!r} is not a number (the member is numeric)", field, "invalid_filter") from None
        _check_number(number, value.strip(), field)
        return exp.Literal.number(value.strip())
    if kind == "boolean":
        text = str(value).strip().lower()
        if text in ("true", "1", "false", "0"):
            return exp.Boolean(this=text in ("true", "1"))
        raise _err(f"{value!r} is not a boolean (the member is true or false): write \"true\" or \"false\"", field, "invalid_filter")
    return exp.Literal.string(value if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value))


def _check_number(value: float | int, text: str, field: str) -> None:
    """A number every engine can read: finite (no NaN, Infinity, 1e999) and an integer of at most 38 digits."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _err(f"{text} is not a finite number; write a number between -1.7e308 and 1.7e308", field, "invalid_filter")
    digits = text.lstrip("+-").split(".")[0].split("e")[0].split("E")[0]
    if isinstance(value, int) and len(str(abs(value))) > _MAX_DIGITS or len(digits) > _MAX_DIGITS:
        raise _err(f"{text[:20]}... has more than {_MAX_DIGITS} digits, more than databases hold exactly; "
                   "write it in scientific notation (1e40) or use a smaller number", field, "invalid_filter")


def _any(nodes: list[exp.Expression]) -> exp.Expression:
    out = nodes[0]
    for n in nodes[1:]:
        out = exp.Or(this=out, expression=n)
    return exp.Paren(this=out) if len(nodes) > 1 else out


def build(raw: dict[str, Any], field: str, kind_of: Any) -> exp.Expression:
    """The filter tree for one structured filter. `kind_of(name, field)` -> "time", "number", "boolean", "other"
    (text) or "any" (a member without a declared type: an entity's key)."""
    for key in ("and", "or"):
        if key in raw:
            parts = [build(item, f"{field}.{key}[{i}]", kind_of) for i, item in enumerate(raw[key])]
            out = parts[0]
            for p in parts[1:]:
                out = (exp.And if key == "and" else exp.Or)(this=out, expression=p)
            return exp.Paren(this=out)
    name, operator, values = raw["member"].strip(), raw["operator"], list(raw.get("values", []))
    kind = kind_of(name, f"{field}.member")
    node = member_node(name)
    if operator in DATE_OPERATORS and kind != "time":
        raise _err(f"operator '{operator}' needs a time dimension; '{name}' is not one", f"{field}.operator", "invalid_filter")
    if operator == "set":
        return exp.Not(this=exp.Is(this=node, expression=exp.Null()))
    if operator == "notSet":
        return exp.Is(this=node, expression=exp.Null())
    if operator in ("equals", "notEquals"):
        literals = [_literal(v, kind, f"{field}.values[{i}]") for i, v in enumerate(values)]
        test: exp.Expression = (exp.EQ(this=node, expression=literals[0]) if len(literals) == 1
                                else exp.In(this=node, expressions=literals))
        if operator == "equals":
            return test
        return exp.Paren(this=exp.Or(this=exp.Not(this=test), expression=exp.Is(this=fresh(node), expression=exp.Null())))
    if operator in ("contains", "startsWith", "endsWith", "notContains", "notStartsWith", "notEndsWith"):
        positive = operator if not operator.startswith("not") else operator[3].lower() + operator[4:]
        like = _any([_like(fresh(node), str(v), positive) for v in values])
        if not operator.startswith("not"):
            return like
        return exp.Paren(this=exp.Or(this=exp.Not(this=like), expression=exp.Is(this=fresh(node), expression=exp.Null())))
    if operator in ("gt", "gte", "lt", "lte"):
        bound = _literal(values[0], kind, f"{field}.values[0]")
        if operator == "gt":
            return exp.GT(this=node, expression=bound)
        if operator == "gte":
            return exp.GTE(this=node, expression=bound)
        return exp.LT(this=node, expression=bound) if operator == "lt" else exp.LTE(this=node, expression=bound)
    start, end, inclusive = _range(values, field)
    upper = (exp.LTE if inclusive else exp.LT)(this=fresh(node), expression=end)
    if operator == "beforeDate":
        return exp.LT(this=node, expression=start)
    if operator == "beforeOrOnDate":
        return upper
    if operator == "afterDate":
        return (exp.GT if inclusive else exp.GTE)(this=node, expression=end)
    if operator == "afterOrOnDate":
        return exp.GTE(this=node, expression=start)
    within = exp.And(this=exp.GTE(this=node, expression=start), expression=upper)
    if operator == "inDateRange":
        return exp.Paren(this=within)
    return exp.Paren(this=exp.Or(this=exp.Not(this=exp.Paren(this=within)), expression=exp.Is(this=fresh(node), expression=exp.Null())))
