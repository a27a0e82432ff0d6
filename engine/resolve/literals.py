"""Typing a filter's literals against the elements they are compared with.

A text filter reaches the engine as the user wrote it: `OrdersModel__status = 0` compares a string dimension with a
number, which MariaDB answers with every row (it compares as numbers), SQLite with none and PostgreSQL with an error;
`OrdersModel__orderId = 'abc'` makes DuckDB fail with its own Conversion Error. So every literal compared with an
element is checked against the element's type here, once, before any engine sees it, and the same filter gives the
same rows or the same error everywhere:

- a string element takes a string (`'0'`); a number or a boolean there is refused, showing the quoted value;
- a number element (a measure or metric too, and a date part) takes a number; a quoted number (`'42'`) is typed as the
  number it spells, anything else is refused;
- a boolean element takes TRUE or FALSE;
- a date element (a time dimension at a grain too) takes a quoted date that is a real day (`'2024-02-30'` is not);
  a timestamp element (and metric_time) takes a quoted date, or date and time;
- LIKE and ILIKE need a string element and a quoted pattern.

Only a literal compared directly with an element is typed: `CAST(x AS INT) = 0` and `x > y + 1` are the writer's own
expressions. Structured filters build their literals from the element's type already (structured.py) and pass the
same check, so both paths follow one rule. An entity's key read as a dimension (MetricFlow's `listing`) has no
declared type and is not checked.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping

from sqlglot import exp

from ..errors import Location, QueryError
from ..layer.model import TIME_GRAINS, Metric, SemanticLayer, column_name, grained_type
from .metric_filters import MetricFilterRef
from .names import Element, MeasureRef

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?\Z")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\Z")
_KINDS = {"date": "a date dimension", "timestamp": "a timestamp dimension", "time": "a time (metric_time)",
          "number": "a number", "boolean": "a boolean dimension", "string": "a string dimension"}


def value_type(ref: Element | MetricFilterRef, layer: SemanticLayer) -> str | None:
    """The type a literal compared with this element must have: string, number, boolean, date, timestamp or time
    (a date or a timestamp: metric_time); None when it has no declared type (an entity's key)."""
    if isinstance(ref, (MeasureRef, Metric, MetricFilterRef)):
        return "number"
    if ref.date_part:
        return "number"
    if ref.axis:
        return "time"
    model = layer.models.get(ref.dimension.model)
    if model is None or model.dimensions.get(ref.dimension.name) is not ref.dimension:
        return None  # an entity's key (MetricFlow's names): no declared type
    if ref.grain and ref.grain not in TIME_GRAINS:
        return None  # a custom granularity: the spine column's values, of no declared type
    return grained_type(ref.grain) if ref.grain else ref.dimension.type


def type_literals(node: exp.Expression, refs: Mapping[str, Element | MetricFilterRef], layer: SemanticLayer, text: str,
                  field: str) -> exp.Expression:
    """The filter tree (changed in place) with every literal compared with an element checked, and a quoted number
    for a number element typed as the number; else a QueryError naming the field, the element, its type and how to
    write the value."""
    checker = _Checker({name: value_type(ref, layer) for name, ref in refs.items()}, text, field)
    for found in list(node.walk()):
        if isinstance(found, exp.Expression):
            checker.visit(found)
    return node


class _Checker:
    def __init__(self, types: Mapping[str, str | None], text: str, field: str) -> None:
        self.types = types
        self.text = text
        self.field = field

    def element(self, node: exp.Expression | None) -> tuple[str, str] | None:
        """(the name as written, its type) when `node` is an element whose values are checked."""
        if not isinstance(node, (exp.Column, exp.Dot)):
            return None
        name = column_name(node)
        kind = self.types.get(name)
        return (name, kind) if kind else None

    def visit(self, node: exp.Expression) -> None:
        if isinstance(node, _COMPARISONS):
            for side, other in (("this", "expression"), ("expression", "this")):
                found = self.element(node.args.get(side))
                if found is not None:
                    node.set(other, self.literal(node.args.get(other), *found))
        elif isinstance(node, exp.In):
            found = self.element(node.this)
            if found is not None:
                node.set("expressions", [self.literal(v, *found) for v in node.expressions])
        elif isinstance(node, exp.Between):
            found = self.element(node.this)
            if found is not None:
                for key in ("low", "high"):
                    node.set(key, self.literal(node.args.get(key), *found))
        elif isinstance(node, (exp.Like, exp.ILike)):
            found = self.element(node.this)
            if found is not None:
                name, kind = found
                if kind != "string":
                    raise self.error(f"{'ILIKE' if isinstance(node, exp.ILike) else 'LIKE'} compares text, and {name} is "
                                     f"{_KINDS[kind]}; compare it with = or a range instead")
                pattern = node.expression
                if _is_literal(pattern) and not (isinstance(pattern, exp.Literal) and pattern.is_string):
                    raise self.error(f"the pattern of LIKE is text: write it quoted, e.g. {name} LIKE '%abc%'")

    def literal(self, value: exp.Expression | None, name: str, kind: str) -> exp.Expression | None:
        """`value` checked against the element's type (a quoted number for a number element: the number)."""
        if value is None or not _is_literal(value) or isinstance(value, exp.Null):
            return value
        shown = value.sql()
        quoted = isinstance(value, exp.Literal) and value.is_string
        if kind == "string":
            if quoted:
                return value
            raise self.error(f"{name} is a string dimension, and {shown} is not text; write the value quoted: "
                             f"{name} = '{_bare(value)}'")
        if kind == "number":
            number = _number_text(value)
            if number is None:
                raise self.error(f"{name} is a number, and {shown} is not one; write a number: {name} = 42")
            if not math.isfinite(float(number)):
                raise self.error(f"{shown} is not a finite number; {name} is compared with numbers")
            return _number_literal(number) if quoted else value  # '42' -> 42: the same comparison on every engine
        if kind == "boolean":
            if isinstance(value, exp.Boolean):
                return value
            raise self.error(f"{name} is a boolean dimension, and {shown} is not TRUE or FALSE; write {name} = TRUE "
                             f"(or {name} alone, or NOT {name})")
        example = "'2024-01-31'" if kind == "date" else "'2024-01-31' or '2024-01-31 14:30:00'"
        if not quoted:
            raise self.error(f"{name} is {_KINDS[kind]}, and {shown} is not a date; write it quoted: {name} >= {example}")
        problem = _date_problem(str(value.this), kind)
        if problem:
            raise self.error(f"{name} is {_KINDS[kind]}, and {shown} {problem}; write {example}")
        return value

    def error(self, message: str) -> QueryError:
        return QueryError(f"filter '{self.text}': {message}", code="invalid_literal", location=Location(field=self.field))


def _is_literal(node: exp.Expression) -> bool:
    if isinstance(node, exp.Neg):
        return isinstance(node.this, exp.Literal) and not node.this.is_string
    return isinstance(node, (exp.Literal, exp.Boolean, exp.Null))


def _bare(value: exp.Expression) -> str:
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    return value.sql().strip("'")


def _number_text(value: exp.Expression) -> str | None:
    if isinstance(value, exp.Neg):
        inner = _number_text(value.this)
        return None if inner is None else "-" + inner
    if isinstance(value, exp.Literal):
        text = str(value.this).strip()
        return text if _NUMBER.match(text) else None
    return None


def _number_literal(text: str) -> exp.Expression:
    if text.startswith("-"):
        return exp.Neg(this=exp.Literal.number(text[1:].lstrip("+")))
    return exp.Literal.number(text.lstrip("+"))


def _date_problem(text: str, kind: str) -> str | None:
    """Why a quoted value is not a day (or moment) of this kind, or None."""
    raw = text.strip()
    moment = _DATETIME.match(raw)
    day = raw if _DATE.match(raw) else moment.group(1) if moment else None
    if day is None:
        return "is not a date"
    try:
        dt.date.fromisoformat(day)
    except ValueError:
        return "is not a real day"
    if moment:
        if kind == "date":
            return "has a time of day, and a date dimension holds days"
        hour, minute, second = int(moment.group(2)), int(moment.group(3)), int(moment.group(4) or 0)
        if hour > 23 or minute > 59 or second > 59:
            return "is not a real time of day"
    return None
