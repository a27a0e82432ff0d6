"""Access roles (docs/security.md; docs/semantic-layer.md, access roles): row filters and hidden elements.

A row filter on model M restricts M and every model that reaches M through
many_to_one/one_to_one steps. It is applied by replacing each restricted model's table
with a filtered subquery (`SELECT x.* FROM table x JOIN ... WHERE filter`, inner joins so
rows whose path finds no match are excluded). The same subqueries serve compiled SMQs
and raw SQL, so no path sees unfiltered rows.

Each subquery is *fenced* (see `fence`): a clause that stops the engine's planner from merging it
into the outer query or pushing the caller's predicates below the role's filter. Without it,
PostgreSQL and MariaDB evaluate a user's `WHERE` on rows the filter removes, and an error raised
there (a failed cast quoting the value, a division by zero) tells the caller about rows it may not
see. Where no fence is proven (Snowflake, BigQuery, Trino) raw SQL is refused for row-filtered roles.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ..dialects import dialect as dialect_of, find as find_engine
from ..errors import QueryError, nearest
from ..layer.exprs import columns_read, parse_expression, qualify
from ..layer.joins import JoinGraph, Path
from ..layer.model import Role, SemanticLayer
from ..resolve.filters import parse_filter, substitute, wrap
from ..resolve.names import DimRef, Resolver
from .lineage import visibility


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


def _n_to_one_paths(graph: JoinGraph, start: str, target: str, limit: int = 8) -> list[Path]:
    """Every path from start to target made only of many_to_one/one_to_one steps (no model twice)."""
    if start == target:
        return [()]
    out: list[Path] = []

    def walk(model: str, path: tuple, seen: frozenset[str]) -> None:
        if len(path) >= limit:
            return
        for step in graph.steps_from(model):
            if step.fans_out or step.target in seen:
                continue
            if step.target == target:
                out.append(path + (step,))
            else:
                walk(step.target, path + (step,), seen | {step.target})

    walk(start, (), frozenset({start}))
    return out


RESERVED_PREFIX = "__acl"


def fence(query: exp.Select, dialect: str | None) -> exp.Select:
    """The role's subquery made opaque to the planner, so outer predicates see only filtered rows: each engine's
    fence (engine/dialects/<engine>.py `fence`), proven on the real engine by tests/engine/access/test_access_fences.py."""
    return dialect_of(dialect).fence(query) if dialect else query


def restricted_sources(layer: SemanticLayer, graph: JoinGraph, role: Role | None, dialect: str | None = None,
                       schema: tuple[str, ...] = (), raw: bool = False, shown: bool = False) -> dict[str, exp.Expression]:
    """Model name -> the subquery standing in for its table under a role.

    Row-filtered models read `... WHERE filter`; models with hidden dimensions expose only the
    columns their visible elements, keys and entities use, so no query (compiled or raw) can read a
    hidden column, not even through `SELECT *`. For raw SQL (`raw`) a key or entity column that a
    hidden dimension reads is left out too: the compiler only joins on it, a caller would read it.
    `dialect` picks the fence; `schema` qualifies the subquery's unqualified tables (raw SQL: a
    caller's CTE must not stand in for one of them). `shown`: the subqueries as the role's SQL is shown to it, each
    value of its row filters a named parameter (`:de_analyst_value_1`) unless the role says `show_filters: true`.
    """
    if role is None or (not role.row_filters and not role.hidden):
        return {}
    filters = row_filters(layer, role)
    seen = visibility(layer, role)
    out: dict[str, exp.Expression] = {}
    for name, model in layer.models.items():
        applicable = [(f, p) for f in filters for p in _n_to_one_paths(graph, name, f.model)]
        columns = _visible_columns(layer, model.name, seen.hidden, seen.secret.get(model.name, frozenset()) if raw else None)
        if not applicable and columns is None:
            continue
        projection = [exp.Column(this=exp.Star(), table=exp.to_identifier("__acl", quoted=True))] if columns is None else [
            exp.Column(this=c.copy(), table=exp.to_identifier("__acl", quoted=True)) for c in columns]
        query = exp.Select(expressions=projection)
        root = _qualified_table(model.source, schema)
        root.set("alias", exp.TableAlias(this=exp.to_identifier("__acl", quoted=True)))
        query = query.from_(root)
        conditions = []
        for n, (f, path) in enumerate(applicable):
            parent = "__acl"
            for depth, step in enumerate(path):
                alias = f"__acl{n}_{depth}"
                target = _qualified_table(layer.models[step.target].source, schema)
                target.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
                from_alias, to_alias = (parent, alias) if step.forward else (alias, parent)
                on = exp.and_(*[exp.EQ(this=qualify(left, from_alias), expression=qualify(right, to_alias))
                                for left, right in step.edge.key_pairs()])
                query = query.join(exp.Join(this=target, on=on, kind="INNER"), copy=False)
                parent = alias
            refs = dict(f.refs)
            condition = substitute(f.node, lambda ref_name, parent=parent, refs=refs: wrap(  # type: ignore[misc]
                qualify(refs[ref_name].dimension.node, parent)))
            if shown and not role.show_filters:
                condition = _named_values(condition, role.name, n)
            conditions.append(exp.Paren(this=condition))
        if conditions:
            query = query.where(*conditions, copy=False)
        out[name] = exp.Subquery(this=fence(query, dialect))
    return out


def _named_values(condition: exp.Expression, role: str, index: int) -> exp.Expression:
    """A row filter as its role is shown it: every value a named parameter (`:de_analyst_filter1_value1`), the columns
    compared kept: the role learns which rows it sees, not the thresholds and codes that choose them."""
    count = 0

    def name(node: exp.Expression) -> exp.Expression:
        nonlocal count
        if isinstance(node, (exp.Literal, exp.Boolean)) or (isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal)):
            count += 1
            return exp.Placeholder(this=f"{role}_filter{index + 1}_value{count}")
        return node

    return condition.transform(name, copy=False)


def _qualified_table(source: exp.Expression, schema: tuple[str, ...]) -> exp.Expression:
    """A copy of a model's source; an unqualified table gets `schema` in front (a CTE cannot shadow it)."""
    out = source.copy()
    if schema and isinstance(out, exp.Table) and not out.args.get("db"):
        out.set("db", exp.to_identifier(schema[-1]))
        if len(schema) > 1:
            out.set("catalog", exp.to_identifier(schema[0]))
    return out


_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def default_schema(layer: SemanticLayer) -> tuple[str, ...]:
    """The schema the layer's connection reads unqualified tables from, when it is known for certain.

    DuckDB and SQLite: `main`; PostgreSQL: the connection's single `schema`; MySQL/MariaDB: its
    `database` (or the url's). Empty when unknown (e.g. a `${VAR}`): the CTE-name refusal in
    `apply_role_to_sql` still keeps the subquery's tables from being shadowed.
    """
    connection: Mapping[str, Any] = layer.connection or {}
    backend = find_engine(str(connection.get("backend", "")))
    if backend is None or backend is not find_engine(layer.dialect):
        return ()
    engine = dialect_of(backend)
    if engine.default_schema:
        return (engine.default_schema,)
    name: Any = connection.get(engine.schema_setting) if engine.schema_setting else None
    if not name and engine.schema_setting == "database" and isinstance(connection.get("url"), str):  # mysql://.../database
        name = connection["url"].rsplit("/", 1)[-1].split("?", 1)[0] if connection["url"].count("/") >= 3 else None
    return (name,) if isinstance(name, str) and _PLAIN_NAME.match(name) else ()


def key_nodes(layer: SemanticLayer, model_name: str) -> list[exp.Expression]:
    """What the compiler joins a model on: its primary key, both sides of its joins and its entities' keys."""
    model = layer.models[model_name]
    nodes: list[exp.Expression] = list(model.primary_key_nodes)
    for edge in layer.joins:
        if edge.from_model == model_name:
            nodes += [left for left, _ in edge.key_pairs()]
        if edge.to_model == model_name:
            nodes += [right for _, right in edge.key_pairs()]
    nodes += [parse_expression(e.expr, layer.dialect) for e in model.entities.values()]
    return nodes


def _visible_columns(layer: SemanticLayer, model_name: str, hidden: frozenset[str], secret: frozenset[str] | None = None
                     ) -> list[exp.Identifier] | None:
    """The columns a model may expose when the role hides something of it (None: it may expose them all).

    Visible dimensions and measures expose what they read. Keys and entities (`key_nodes`) are exposed for the
    compiler's joins; for raw SQL (`secret`: this model's secret columns, engine/access/lineage.py) only the keys that are not secret,
    since a caller would read them."""
    model = layer.models[model_name]
    if not secret and not any(d.qualified_name in hidden for d in model.dimensions.values()):
        return None
    seen = columns_read([d.node for d in model.dimensions.values() if d.qualified_name not in hidden]
                        + [m.node for m in model.measures.values() if m.node is not None and m.qualified_name not in hidden])
    for name, ident in columns_read(key_nodes(layer, model_name)).items():
        if name not in (secret or ()):
            seen.setdefault(name, ident)
    return [seen[k] for k in sorted(seen)]


def _table_key(table: exp.Table) -> tuple[str, ...]:
    return tuple(p.name.lower() for p in table.parts)


def _matches(ref: tuple[str, ...], physical: tuple[str, ...]) -> bool:
    """`orders` matches `shop.main.orders`; a qualified reference must agree on every part it gives."""
    n = min(len(ref), len(physical))
    return ref[-n:] == physical[-n:]


def apply_role_to_sql(tree: exp.Expression, layer: SemanticLayer, graph: JoinGraph, role: Role | None) -> exp.Expression:
    """Raw read-only SQL as a role may run it: restricted tables replaced by their filtered subqueries.

    Tables of models with hidden dimensions become projections without the hidden columns, so a
    query naming one fails on the engine ("column not found"). Refused (QueryError) when it cannot
    be made safe: a table outside the layer, a CTE that shadows a restricted table, or a restricted
    derived model.
    """
    if role is None or (not role.row_filters and not role.hidden):
        return tree
    if role.row_filters and not dialect_of(layer.dialect).fenced:
        raise QueryError(f"raw SQL is not available to role '{role.name}' on {layer.dialect}: this engine's planner may "
                         "evaluate a query's conditions on rows the role's filters remove, and nothing proves otherwise; "
                         "use an SMQ instead", code="raw_sql_refused")
    tree = tree.copy()
    sources = _raw_sql_sources(layer, graph, role)
    physical: list[tuple[tuple[str, ...], str]] = [
        (_table_key(m.source), m.name) for m in layer.models.values() if isinstance(m.source, exp.Table)
    ]
    if layer.time_spine is not None:
        physical.append((_table_key(layer.time_spine.table_node), ""))
    derived = [name for name in sources if not isinstance(layer.models[name].source, exp.Table)]
    if derived:
        raise QueryError(f"raw SQL is not available to role '{role.name}': its row filters restrict the derived model(s) "
                         f"{', '.join(derived)}; use an SMQ instead", code="raw_sql_refused")
    cte_names = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    _refuse_shadowing_ctes(cte_names, sources)
    seen = visibility(layer, role)
    hidden = {name: _hidden_columns(layer, name, seen.hidden, seen.secret.get(name, frozenset())) for name in layer.models}
    for table in list(tree.find_all(exp.Table)):
        key = _table_key(table)
        if len(key) == 1 and key[0] in cte_names:
            if any(_matches(key, p) for p, model in physical if model in sources):
                raise QueryError(f"a CTE named '{table.name}' shadows a restricted table; rename the CTE", code="raw_sql_refused")
            continue
        match = next((model for p, model in physical if _matches(key, p)), None)
        if match is None:
            if role.row_filters or role.hidden:
                raise QueryError(f"table '{table.sql()}' is not part of database '{layer.name}' and role '{role.name}' may only read "
                                 "the layer's tables", code="raw_sql_refused",
                                 suggestions=nearest(table.name, [p[-1] for p, _ in physical]))
            continue
        if match in hidden and hidden[match]:
            _explain_hidden(table, hidden[match], role)
        if match in sources:
            alias = table.alias_or_name
            replacement = sources[match].copy()
            replacement.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=table.args.get("alias") is None and
                                                                                 table.this.quoted)))
            table.replace(replacement)
    return tree


# graph (one per loaded layer; a reload makes a new one) -> role -> its sources for raw SQL
_RAW_SOURCES: weakref.WeakKeyDictionary[JoinGraph, dict[tuple, dict[str, exp.Expression]]] = weakref.WeakKeyDictionary()


def _raw_sql_sources(layer: SemanticLayer, graph: JoinGraph, role: Role) -> dict[str, exp.Expression]:
    """`restricted_sources` for the layer's own dialect and schema, built once per layer and role (read-only)."""
    schema = default_schema(layer)
    key = (role.name, role.row_filters, role.hidden, layer.dialect, schema)
    per_graph = _RAW_SOURCES.get(graph)
    if per_graph is None:
        per_graph = _RAW_SOURCES.setdefault(graph, {})
    cached = per_graph.get(key)
    if cached is None:
        cached = per_graph[key] = restricted_sources(layer, graph, role, layer.dialect, schema, raw=True)
    return cached


def _refuse_shadowing_ctes(cte_names: set[str], sources: dict[str, exp.Expression]) -> None:
    """No CTE (at any depth) may take the name of a table a role's subquery reads, nor our own alias prefix.

    The subqueries are placed inside the caller's query: an unqualified table in them would resolve to
    a caller's CTE of that name (`WITH nations AS (SELECT ... 'Germany' ...)` would satisfy any filter).
    """
    used = {t.name.lower() for source in sources.values() for t in source.find_all(exp.Table)}
    for name in sorted(cte_names):
        if name in used or name.startswith(RESERVED_PREFIX):
            raise QueryError(f"a CTE named '{name}' shadows a restricted table or one its row filters read; rename the CTE",
                             code="raw_sql_refused")


def _hidden_columns(layer: SemanticLayer, model_name: str, hidden: frozenset[str], secret: frozenset[str]) -> set[str]:
    """Secret columns absent from the model's projection under the role (a visible dimension may still read one)."""
    visible = _visible_columns(layer, model_name, hidden, secret)
    if visible is None:
        return set()
    shown = {c.name.lower() for c in visible}
    return {c.lower() for c in secret} - shown


def _explain_hidden(table: exp.Table, columns: set[str], role: Role) -> None:
    """A clear refusal for a hidden column read from this table (the projection would fail anyway)."""
    select = table.find_ancestor(exp.Select)
    if select is None:
        return
    sources = [t for t in select.find_all(exp.Table) if t.find_ancestor(exp.Select) is select]
    names = {table.alias_or_name.lower(), table.name.lower()}
    for column in select.find_all(exp.Column):
        if column.name.lower() not in columns or column.find_ancestor(exp.Select) is not select:
            continue
        qualifier = column.table.lower()
        if qualifier in names or (not qualifier and len(sources) == 1):
            raise QueryError(f"column '{column.name}' of {table.name} is hidden from role '{role.name}'", code="raw_sql_refused")
