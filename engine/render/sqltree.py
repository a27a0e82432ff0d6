"""The small sqlglot builders every render module shares: quoted identifiers, columns, aliased sources."""

from __future__ import annotations

from sqlglot import exp


def ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def col(name: str, table: str | None = None) -> exp.Column:
    return exp.Column(this=ident(name), table=ident(table) if table else None)


def aliased(source: exp.Expression, alias: str) -> exp.Expression:
    node = source.copy()
    node.set("alias", exp.TableAlias(this=ident(alias)))
    return node


def named(value: exp.Expression, name: str) -> exp.Alias:
    """`value AS "name"`, always as an Alias node around it: sqlglot's `alias_` would set an alias *on* a node that
    takes one (a scalar subquery such as a custom grain's lookup), which with `copy=False` changes the very node a
    GROUP BY copies next (`GROUP BY (SELECT ...) AS g0`)."""
    return exp.Alias(this=value, alias=exp.to_identifier(name, quoted=True))
