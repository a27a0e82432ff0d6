"""What raw SQL may read and call: the one policy every raw-SQL path calls (REST execute, readQuery, MCP,
the agent's final SQL).

Raw SQL is a client's own SELECT, already parsed by the read-only guard. This module decides, in
one walk of its tree, which of the things it names are refused and why:

- system catalogs (information_schema, pg_catalog, sqlite_master, duckdb_* ...): `catalog_refused`;
- semantic model names written as tables (`FROM OrdersModel`): `not_a_table`, naming the physical table;
- tables that are not a physical source of the layer's models or its time spine, views included:
  `raw_sql_refused` (a name is a CTE only where SQL scoping makes that CTE visible);
- a CTE named after a table of the layer, at any depth (it would stand in for the table inside a
  role's filter subquery): `raw_sql_refused`;
- functions and table functions off the dialect's allow-list (engine/allowlist.py), schema-qualified
  calls and system variables (`@@datadir`): `function_not_allowed`, `table_function_refused`.

Each finding carries its kind, code and message; `check` raises the first one, and the agent's guard
builds its own message (with advice for the run) from the same findings, so one refusal has one code
whatever the path. The tree is read, never changed; `render` gives the SQL that then runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlglot import exp

from ..errors import Location, QueryError, nearest
from ..layer.model import SemanticLayer
from .allowlist import allowed_functions, allowed_table_functions, function_names, is_allowed

TableKey = tuple[str, ...]  # lower-cased name parts, outermost first: ("main", "orders")

CATALOG_SCHEMAS = frozenset({"information_schema", "pg_catalog", "mysql", "performance_schema", "sys"})
CATALOG_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_sequence"})
CATALOG_PREFIXES = ("pg_", "sqlite_", "duckdb_")

# the kinds of refusal; each is also the error code, except the two that REST has always answered with
# `raw_sql_refused` (a table outside the layer, a CTE taking a table's name)
CATALOG_REFUSED, NOT_A_TABLE = "catalog_refused", "not_a_table"
TABLE_FUNCTION_REFUSED, TABLE_NOT_IN_LAYER = "table_function_refused", "table_not_in_layer"
FUNCTION_NOT_ALLOWED, CTE_NAME_REFUSED = "function_not_allowed", "cte_name_refused"
RAW_SQL_REFUSED = "raw_sql_refused"
CODES = {TABLE_NOT_IN_LAYER: RAW_SQL_REFUSED, CTE_NAME_REFUSED: RAW_SQL_REFUSED}
# aliases of the role filter subqueries (engine/access.py): a CTE may not take them either
FILTER_ALIAS_PREFIX = "__acl"
ALLOW_HINT = "database.yml `raw_sql: {{{key}: [{name}]}}`"


class SqlRefused(QueryError):
    """Raw SQL names something it may not read; `code` says what kind of thing."""

    code = "sql_refused"


@dataclass(frozen=True)
class Finding:
    """One refused reference of a query: what kind, where, and the sentence that says so."""

    kind: str  # one of the kinds above
    node: exp.Expr
    shown: str  # the reference as SQL text, without its alias
    message: str
    suggestions: tuple[str, ...] = ()

    @property
    def code(self) -> str:
        """The error code clients see for this kind of refusal."""
        return CODES.get(self.kind, self.kind)

    def error(self) -> SqlRefused:
        return SqlRefused(self.message, code=self.code, location=Location(field="sql"), suggestions=list(self.suggestions))


def table_key(table: exp.Table) -> TableKey:
    return tuple(p.name.lower() for p in table.parts)


def is_catalog(key: TableKey) -> bool:
    """A system catalog schema or table, by any of its usual names."""
    if not key:
        return False
    name = key[-1]
    return (any(p in CATALOG_SCHEMAS for p in key[:-1]) or name in CATALOG_SCHEMAS or name in CATALOG_TABLES
            or name.startswith(CATALOG_PREFIXES))


DEFAULT_QUALIFIERS = frozenset({"main", "public"})  # DuckDB/SQLite's and PostgreSQL's default schema


def matches(ref: TableKey, physical: TableKey, defaults: frozenset[str] = DEFAULT_QUALIFIERS) -> bool:
    """`orders` and `main.orders` match `shop.main.orders`. A reference may leave out leading parts of the
    layer's name, and add only default qualifiers (`main.orders`, `public.orders`, the connection's own
    database or schema): `other.orders` does not match `orders`."""
    if not ref or not physical:
        return False
    n = min(len(ref), len(physical))
    return ref[-n:] == physical[-n:] and all(part in defaults for part in ref[: len(ref) - n])


def default_qualifiers(connection: Mapping[str, object]) -> frozenset[str]:
    """The schema and database names a table of the layer may be written with: the defaults and the connection's."""
    names = {str(connection[k]).lower() for k in ("database", "dbname", "schema", "catalog", "project", "dataset")
             if isinstance(connection.get(k), str)}
    path = connection.get("path")
    if isinstance(path, str) and path:
        names.add(path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0].lower())  # DuckDB's catalog: the file's stem
    return DEFAULT_QUALIFIERS | names


def bare_sql(table: exp.Table, dialect: str) -> str:
    """A table reference as SQL text without its alias: `main.orders`."""
    return exp.Table(this=table.this.copy(), db=table.args.get("db"), catalog=table.args.get("catalog")).sql(dialect=dialect)


def cte_names(tree: exp.Expr) -> set[str]:
    return {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}


def is_cte_reference(table: exp.Table) -> bool:
    """True when a one-part table name refers to a CTE visible where it is written.

    Visibility follows SQL scoping: the WITH of an enclosing query, and inside a WITH only the CTEs
    defined before (all of them under WITH RECURSIVE). A CTE of another scope, or a later sibling,
    does not hide the real table of that name, so it must not hide it from the policy either.
    """
    if table.args.get("db") or table.args.get("catalog") or not isinstance(table.this, exp.Identifier):
        return False
    name = table.name.lower()
    child: exp.Expr = table
    node = table.parent
    while node is not None:
        if isinstance(node, exp.With):
            visible = node.expressions if node.args.get("recursive") else node.expressions[: _index(node.expressions, child)]
            if any(c.alias_or_name.lower() == name for c in visible):
                return True
        elif isinstance(node, exp.Query) and isinstance(with_ := _with_of(node), exp.With) and child is not with_:
            if any(c.alias_or_name.lower() == name for c in with_.expressions):
                return True
        child, node = node, node.parent
    return False


def _with_of(query: exp.Expr) -> exp.Expr | None:
    """A query's WITH clause (sqlglot names the argument `with_`, older releases `with`)."""
    return query.args.get("with_") or query.args.get("with")


def _index(items: list[exp.Expr], item: exp.Expr) -> int:
    return next((i for i, x in enumerate(items) if x is item), len(items))


class ReadPolicy:
    """The rules for one layer: its physical tables, model names and dialect (build it once per layer)."""

    def __init__(self, dialect: str, physical: Iterable[tuple[TableKey, str]] = (),
                 models: Mapping[str, exp.Expression | None] | Iterable[str] = (), *,
                 functions: Iterable[str] = (), table_functions: Iterable[str] = (),
                 qualifiers: frozenset[str] = DEFAULT_QUALIFIERS) -> None:
        self.dialect = dialect
        self.qualifiers = qualifiers
        self.functions = allowed_functions(dialect, functions)
        self.table_functions = allowed_table_functions(dialect, table_functions)
        self.physical = list(physical)  # (table key, model name; "" for the time spine)
        self.sources: dict[str, exp.Expression | None] = (
            dict(models) if isinstance(models, Mapping) else {name: None for name in models})
        self.models = {name.lower(): name for name in self.sources}
        self.table_names = {key[-1] for key, _ in self.physical}
        self._by_name: dict[str, list[tuple[TableKey, str]]] = {}
        for key, model in self.physical:
            self._by_name.setdefault(key[-1], []).append((key, model))

    @classmethod
    def for_layer(cls, semantic: SemanticLayer) -> ReadPolicy:
        physical = [(table_key(m.source), m.name) for m in semantic.models.values() if isinstance(m.source, exp.Table)]
        if semantic.time_spine is not None:
            physical.append((table_key(semantic.time_spine.table_node), ""))
        return cls(semantic.dialect, physical, {m.name: m.source for m in semantic.models.values()},
                   functions=semantic.raw_sql_functions, table_functions=semantic.raw_sql_table_functions,
                   qualifiers=default_qualifiers(semantic.connection))

    def physical_model(self, key: TableKey) -> str | None:
        """The model whose physical table `key` names ("" for the time spine), or None outside the layer."""
        candidates = self._by_name.get(key[-1], ()) if key else ()
        return next((model for p, model in candidates if matches(key, p, self.qualifiers)), None)

    def physical_names(self) -> list[str]:
        return [p[-1] for p, _ in self.physical]

    def findings(self, tree: exp.Expression) -> list[Finding]:
        """Everything the query names that it may not read or call, in one walk of the tree."""
        out: list[Finding] = []
        for node in tree.walk():
            finding = self.node_finding(node)
            if finding is not None:
                out.append(finding)
        return out

    def node_finding(self, node: exp.Expr) -> Finding | None:
        """Why this one node is refused: a table, a call, a CTE's name, a system variable (None: it is fine)."""
        if isinstance(node, exp.Table):
            return self.table_finding(node)
        if isinstance(node, exp.Func):
            return self.function_finding(node)
        if isinstance(node, exp.CTE):
            return self.cte_finding(node)
        if isinstance(node, exp.SessionParameter):
            return self.variable_finding(node)
        return None

    def function_finding(self, node: exp.Func) -> Finding | None:
        """Why this call is refused (None: its function is on the dialect's allow-list)."""
        parent = node.parent
        if isinstance(parent, exp.Table) and node.arg_key == "this":
            return None  # a table function: table_finding decides
        table_position = isinstance(parent, (exp.From, exp.Join, exp.Lateral)) and node.arg_key == "this"
        names = function_names(node)
        shown = names[0]
        if isinstance(parent, exp.Dot) and node.arg_key == "expression":
            qualified = parent.sql(dialect=self.dialect)
            return Finding(FUNCTION_NOT_ALLOWED, node, qualified,
                           f"schema-qualified function call '{qualified}' is not allowed in raw SQL; call {shown}(...) "
                           "without a schema")
        if table_position:
            if is_allowed(names, self.table_functions):
                return None
            return self._table_function_refusal(node, shown)
        if is_allowed(names, self.functions):
            return None
        return Finding(FUNCTION_NOT_ALLOWED, node, shown,
                       f"function {shown} is not allowed in raw SQL on {self.dialect}: raw SQL may call only the "
                       "functions on the allow-list (docs/security.md); an admin can allow it with "
                       + ALLOW_HINT.format(key="functions", name=shown))

    def _table_function_refusal(self, node: exp.Expr, name: str) -> Finding:
        shown = node.sql(dialect=self.dialect)
        return Finding(TABLE_FUNCTION_REFUSED, node, shown,
                       f"'{shown}' is a table function; raw SQL reads the layer's tables (and its own CTEs) and only "
                       f"the table functions on the allow-list; an admin can allow {name} with "
                       + ALLOW_HINT.format(key="table_functions", name=name))

    def render(self, tree: exp.Expression) -> str:
        """The SQL that runs: regenerated from the checked tree, never the client's text.

        The engine then runs exactly what was checked: text sqlglot read as a comment or a string
        but the server would read as SQL (MariaDB's `--` + U+00A0, executable comments) is not sent.
        Comments are dropped: they carry nothing a query needs.
        """
        return tree.sql(dialect=self.dialect, comments=False)

    def check(self, tree: exp.Expression, *, allow: Iterable[str] = ()) -> None:
        """Raise the first finding whose kind is not in `allow` as a SqlRefused."""
        skip = set(allow)
        for finding in self.findings(tree):
            if finding.kind not in skip:
                raise finding.error()

    def variable_finding(self, node: exp.SessionParameter) -> Finding:
        """`@@datadir`, `@@global.version`: server settings (paths, versions, logins), not data."""
        shown = node.sql(dialect=self.dialect)
        return Finding(FUNCTION_NOT_ALLOWED, node, shown,
                       f"system variable {shown} is not allowed in raw SQL (it reads the server's settings, not data)")

    def cte_finding(self, cte: exp.CTE) -> Finding | None:
        """A CTE may not take the name of a table of the layer (nor of a role filter's alias), at any depth:
        the role's filter subqueries name those tables, and a CTE of that name would stand in for them."""
        name = cte.alias_or_name.lower()
        if name in self.table_names or name.startswith(FILTER_ALIAS_PREFIX):
            return Finding(CTE_NAME_REFUSED, cte, cte.alias_or_name,
                           f"a CTE may not be named '{cte.alias_or_name}': that is the name of a table of this database; "
                           "rename the CTE")
        return None

    def table_finding(self, table: exp.Table) -> Finding | None:
        """Why this table reference is refused (None: it may be read)."""
        if not isinstance(table.this, exp.Identifier):
            call = table.this
            names = function_names(call) if isinstance(call, exp.Func) else [call.sql(dialect=self.dialect).lower()]
            if isinstance(call, exp.Func) and is_allowed(names, self.table_functions):
                return None
            return self._table_function_refusal(call, names[0])
        key = table_key(table)
        if is_cte_reference(table) or self.physical_model(key) is not None:
            return None
        shown = bare_sql(table, self.dialect)  # only for a refusal: generating SQL is the costly part
        if is_catalog(key):
            return Finding(CATALOG_REFUSED, table, shown,
                           f"system catalog '{table.sql(dialect=self.dialect)}' is not available here; "
                           "use getModelDataElements (POST /v1/databases/{db}/elements) to learn the models")
        if key[-1] in self.models:
            name = self.models[key[-1]]
            source = self.sources[name]
            suggestion = [source.sql(dialect=self.dialect)] if isinstance(source, exp.Table) else []
            return Finding(NOT_A_TABLE, table, shown,
                           f"'{table.name}' is a semantic model, not a table; SQL reads physical tables "
                           "(compile an SMQ to see which)",
                           tuple(suggestion or nearest(key[-1], self.physical_names())))
        return Finding(TABLE_NOT_IN_LAYER, table, shown,
                       f"table '{shown}' is not a table of this database's semantic layer; raw SQL reads the tables "
                       "its models are built on (and its own CTEs)", tuple(nearest(key[-1], self.physical_names())))


_POLICIES: dict[tuple[int, str, str], ReadPolicy] = {}


def policy_for(semantic: SemanticLayer) -> ReadPolicy:
    """The layer's policy, built once per loaded layer (a raw-SQL request then costs one tree walk)."""
    key = (id(semantic), semantic.name, semantic.version)
    policy = _POLICIES.get(key)
    if policy is None:
        if len(_POLICIES) > 256:
            _POLICIES.clear()
        policy = _POLICIES[key] = ReadPolicy.for_layer(semantic)
    return policy
