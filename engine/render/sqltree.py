"""The small sqlglot builders every render module shares: quoted identifiers, columns, aliased sources."""

from __future__ import annotations

from sqlglot import exp

from ..trees import fresh


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


def qualify(node: exp.Expression, alias: str) -> exp.Expression:
    """A copy of a model-level expression with its columns bound to the model's alias (engine/layer/exprs.py's
    `qualify`, which stays the reference). Most layer expressions are a bare column: that one is built directly
    (its identifier copied, the alias new), not copied whole and then changed."""
    if type(node) is exp.Column and node.args.keys() <= _COLUMN_PARTS and not node.comments and node._meta is None \
            and node._type is None:
        return exp.Column(this=fresh(node.this), table=exp.to_identifier(alias, quoted=True))
    out = fresh(node)
    for c in [out] if isinstance(out, exp.Column) else list(out.find_all(exp.Column)):
        c.set("table", exp.to_identifier(alias, quoted=True))
        c.set("db", None)
        c.set("catalog", None)
    return out
