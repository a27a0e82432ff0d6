"""WHERE and HAVING -> SMQ filters.

Each top-level conjunct becomes one filter. Comparisons, IN, BETWEEN and IS [NOT] NULL of a column with
constants become structured filters (`{"member", "operator", "values"}`, `and`/`or`), their values typed
against the element, so no value is ever written into SQL text. NOT is pushed down to the comparisons
with SQL's meaning (`NOT status = 'x'` keeps no NULL status, unlike the structured `notEquals`). What
structured filters cannot say (LIKE patterns, a boolean column as a condition, `CURRENT_DATE - INTERVAL`)
becomes a filter tree over element names, printed by sqlglot, which the engine's allow-list checks like
any SMQ filter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from sqlglot import exp

from ..resolve.structured import member_node
from .errors import DATATYPE_MISMATCH, SqlApiError, unsupported
from .values import NOT_A_VALUE, Parameters, ParameterSink, structured_value, typed_literal, value_of


@dataclass(frozen=True)
class Operand:
    """A column of the query as a filter sees it: the SMQ element and the PostgreSQL type of its values."""

    element: str
    pg_type: str
    label: str  # as the client wrote it, for messages


# resolves a column-like node (a column, an alias, MEASURE(x), DATE_TRUNC(...)) to an Operand, or None
Resolve = Callable[[exp.Expression], Operand | None]

_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ, exp.NEQ: exp.NEQ}
_NEGATE = {exp.GT: exp.LTE, exp.GTE: exp.LT, exp.LT: exp.GTE, exp.LTE: exp.GT, exp.EQ: exp.NEQ, exp.NEQ: exp.EQ}
_OPERATOR = {exp.GT: "gt", exp.GTE: "gte", exp.LT: "lt", exp.LTE: "lte", exp.EQ: "equals"}


class FilterBuilder:
    """Turns one WHERE or HAVING clause into SMQ filters."""

    def __init__(self, resolve: Resolve, params: Parameters | None, sink: ParameterSink | None, dialect: str,
                 clause: str) -> None:
        self.resolve = resolve
        self.params = params
        self.sink = sink
        self.dialect = dialect
        self.clause = clause

    def filters(self, condition: exp.Expression) -> list[Any]:
        out: list[Any] = []
        for conjunct in _conjuncts(condition):
            try:
                out.append(self._structured(conjunct, negate=False))
            except _NotStructured:
                out.append(self._tree_filter(conjunct))
        return out

    # -- structured -------------------------------------------------------------------------------
    def _structured(self, node: exp.Expression, negate: bool) -> dict[str, Any]:
        if isinstance(node, exp.Paren):
            return self._structured(node.this, negate)
        if isinstance(node, exp.Not):
            return self._structured(node.this, not negate)
        if isinstance(node, (exp.And, exp.Or)):
            group = "and" if isinstance(node, exp.And) != negate else "or"
            parts = [self._structured(part, negate) for part in _flatten(node, type(node))]
            return {group: parts}
        if isinstance(node, tuple(_OPERATOR) + (exp.NEQ,)):
            return self._comparison(node, negate)
        if isinstance(node, exp.In):
            return self._in(node, negate)
        if isinstance(node, exp.Between):
            return self._between(node, negate)
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            operand = self._operand(node.this)
            if operand is None:
                raise _NotStructured
            is_null = not node.args.get("negate") != negate  # `x IS NOT NULL` is Is(negate=True)
            return {"member": operand.element, "operator": "notSet" if is_null else "set"}
        raise _NotStructured

    def _operand(self, node: exp.Expression) -> Operand | None:
        if isinstance(node, exp.Paren):
            return self._operand(node.this)
        return self.resolve(node)

    def _comparison(self, node: exp.Expression, negate: bool) -> dict[str, Any]:
        kind: Any = type(node)
        left, right = node.this, node.expression
        operand = self._operand(left)
        if operand is None:
            operand, right = self._operand(right), left
            kind = _FLIP[kind]
        if operand is None:
            raise _NotStructured
        if operand.pg_type == "bool":
            raise _NotStructured  # booleans have no structured operator: a filter tree says it exactly
        if negate:
            kind = _NEGATE[kind]
        value = value_of(right, self.params, operand.pg_type, self.sink)
        if value is NOT_A_VALUE:
            raise _NotStructured
        typed = structured_value(value, operand.pg_type, operand.label)
        if kind is exp.NEQ:
            return _not_equal(operand.element, [typed])
        return {"member": operand.element, "operator": _OPERATOR[kind], "values": [typed]}

    def _in(self, node: exp.In, negate: bool) -> dict[str, Any]:
        if node.args.get("query") is not None or node.args.get("unnest") is not None:
            raise unsupported(f"{self.clause}: IN (SELECT ...) is not supported", "list the values: IN ('a', 'b')")
        operand = self._operand(node.this)
        if operand is None or operand.pg_type == "bool":
            raise _NotStructured
        values = []
        for item in node.expressions:
            value = value_of(item, self.params, operand.pg_type, self.sink)
            if value is NOT_A_VALUE:
                raise _NotStructured
            values.append(structured_value(value, operand.pg_type, operand.label))
        if not values:
            raise unsupported(f"{self.clause}: an empty IN list", "list at least one value")
        if negate:
            return _not_equal(operand.element, values)
        return {"member": operand.element, "operator": "equals", "values": values}

    def _between(self, node: exp.Between, negate: bool) -> dict[str, Any]:
        operand = self._operand(node.this)
        if operand is None or operand.pg_type == "bool":
            raise _NotStructured
        low = value_of(node.args["low"], self.params, operand.pg_type, self.sink)
        high = value_of(node.args["high"], self.params, operand.pg_type, self.sink)
        if low is NOT_A_VALUE or high is NOT_A_VALUE:
            raise _NotStructured
        low_v = structured_value(low, operand.pg_type, operand.label)
        high_v = structured_value(high, operand.pg_type, operand.label)
        if negate:
            return {"or": [{"member": operand.element, "operator": "lt", "values": [low_v]},
                           {"member": operand.element, "operator": "gt", "values": [high_v]}]}
        return {"and": [{"member": operand.element, "operator": "gte", "values": [low_v]},
                        {"member": operand.element, "operator": "lte", "values": [high_v]}]}

    # -- a filter tree --------------------------------------------------------------------------
    def _tree_filter(self, node: exp.Expression) -> str:
        """The condition with element names for columns and typed literals for values, printed by sqlglot."""
        tree = node.copy()
        replacements: list[tuple[Any, exp.Expression]] = []
        for raw in tree.walk():  # decided on the client's tree, then replaced (a value's type is its column's)
            n: Any = raw
            if isinstance(n, (exp.Column, exp.Anonymous, exp.TimestampTrunc, exp.DateTrunc, exp.AggFunc)):
                operand = self.resolve(cast(exp.Expression, n))
                if operand is not None:
                    replacements.append((n, member_node(operand.element)))
                elif isinstance(n, exp.Column):
                    raise SqlApiError(f"{self.clause}: column \"{n.name}\" cannot be filtered here", DATATYPE_MISMATCH)
            elif _is_constant(n):
                pg_type = _sibling_type(n, self)
                value = value_of(n, self.params, pg_type, self.sink)
                if value is not NOT_A_VALUE:
                    replacements.append((n, typed_literal(value, pg_type, "the value")))
        for old, new in replacements:
            if old is tree:
                tree = new
            else:
                old.replace(new)
        return tree.sql(dialect=self.dialect)


class _NotStructured(Exception):
    """The condition has a part structured filters cannot say; it is written as a filter tree instead."""


def _not_equal(element: str, values: list[Any]) -> dict[str, Any]:
    """SQL's `x <> v` / `x NOT IN (...)`: true only for a non-NULL x (the structured notEquals also keeps NULLs)."""
    return {"and": [{"member": element, "operator": "set"}, {"member": element, "operator": "notEquals", "values": values}]}


def _is_constant(node: exp.Expression) -> bool:
    return isinstance(node, (exp.Literal, exp.Parameter, exp.Placeholder, exp.Boolean)) or (
        isinstance(node, exp.Cast) and isinstance(node.this, (exp.Literal, exp.Parameter, exp.Placeholder)))


def _sibling_type(node: exp.Expression, builder: FilterBuilder) -> str:
    """The type of the column a constant is compared with (the other side of its comparison), text when none."""
    parent = node.parent
    while isinstance(parent, (exp.Paren, exp.Cast, exp.Tuple)):
        parent = parent.parent
    if isinstance(parent, exp.Binary):
        for side in (parent.this, parent.expression):
            if side is not node:
                operand = builder.resolve(side) if isinstance(side, (exp.Column, exp.Anonymous)) else None
                if operand is not None:
                    return operand.pg_type
    if isinstance(parent, (exp.In, exp.Between, exp.Like, exp.ILike)):
        operand = builder.resolve(parent.this) if isinstance(parent.this, exp.Column) else None
        if operand is not None:
            return operand.pg_type
    return "text"


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    while isinstance(node, exp.Paren) and isinstance(node.this, exp.And):
        node = node.this
    return _flatten(node, exp.And) if isinstance(node, exp.And) else [node]


def _flatten(node: exp.Expression, kind: type[exp.Expression]) -> list[exp.Expression]:
    out: list[exp.Expression] = []
    for side in (node.this, node.expression):
        inner = side
        while isinstance(inner, exp.Paren) and isinstance(inner.this, kind):
            inner = inner.this
        out.extend(_flatten(inner, kind) if isinstance(inner, kind) else [side])
    return out
