"""Filters: SQL boolean expressions over element names, checked against an allow-list.

Only element names, literals, operators and a fixed set of scalar functions may appear;
subqueries, statements, unknown functions and raw column names are refused with the
offending piece named. Dimension filters become WHERE, measure/metric filters HAVING.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from ..errors import Location, QueryError
from ..layer.exprs import parse_problem, parse_statements, quoted_value_hint, without_positions
from ..layer.model import TIME_AXIS, column_name
from ..nesting import too_deep, too_deep_message
from ..trees import fresh
from .literals import type_literals, value_type
from .metric_filters import MetricFilterRef, extract
from .mf_names import expand_templates
from .names import DimRef, Element, Resolver
from .structured import StructuredFilter, build

# Only what every supported engine runs the same way once sqlglot has transpiled it: this list is
# executed on SQLite, DuckDB, PostgreSQL, MariaDB and Snowflake in tests/engine/cases.yml.
ALLOWED_NODES: tuple[type[exp.Expression], ...] = (
    exp.Column, exp.Dot, exp.Identifier, exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.Tuple,
    exp.And, exp.Or, exp.Not, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.Is, exp.In, exp.Between, exp.Like, exp.ILike, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.Neg,
    exp.Cast, exp.DataType, exp.DataTypeParam, exp.Case, exp.If, exp.Coalesce, exp.Nullif, exp.Interval, exp.Var,
    exp.CurrentDate, exp.CurrentTimestamp, exp.Lower, exp.Upper, exp.Trim, exp.Substring, exp.Length, exp.DPipe,
    exp.Abs, exp.Round,
)
ALLOWED_FUNCTIONS = sorted(
    {"ABS", "CASE", "CAST", "COALESCE", "CURRENT_DATE", "CURRENT_TIMESTAMP", "LENGTH", "LOWER", "NULLIF", "ROUND",
     "SUBSTRING", "TRIM", "UPPER"}
)
INTERVAL_UNITS = ("day", "week", "month", "quarter", "year")
# the shapes a condition can have at its top (a bare `1` or `x + 1` is not a condition)
PREDICATES: tuple[type[exp.Expression], ...] = (
    exp.And, exp.Or, exp.Not, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.Is, exp.In, exp.Between, exp.Like, exp.ILike, exp.Boolean,
)


@dataclass(frozen=True, slots=True)
class Filter:
    text: str
    field: str
    node: exp.Expression
    refs: tuple[tuple[str, Element | MetricFilterRef], ...]  # name as written -> resolved element
    kind: str  # "where" | "having"

    def dimension_refs(self) -> list[DimRef]:
        """The dimensions it reads, a metric filter's join keys included (their join paths are needed)."""
        out: list[DimRef] = []
        for _, e in self.refs:
            if isinstance(e, DimRef):
                out.append(e)
            elif isinstance(e, MetricFilterRef):
                out.extend(e.group_by)
        return out

    def metric_refs(self) -> list[MetricFilterRef]:
        return [e for _, e in self.refs if isinstance(e, MetricFilterRef)]


def _element_nodes(node: exp.Expression) -> list[exp.Expression]:
    """Column/Dot nodes that name elements (outermost Dot of a chain only)."""
    out = []
    for n in node.find_all(exp.Column, exp.Dot):
        if isinstance(n.parent, exp.Dot) or (isinstance(n, exp.Column) and isinstance(n.parent, exp.Dot)):
            continue
        out.append(n)
    return out


def interval_parts(node: exp.Interval) -> tuple[int, str] | None:
    """(count, unit) of `INTERVAL '30' DAY` / `INTERVAL 30 days` / `INTERVAL '30 days'`, or None."""
    value, unit = node.this, node.args.get("unit")
    text = value.name if isinstance(value, exp.Literal) else ""
    unit_text = unit.name if unit is not None else ""
    if not unit_text and " " in text.strip():
        text, unit_text = text.strip().split(None, 1)
    unit_text = unit_text.lower().rstrip("s")
    try:
        count = int(text)
    except ValueError:
        return None
    return (count, unit_text) if unit_text in INTERVAL_UNITS else None


def check_allowed(node: exp.Expression, text: str, field: str, what: str = "filter") -> None:
    """Refuse anything outside the allow-list, naming it."""
    for n in node.walk():
        if isinstance(n, ALLOWED_NODES):
            if isinstance(n, exp.In) and (n.args.get("query") or n.args.get("unnest")):
                raise QueryError(f"{what} '{text}': subqueries are not allowed", code="invalid_filter", location=Location(field=field))
            if isinstance(n, exp.Interval) and (not isinstance(n.parent, (exp.Add, exp.Sub)) or n.parent.expression is not n
                                                or interval_parts(n) is None):
                raise QueryError(f"{what} '{text}': INTERVAL is only allowed as `date + INTERVAL 'n' unit` or `date - INTERVAL 'n' unit` "
                                 f"with unit {', '.join(INTERVAL_UNITS)}", code="invalid_filter", location=Location(field=field))
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


def parse_filter(text: str | StructuredFilter, field: str, resolver: Resolver, dialect: str) -> Filter:
    """A SQL-string filter (parsed, allow-listed) or a structured one (built), checked the same way."""
    if isinstance(text, StructuredFilter):
        return structured_filter(text, field, resolver, dialect)
    if too_deep(text):
        raise QueryError(too_deep_message("filter"), code="too_deeply_nested", location=Location(field=field))
    source = expand_templates(text, field)  # MetricFlow's `{{ Dimension('listing__x') }}` -> listing__x
    try:
        statements = parse_statements(source, dialect)
    except (ParseError, TokenError) as exc:
        detail, _col = parse_problem(exc)
        raise QueryError(f"filter '{text}' does not parse: {detail}", code="invalid_filter", location=Location(field=field)) from None
    except RecursionError:
        raise QueryError(too_deep_message("filter"), code="too_deeply_nested", location=Location(field=field)) from None
    statements = [s for s in statements if s is not None]
    if len(statements) != 1:
        raise QueryError(f"filter '{text}': write one boolean expression (no ';')", code="invalid_filter", location=Location(field=field))
    node = without_positions(cast(exp.Expression, statements[0]))  # every parsed node is an Expression
    node, metric_refs = extract(node, text, field, resolver)  # METRIC(bookings, listing): a metric grouped by an entity
    check_allowed(node, text, field)
    if not isinstance(node.unnest() if isinstance(node, exp.Paren) else node, (*PREDICATES, exp.Column, exp.Dot)):
        raise QueryError(f"filter '{text}' is not a condition; write a comparison such as `Model__element = 'value'`",
                         code="invalid_filter", location=Location(field=field))
    return checked_filter(node, text, field, resolver, metric_refs)


def structured_filter(spec: StructuredFilter, field: str, resolver: Resolver, dialect: str) -> Filter:
    """A `{member, operator, values}` / `and` / `or` filter as the same checked tree a string filter gives."""

    def kind_of(name: str, at: str) -> str:
        kind = value_type(resolver.resolve(name, at), resolver.layer)  # the literal's type (resolve/literals.py)
        if kind is None:
            return "any"
        return {"date": "time", "timestamp": "time", "string": "other"}.get(kind, kind)

    node = build(spec.data, field, kind_of)
    return checked_filter(node, node.sql(dialect=dialect), field, resolver)


def checked_filter(node: exp.Expression, text: str, field: str, resolver: Resolver,
                   metric_refs: dict[str, MetricFilterRef] | None = None) -> Filter:
    """Resolve the element names of a filter tree and decide WHERE or HAVING."""
    refs: dict[str, Element | MetricFilterRef] = {}
    for n in _element_nodes(node):
        name = column_name(n)
        if metric_refs and name in metric_refs:
            refs[name] = metric_refs[name]
        elif name not in refs:
            if "__" not in name.split(".")[-1] and name not in resolver.layer.metrics and not _bare_name(name, resolver):
                hint = quoted_value_hint(n)
                if hint:  # `status = "shipped"`: a value in double quotes, which SQL reads as a name
                    raise QueryError(f"filter '{text}': {hint.removeprefix('; ')}", code="invalid_filter",
                                     location=Location(field=field))
                err = resolver.unknown(name, field)
                raise QueryError(f"filter '{text}': '{name}' is not an element name (raw column names are not allowed)",
                                 code="unknown_element", location=Location(field=field), suggestions=err.suggestions)
            refs[name] = resolver.resolve(name, field)
    core = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(core, (exp.Column, exp.Dot)):
        ref = refs.get(column_name(core))
        if not (isinstance(ref, DimRef) and ref.dimension.type == "boolean"):
            raise QueryError(f"filter '{text}' is not a condition; write a comparison such as `Model__element = 'value'`",
                             code="invalid_filter", location=Location(field=field))
    dims = [r for r in refs.values() if isinstance(r, (DimRef, MetricFilterRef))]  # a metric filter is a row filter
    if dims and len(dims) != len(refs):
        raise QueryError(f"filter '{text}' mixes dimensions and measures/metrics; split it into separate filters",
                         code="invalid_filter", location=Location(field=field))
    kind = "having" if refs and not dims else "where"
    node = type_literals(node, refs, resolver.layer, text, field)  # the same rows, or the same error, on every engine
    return Filter(text, field, node, tuple(refs.items()), kind)


def _bare_name(name: str, resolver: Resolver) -> bool:
    """`metric_time`, or an entity on a layer with entities: names without `__` that are not raw columns."""
    return name == TIME_AXIS or (resolver.has_entities() and resolver.mf.is_entity_name(name))


def wrap(value: exp.Expression) -> exp.Expression:
    """Parenthesise a replacement only where operator precedence could change its meaning."""
    if isinstance(value, (exp.Column, exp.Func, exp.Literal, exp.Paren, exp.Cast, exp.Null, exp.Boolean)):
        return value
    return exp.Paren(this=value)


def substitute(node: exp.Expression, replace: Callable[[str], exp.Expression], *, copy: bool = True) -> exp.Expression:
    """A copy of `node` with every element reference replaced by `replace(name)`; `copy=False`: `node` itself, for a
    caller whose node is its own copy already."""

    def fn(n: exp.Expression) -> exp.Expression:
        if isinstance(n, (exp.Column, exp.Dot)) and not isinstance(n.parent, exp.Dot):
            return fresh(replace(column_name(n)))
        return n

    return (fresh(node) if copy else node).transform(fn, copy=False)
