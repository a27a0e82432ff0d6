"""The small sqlglot builders every render module shares: quoted identifiers, columns, aliased sources."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlglot import exp

from ..trees import fresh

Q = TypeVar("Q", bound=exp.Query)


def ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def col(name: str, table: str | None = None) -> exp.Column:
    return exp.Column(this=ident(name), table=ident(table) if table else None)


def aliased(source: exp.Expression, alias: str) -> exp.Expression:
    node = fresh(source)
    node.set("alias", exp.TableAlias(this=ident(alias)))
    return node


def named(value: exp.Expression, name: str) -> exp.Alias:
    """`value AS "name"`, always as an Alias node around it: sqlglot's `alias_` would set an alias *on* a node that
    takes one (a scalar subquery such as a custom grain's lookup), which with `copy=False` changes the very node a
    GROUP BY copies next (`GROUP BY (SELECT ...) AS g0`)."""
    return exp.Alias(this=value, alias=exp.to_identifier(name, quoted=True))


_COLUMN_PARTS = frozenset(("this", "table", "db", "catalog"))


def is_bare(node: exp.Expression) -> bool:
    """A plain column (no table, comments, type or meta): `qualify` builds its bound copy directly."""
    return type(node) is exp.Column and node.args.keys() <= _COLUMN_PARTS and not node.comments and node._meta is None \
        and node._type is None


def qualify(node: exp.Expression, alias: str) -> exp.Expression:
    """A copy of a model-level expression with its columns bound to the model's alias (engine/layer/exprs.py's
    `qualify`, which stays the reference). Most layer expressions are a bare column: that one is built directly
    (its identifier copied, the alias new), not copied whole and then changed."""
    if is_bare(node):
        return exp.Column(this=fresh(node.this), table=exp.to_identifier(alias, quoted=True))
    out = fresh(node)
    for c in [out] if isinstance(out, exp.Column) else list(out.find_all(exp.Column)):
        c.set("table", exp.to_identifier(alias, quoted=True))
        c.set("db", None)
        c.set("catalog", None)
    return out


# -- clauses set in place ------------------------------------------------------------------------------------
# sqlglot's builder methods (`Select.select/from_/where/group_by/...` with `copy=False`) make the same trees, but
# each goes through its parse-or-take step per argument, a throwaway wrapper node per item (`Group(expressions=[k])`
# per key) and keyword handling: about 4 µs a call, against a fraction of that to set the clause. The render step
# builds its queries from nodes only, so it sets the clauses directly; each helper makes the tree its builder would
# (tests/engine/golden: the SQL of every case in every dialect, unchanged).

def _wrap(node: exp.Expr) -> exp.Expr:
    return exp.Paren(this=node) if isinstance(node, exp.Connector) else node


def conjunction(conditions: Sequence[exp.Expr]) -> exp.Expr:
    """`a AND b AND ...` as `exp.and_` makes it: left-deep, an AND/OR operand parenthesised."""
    this, *rest = conditions
    if rest:
        this = _wrap(this)
    for condition in rest:
        this = exp.And(this=this, expression=_wrap(condition))
    return this


def add_select(query: exp.Select, items: Sequence[exp.Expr]) -> exp.Select:
    """`query.select(*items, copy=False)`."""
    existing = query.args.get("expressions")
    query.set("expressions", [*existing, *items] if existing else list(items))
    return query


def set_from(query: exp.Select, source: exp.Expr) -> exp.Select:
    """`query.from_(source, copy=False)`."""
    query.set("from_", source if isinstance(source, exp.From) else exp.From(this=source))
    return query


def add_join(query: exp.Select, join: exp.Join) -> exp.Select:
    """`query.join(join, copy=False)` for a built Join of a table or subquery."""
    existing = query.args.get("joins")
    query.set("joins", [*existing, join] if existing else [join])
    return query


def add_where(query: exp.Select, conditions: Sequence[exp.Expr], key: str = "where") -> exp.Select:
    """`query.where(*conditions, copy=False)` (`key="having"`: `query.having(...)`)."""
    if not conditions:
        return query
    existing = query.args.get(key)
    terms = [existing.this, *conditions] if existing is not None else list(conditions)
    query.set(key, (exp.Where if key == "where" else exp.Having)(this=conjunction(terms)))
    return query


def add_group(query: exp.Select, keys: Sequence[exp.Expr]) -> exp.Select:
    """`query.group_by(*keys, copy=False)`."""
    existing = query.args.get("group")
    query.set("group", exp.Group(expressions=[*existing.expressions, *keys] if existing else list(keys)))
    return query


def add_order(query: Q, items: Sequence[exp.Expr]) -> Q:
    """`query.order_by(*items, copy=False)`."""
    existing = query.args.get("order")
    query.set("order", exp.Order(expressions=[*existing.expressions, *items] if existing else list(items)))
    return query


def add_ctes(query: Q, ctes: Sequence[tuple[str, exp.Query]]) -> Q:
    """`query.with_(ident(name), as_=cte, copy=False)` for each CTE in turn (the builder takes the identifier as the
    CTE's alias as it is)."""
    if not ctes:
        return query
    new = [exp.CTE(this=cte, alias=ident(name), materialized=None, scalar=None) for name, cte in ctes]
    existing = query.args.get("with_")
    query.set("with_", exp.With(expressions=[*existing.expressions, *new] if existing else new))
    return query
