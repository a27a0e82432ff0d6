"""Access roles (spec section 6): row filters and hidden elements.

A row filter on model M restricts M and every model that reaches M through
many_to_one/one_to_one steps. It is applied by replacing each restricted model's table
with a filtered subquery (`SELECT x.* FROM table x JOIN ... WHERE filter`, inner joins so
rows whose path finds no match are excluded). The same subqueries serve compiled SMQs
and raw SQL, so no path sees unfiltered rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from .errors import QueryError
from .layer.joins import JoinGraph, Path
from .layer.model import Role, SemanticLayer
from .smq.filters import parse_filter, substitute, wrap
from .smq.resolve import DimRef, Resolver


@dataclass(frozen=True)
class RowFilter:
    text: str
    model: str  # the model M the filter is on
    node: exp.Expression
    refs: tuple[tuple[str, DimRef], ...]


def row_filters(layer: SemanticLayer, role: Role) -> list[RowFilter]:
    resolver = Resolver(layer)
    out = []
    for i, text in enumerate(role.row_filters):
        f = parse_filter(text, f"access.roles.{role.name}.row_filters[{i}]", resolver, layer.dialect)
        dims = f.dimension_refs()
        models = sorted({d.model for d in dims})
        if f.kind != "where" or len(models) != 1 or any(d.keys or d.grain for d in dims):
            raise QueryError(f"role {role.name}: row filter '{text}' must use dimensions of exactly one model",
                             code="invalid_role")
        out.append(RowFilter(text, models[0], f.node, tuple((n, r) for n, r in f.refs if isinstance(r, DimRef))))
    return out


def _n_to_one_paths(graph: JoinGraph, start: str, target: str) -> list[Path]:
    if start == target:
        return [()]
    return [p for p in graph.shortest_paths(start, target) if p and not any(s.fans_out for s in p)]


def restricted_sources(layer: SemanticLayer, graph: JoinGraph, role: Role | None) -> dict[str, exp.Expression]:
    """Model name -> a filtered subquery standing in for its table, for every restricted model."""
    if role is None or not role.row_filters:
        return {}
    filters = row_filters(layer, role)
    out: dict[str, exp.Expression] = {}
    for name, model in layer.models.items():
        applicable = [(f, p) for f in filters for p in _n_to_one_paths(graph, name, f.model)]
        if not applicable:
            continue
        query = exp.Select(expressions=[exp.Column(this=exp.Star(), table=exp.to_identifier("__acl", quoted=True))])
        root = model.source.copy()
        root.set("alias", exp.TableAlias(this=exp.to_identifier("__acl", quoted=True)))
        query = query.from_(root)
        conditions = []
        for n, (f, path) in enumerate(applicable):
            parent = "__acl"
            for depth, step in enumerate(path):
                alias = f"__acl{n}_{depth}"
                target = layer.models[step.target].source.copy()
                target.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
                from_alias, to_alias = (parent, alias) if step.forward else (alias, parent)
                on = exp.EQ(this=_qualify(step.edge.left_node, from_alias), expression=_qualify(step.edge.right_node, to_alias))
                query = query.join(exp.Join(this=target, on=on, kind="INNER"), copy=False)
                parent = alias
            refs = dict(f.refs)
            conditions.append(exp.Paren(this=substitute(f.node, lambda ref_name, parent=parent, refs=refs: wrap(
                _qualify(refs[ref_name].dimension.node, parent)))))
        out[name] = exp.Subquery(this=query.where(*conditions, copy=False))
    return out


def _qualify(node: exp.Expression, alias: str) -> exp.Expression:
    out = node.copy()
    for c in [out] if isinstance(out, exp.Column) else list(out.find_all(exp.Column)):
        c.set("table", exp.to_identifier(alias, quoted=True))
        c.set("db", None)
        c.set("catalog", None)
    return out
