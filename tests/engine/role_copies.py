"""A role's rows, as data: a copy of a layer's tables holding only what one role may see.

The role differential (test_role_differential.py) asks a case under a role of the whole data, and the same case
without a role of this copy. The copy is made here, apart from engine/access: a row of a model stays when the model's
own row filters hold for it and, for every many_to_one/one_to_one edge it leaves towards a restricted model, the row
it joins to stays in that model's copy (a semi-join, recursively). engine/access/roles.py builds the same rows the
other way (every path to a filtered model, inner joins); two ways that agree on every case are the guard.

Filters are rewritten by hand-simple means: each `Model__dimension` replaced by the dimension's expression over the
model's table. The kept rows are chosen on DuckDB over the full data, by primary key, and the copy is loaded into
any engine by smq_db.demo.build.load_into.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import duckdb
import sqlglot
from sqlglot import exp

from engine.layer.exprs import qualify
from engine.layer.model import JoinEdge, Role, SemanticLayer
from smq_db.demo.generate import Table


def _reaches(edge: JoinEdge) -> list[tuple[str, str, bool]]:
    """(model, model it reaches without fanning out, forward?) for one declared edge."""
    if edge.relationship == "many_to_one":
        return [(edge.from_model, edge.to_model, True)]
    if edge.relationship == "one_to_many":
        return [(edge.to_model, edge.from_model, False)]
    if edge.relationship == "one_to_one":
        return [(edge.from_model, edge.to_model, True), (edge.to_model, edge.from_model, False)]
    return []


def _filter_sql(layer: SemanticLayer, text: str, alias: str) -> tuple[str, exp.Expression]:
    """(the model a row filter is on, its condition over that model's table as `alias`)."""
    node = sqlglot.parse_one(text, read="duckdb")
    models = set()
    for column in list(node.find_all(exp.Column)):
        model_name, _, dim = column.name.partition("__")
        models.add(model_name)
        column.replace(exp.Paren(this=qualify(layer.models[model_name].dimensions[dim].node, alias)))
    assert len(models) == 1, f"a row filter reads one model: {text}"
    return models.pop(), node


def kept_keys(layer: SemanticLayer, role: Role, con: duckdb.DuckDBPyConnection) -> dict[str, set[tuple]]:
    """Table -> the primary keys of its rows the role may see, for every table the role restricts (others: all)."""
    filters: dict[str, list[str]] = {}
    for text in role.row_filters:
        model, _ = _filter_sql(layer, text, "t")
        filters.setdefault(model, []).append(text)
    edges = [(src, dst, fwd, e) for e in layer.joins for src, dst, fwd in _reaches(e)]

    restricted: dict[str, bool] = {}

    def is_restricted(model: str, stack: frozenset[str] = frozenset()) -> bool:
        if model in restricted:
            return restricted[model]
        found = model in filters or any(is_restricted(dst, stack | {model}) for src, dst, _, _ in edges
                                        if src == model and dst not in stack | {model})
        if not stack:
            restricted[model] = found
        return found

    def rows_of(model: str, alias: str, stack: frozenset[str]) -> exp.Select:
        """SELECT 1 FROM the model's table AS alias WHERE <the role may see the row>."""
        conditions: list[exp.Expression] = [_filter_sql(layer, text, alias)[1] for text in filters.get(model, [])]
        for n, (src, dst, forward, edge) in enumerate(edges):
            if src != model or dst in stack or not is_restricted(dst):
                continue
            inner = f"{alias}_{n}"
            sub = rows_of(dst, inner, stack | {model})
            for left, right in edge.key_pairs():
                mine, theirs = (left, right) if forward else (right, left)
                sub = sub.where(exp.EQ(this=qualify(mine, alias), expression=qualify(theirs, inner)), copy=False)
            conditions.append(exp.Exists(this=sub))
        query = exp.select("1").from_(exp.alias_(layer.models[model].source.copy(), alias, table=True))
        return query.where(*conditions, copy=False) if conditions else query

    out: dict[str, set[tuple]] = {}
    for name, model in layer.models.items():
        if not is_restricted(name):
            continue
        keys = [qualify(pk, "r") for pk in model.primary_key_nodes]
        query = rows_of(name, "r", frozenset()).select(*keys, append=False)
        out[str(model.table)] = {tuple(row) for row in con.execute(query.sql(dialect="duckdb")).fetchall()}
    return out


def copy_tables(tables: Sequence[Table], keys: dict[str, set[tuple]]) -> list[Table]:
    """The tables with only the rows whose primary key is kept (tables without an entry: whole)."""
    out = []
    for table in tables:
        kept = keys.get(table.name)
        if kept is None:
            out.append(table)
            continue
        index = [[c for c, _ in table.columns].index(k) for k in table.primary_key]
        rows = tuple(row for row in table.rows if tuple(row[i] for i in index) in kept)
        out.append(dataclasses.replace(table, rows=rows))
    return out
