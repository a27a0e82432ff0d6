"""Filters: SQL boolean expressions over element names, checked against an allow-list.

Only element names, literals, operators and a fixed set of scalar functions may appear;
subqueries, statements, unknown functions and raw column names are refused with the
offending piece named. Dimension filters become WHERE, measure/metric filters HAVING.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from ..errors import Location, QueryError
from ..layer.model import column_name
from .resolve import DimRef, Element, Resolver

ALLOWED_NODES: tuple[type[exp.Expression], ...] = (
    exp.Column, exp.Dot, exp.Identifier, exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.Tuple,
    exp.And, exp.Or, exp.Not, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.Is, exp.In, exp.Between, exp.Like, exp.ILike, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.Neg,
    exp.Cast, exp.TryCast, exp.DataType, exp.DataTypeParam, exp.Case, exp.If, exp.Coalesce, exp.Nullif, exp.Interval,
    exp.Var, exp.CurrentDate, exp.CurrentTimestamp, exp.Lower, exp.Upper, exp.Trim, exp.Substring, exp.Length,
    exp.Concat, exp.DPipe, exp.Abs, exp.Round, exp.Floor, exp.Ceil, exp.Extract, exp.Year, exp.Month, exp.Day,
    exp.Quarter, exp.DateTrunc, exp.TimestampTrunc, exp.DateAdd, exp.DateSub, exp.Least, exp.Greatest,
    exp.StrPosition, exp.Date, exp.Bracket,
)
ALLOWED_FUNCTIONS = sorted(
    {"ABS", "CAST", "CEIL", "COALESCE", "CONCAT", "CURRENT_DATE", "CURRENT_TIMESTAMP", "DATE", "DATE_ADD", "DATE_SUB",
     "DATE_TRUNC", "DAY", "EXTRACT", "FLOOR", "GREATEST", "IF", "LEAST", "LENGTH", "LOWER", "MONTH", "NULLIF",
     "QUARTER", "ROUND", "STRPOS", "SUBSTRING", "TRIM", "UPPER", "YEAR"}
)


@dataclass(frozen=True, slots=True)
class Filter:
    text: str
    field: str
    node: exp.Expression
    refs: tuple[tuple[str, Element], ...]  # name as written -> resolved element
    kind: str  # "where" | "having"

    def dimension_refs(self) -> list[DimRef]:
        return [e for _, e in self.refs if isinstance(e, DimRef)]


def _element_nodes(node: exp.Expression) -> list[exp.Expression]:
    """Column/Dot nodes that name elements (outermost Dot of a chain only)."""
    out = []
    for n in node.find_all(exp.Column, exp.Dot):
        if isinstance(n.parent, exp.Dot) or (isinstance(n, exp.Column) and isinstance(n.parent, exp.Dot)):
            continue
        out.append(n)
    return out


def check_allowed(node: exp.Expression, text: str, field: str, what: str = "filter") -> None:
    """Refuse anything outside the allow-list, naming it."""
    for n in node.walk():
        if isinstance(n, ALLOWED_NODES):
            if isinstance(n, exp.In) and (n.args.get("query") or n.args.get("unnest")):
                raise QueryError(f"{what} '{text}': subqueries are not allowed", code="invalid_filter", location=Location(field=field))
            continue
        if isinstance(n, (exp.Select, exp.Subquery, exp.Exists, exp.Query)):
            problem = "subqueries are not allowed"
        elif isinstance(n, exp.AggFunc):
            problem = f"aggregate {n.sql_name()} is not allowed; filter on a measure or metric instead"
        elif isinstance(n, exp.Func):
            name = n.name.upper() if isinstance(n, exp.Anonymous) else n.sql_name()
            problem = f"function {name} is not allowed (allowed: {', '.join(ALLOWED_FUNCTIONS)})"
        elif isinstance(n, exp.Star):
            problem = "'*' is not allowed"
        else:
            problem = f"{n.key.upper()} is not allowed"
        raise QueryError(f"{what} '{text}': {problem}", code="invalid_filter", location=Location(field=field))


def parse_filter(text: str, field: str, resolver: Resolver, dialect: str) -> Filter:
    try:
        statements = sqlglot.parse(text, read=dialect)
    except (ParseError, TokenError) as exc:
        first = (getattr(exc, "errors", None) or [{}])[0]
        detail = first.get("description") or str(exc).splitlines()[0]
        raise QueryError(f"filter '{text}' does not parse: {detail}", code="invalid_filter", location=Location(field=field)) from None
    statements = [s for s in statements if s is not None]
    if len(statements) != 1:
        raise QueryError(f"filter '{text}': write one boolean expression (no ';')", code="invalid_filter", location=Location(field=field))
    node = statements[0]
    check_allowed(node, text, field)
    refs: dict[str, Element] = {}
    for n in _element_nodes(node):
        name = column_name(n)
        if name not in refs:
            if "__" not in name.split(".")[-1] and name not in resolver.layer.metrics:
                err = resolver.unknown(name, field)
                raise QueryError(f"filter '{text}': '{name}' is not an element name (raw column names are not allowed)",
                                 code="unknown_element", location=Location(field=field), suggestions=err.suggestions)
            refs[name] = resolver.resolve(name, field)
    dims = [r for r in refs.values() if isinstance(r, DimRef)]
    if dims and len(dims) != len(refs):
        raise QueryError(f"filter '{text}' mixes dimensions and measures/metrics; split it into separate filters",
                         code="invalid_filter", location=Location(field=field))
    kind = "having" if refs and not dims else "where"
    return Filter(text, field, node, tuple(refs.items()), kind)


def wrap(value: exp.Expression) -> exp.Expression:
    """Parenthesise a replacement only where operator precedence could change its meaning."""
    if isinstance(value, (exp.Column, exp.Func, exp.Literal, exp.Paren, exp.Cast, exp.Null, exp.Boolean)):
        return value
    return exp.Paren(this=value)


def substitute(node: exp.Expression, replace: Callable[[str], exp.Expression]) -> exp.Expression:
    """A copy of `node` with every element reference replaced by `replace(name)`."""

    def fn(n: exp.Expression) -> exp.Expression:
        if isinstance(n, (exp.Column, exp.Dot)) and not isinstance(n.parent, exp.Dot):
            return replace(column_name(n)).copy()
        return n

    return node.copy().transform(fn, copy=False)
