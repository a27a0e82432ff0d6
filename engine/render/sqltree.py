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
