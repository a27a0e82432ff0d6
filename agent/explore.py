"""The fine-grained exploration tools of spec section 7, for `smq ask --tools`, REST and MCP.

`listModels` (with directives for a question), `list_tables`, `describe_table`, `get_join_info`,
`get_col_values`, `find_rows`, `profile_column`, `read_query` and `python`. Table names are
physical names. Every tool runs as the caller's access role: a tool's SQL is a sqlglot tree that
goes through `engine.access.apply_role_to_sql` before the executor (row filters become filtered
subqueries; tables a row-filtered role may not read are refused), and the columns a role may see
are the ones the database returns for `SELECT * FROM <table as the role sees it> LIMIT 0`, so
hidden columns are absent everywhere (describe, values, rows, profiles). Catalog reads are the
tool's own queries (agent/catalog.py), never the model's.

Mistakes (unknown table or column, bad arguments) raise `ToolError` with a message the model can
act on; the agent turns it into `{"error": ...}`, REST into a 400 problem.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from engine import Layer
from engine.access import apply_role_to_sql
from engine.errors import EngineError, Location, QueryError, nearest
from smq_db.executors import check_read_only

from .catalog import Catalog, ForeignKey, TableRef
from .guards import is_catalog, table_key
from engine.readpolicy import (
    CATALOG_REFUSED, NOT_A_TABLE, cte_names, policy_for,
)
from .providers.base import ToolSpec

LIST_MODELS, LIST_TABLES, DESCRIBE_TABLE, GET_JOIN_INFO = "listModels", "list_tables", "describe_table", "get_join_info"
GET_COL_VALUES, FIND_ROWS, PROFILE_COLUMN, READ_QUERY, PYTHON = ("get_col_values", "find_rows", "profile_column",
                                                                  "read_query", "python")
EXPLORE_TOOLS = (LIST_MODELS, LIST_TABLES, DESCRIBE_TABLE, GET_JOIN_INFO, GET_COL_VALUES, FIND_ROWS, PROFILE_COLUMN,
                 READ_QUERY, PYTHON)


class ToolError(QueryError):
    """The call was wrong (unknown table or column, bad arguments): fix it and call again."""

    code = "tool_error"


@dataclass(frozen=True)
class ExploreLimits:
    """Caps that keep every tool's answer small (the model pays for each token) and each query short."""

    values_default: int = 20
    values_max: int = 100
    find_rows_max: int = 20
    terms_max: int = 10
    read_query_rows: int = 50
    top_values: int = 5
    timeout_s: float = 30.0
    sample_values: bool = True  # listModels: index values sampled from the database (once per layer version)
    python_enabled: bool = False


class Explorer:
    """The tools bound to one database, executor and role; catalog reads are cached for its lifetime."""

    def __init__(self, layer: Layer, executor: Any, *, role: str | None = None, limits: ExploreLimits | None = None,
                 provider: Any = None, on_table: Callable[[exp.Table], None] | None = None) -> None:
        self.layer = layer
        self.executor = executor
        self.role = role
        self.role_obj = layer.role(role)
        self.limits = limits or ExploreLimits()
        self.provider = provider  # listModels infers column names with it when given
        self.on_table = on_table  # tables the tools showed (the agent's guard then lets execute read them)
        self.catalog = Catalog(executor, layer.dialect)
        self._visible: dict[tuple[str, ...], list[str]] = {}

    # -- dispatch -------------------------------------------------------------------------------
    def call(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """Run tool `name` with JSON arguments; raises ToolError (or another EngineError)."""
        handlers: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
            LIST_MODELS: lambda a: self.list_models(_opt_str(a, "question")),
            LIST_TABLES: lambda a: self.list_tables(),
            DESCRIBE_TABLE: lambda a: self.describe_table(_str(a, "table")),
            GET_JOIN_INFO: lambda a: self.get_join_info(_str(a, "table")),
            GET_COL_VALUES: lambda a: self.get_col_values(_str(a, "table"), _str(a, "column"), _opt_int(a, "limit")),
            FIND_ROWS: lambda a: self.find_rows(_str(a, "table"), _str(a, "column"), _terms(a), _opt_int(a, "limit")),
            PROFILE_COLUMN: lambda a: self.profile_column(_str(a, "table"), _str(a, "column")),
            READ_QUERY: lambda a: self.read_query(_str(a, "sql")),
            PYTHON: lambda a: self.python(_str(a, "code")),
        }
        handler = handlers.get(name)
        if handler is None:
            raise ToolError(f"unknown tool '{name}'", code="unknown_tool", suggestions=nearest(name, EXPLORE_TOOLS))
        if not isinstance(args, Mapping):
            raise ToolError(f"{name} takes a JSON object of arguments")
        return handler(args)

    # -- listModels -----------------------------------------------------------------------------
    def list_models(self, question: str | None = None) -> dict[str, Any]:
        models = self.layer.model_list()
        if not question:
            return {"models": models}
        from .directives import directives_for

        verdict = directives_for(self.layer, question, role=self.role, provider=self.provider,
                                 executor=self.executor if self.limits.sample_values else None).by_model()
        return {"models": [{**m, "directive": "relevant" if verdict[m["name"]].relevant else "irrelevant",
                            "reason": verdict[m["name"]].reason} for m in models]}

    # -- tables -----------------------------------------------------------------------------------
    def _tables(self) -> list[TableRef]:
        try:
            return [t for t in self.catalog.tables() if self._readable(t)]
        except EngineError:
            return self._layer_tables()

    def _layer_tables(self) -> list[TableRef]:
        out = {}
        for model in self.layer.models.values():
            if isinstance(model.source, exp.Table):
                ref = TableRef(model.source.name, model.source.db or None)
                out.setdefault(ref.key, ref)
        return list(out.values())

    def _readable(self, table: TableRef) -> bool:
        try:
            self._as_role(exp.select(exp.Star()).from_(table.node()))
        except EngineError:
            return False
        return True

    def _qualify(self, tables: list[TableRef]) -> bool:
        return len({t.schema for t in tables}) > 1

    def _model_of(self, table: TableRef) -> str | None:
        for model in self.layer.models.values():
            if isinstance(model.source, exp.Table):
                key = table_key(model.source)
                n = min(len(key), len(table.key))
                if key[-n:] == table.key[-n:]:
                    return model.name
        return None

    def list_tables(self) -> dict[str, Any]:
        tables = self._tables()
        qualify = self._qualify(tables)
        out = []
        for t in tables:
            item: dict[str, Any] = {"table": t.display(qualify)}
            if t.kind != "table":
                item["kind"] = t.kind
            model = self._model_of(t)
            if model:
                item["model"] = model
                item["description"] = " ".join(self.layer.models[model].description.split())
            out.append(item)
        return {"tables": out}

    def resolve(self, name: str) -> TableRef:
        """The catalog table a name refers to (case-insensitive; a schema may be left out), or ToolError."""
        try:
            node = exp.to_table(name.strip(), dialect=self.layer.dialect)
        except Exception:  # noqa: BLE001 - any parse failure is the caller's bad table name
            raise ToolError(f"'{name}' is not a table name", location=Location(field="table")) from None
        key = table_key(node)
        if is_catalog(key):
            raise ToolError(f"'{name}' is a system catalog; use list_tables and describe_table instead",
                            code="catalog_refused", location=Location(field="table"))
        tables = self._tables()
        matches = [t for t in tables if len(key) <= len(t.key) and t.key[len(t.key) - len(key):] == key]
        if len(matches) == 1:
            return matches[0]
        qualify = self._qualify(tables)
        if not matches:
            models = {m.lower(): m for m in self.layer.models}
            hint = ""
            if key[-1] in models:
                src = self.layer.models[models[key[-1]]].source
                hint = f" ('{name}' is a semantic model; its table is {src.sql(dialect=self.layer.dialect)})"
            raise ToolError(f"unknown table '{name}'{hint}", code="unknown_table", location=Location(field="table"),
                            suggestions=nearest(name, [t.display(qualify) for t in tables]))
        raise ToolError(f"table name '{name}' is ambiguous: {', '.join(t.display(True) for t in matches)}; qualify it",
                        code="unknown_table", location=Location(field="table"))

    def _seen(self, table: TableRef) -> None:
        if self.on_table is not None:
            self.on_table(table.node())

    # -- describe_table, get_join_info ------------------------------------------------------------
    def visible_columns(self, table: TableRef) -> list[str]:
        """The columns this role may read, as the database names them (hidden ones are absent)."""
        if table.key not in self._visible:
            if self.role_obj is None:
                self._visible[table.key] = [c.name for c in self.catalog.columns(table)]
            else:
                probe = self._as_role(exp.select(exp.Star()).from_(table.node()).limit(0))
                self._visible[table.key] = self._execute(probe, 1).columns
        return self._visible[table.key]

    def describe_table(self, table: str) -> dict[str, Any]:
        ref = self.resolve(table)
        visible = {c.lower() for c in self.visible_columns(ref)}
        try:
            columns = [c for c in self.catalog.columns(ref) if c.name.lower() in visible]
        except EngineError:
            columns = []
        if not columns:  # no catalog: names only
            from .catalog import ColumnInfo

            columns = [ColumnInfo(c, None, None) for c in self.visible_columns(ref)]
        out: dict[str, Any] = {"table": ref.display(self._qualify(self._tables())),
                               "columns": [{"name": c.name, "type": c.type, "nullable": c.nullable,
                                            **({"primary_key": True} if c.primary_key else {})} for c in columns]}
        model = self._model_of(ref)
        if model:
            out["model"] = model
            keys = self.layer.models[model].primary_key
            if keys and not any(c.primary_key for c in columns):
                out["primary_key"] = list(keys)  # declared in the layer, not in the database
        fks = [self._fk_json(fk) for fk in self._visible_fks(ref, visible)]
        if fks:
            out["foreign_keys"] = fks
        self._seen(ref)
        return out

    def _visible_fks(self, ref: TableRef, visible: set[str]) -> list[ForeignKey]:
        return [fk for fk in self.catalog.foreign_keys(ref) if all(c.lower() in visible for c in fk.columns)]

    @staticmethod
    def _fk_json(fk: ForeignKey) -> dict[str, Any]:
        return {"columns": fk.columns, "references": fk.ref_table, "ref_columns": fk.ref_columns}

    def get_join_info(self, table: str) -> dict[str, Any]:
        ref = self.resolve(table)
        model = self._model_of(ref)
        dialect = self.layer.dialect
        declared = []
        for edge in self.layer.semantic.joins:
            if model not in (edge.from_model, edge.to_model):
                continue
            left, right = self.layer.models[edge.from_model].source, self.layer.models[edge.to_model].source
            lt, rt = left.sql(dialect=dialect), right.sql(dialect=dialect)
            on = exp.EQ(this=_qualify_columns(edge.left_node, getattr(left, "name", edge.from_model)),
                        expression=_qualify_columns(edge.right_node, getattr(right, "name", edge.to_model)))
            declared.append({"from_table": lt, "to_table": rt, "from_model": edge.from_model, "to_model": edge.to_model,
                             "key": edge.key, "relationship": edge.relationship, "join_type": edge.type,
                             "on": on.sql(dialect=dialect)})
        visible = {c.lower() for c in self.visible_columns(ref)}
        outgoing = [self._fk_json(fk) for fk in self._visible_fks(ref, visible)]
        incoming = []
        for other in self._tables():
            if other.key == ref.key:
                continue
            for fk in self.catalog.foreign_keys(other):
                if fk.ref_table.lower() == ref.name.lower():
                    incoming.append({"table": other.display(self._qualify(self._tables())), "columns": fk.columns,
                                     "ref_columns": fk.ref_columns})
        self._seen(ref)
        return {"table": ref.display(self._qualify(self._tables())), **({"model": model} if model else {}),
                "declared_joins": declared, "foreign_keys": outgoing, "referenced_by": incoming}

    # -- values, rows, profiles ---------------------------------------------------------------------
    def _column(self, ref: TableRef, column: str) -> exp.Column:
        visible = self.visible_columns(ref)
        by_lower = {c.lower(): c for c in visible}
        found = by_lower.get(column.strip().strip('"`[]').lower())
        if found is None:
            raise ToolError(f"unknown column '{column}' of table {ref.name}", code="unknown_column",
                            location=Location(field="column"), suggestions=nearest(column, visible))
        return exp.column(found, quoted=True)

    def get_col_values(self, table: str, column: str, limit: int | None = None) -> dict[str, Any]:
        ref = self.resolve(table)
        col = self._column(ref, column)
        k = _cap(limit, self.limits.values_default, self.limits.values_max)
        count = exp.Count(this=exp.Star())
        query = (exp.select(col.as_("value"), count.as_("count")).from_(ref.node()).group_by(col.copy())
                 .order_by(exp.Ordered(this=exp.column("count"), desc=True), exp.Ordered(this=exp.column("value")))
                 .limit(k + 1))
        result = self._execute(self._as_role(query), k + 1)
        self._seen(ref)
        return {"table": ref.name, "column": col.name, "values": [{"value": v, "count": n} for v, n in result.rows[:k]],
                "more": len(result.rows) > k}

    def find_rows(self, table: str, column: str, terms: list[str], limit: int | None = None) -> dict[str, Any]:
        ref = self.resolve(table)
        col = self._column(ref, column)
        if not terms:
            raise ToolError("find_rows needs at least one term", location=Location(field="terms"))
        text = exp.Lower(this=exp.Cast(this=col, to=exp.DataType.build("text")))
        matches = [exp.GT(this=exp.StrPosition(this=text.copy(), substr=exp.Literal.string(t.lower())),
                          expression=exp.Literal.number(0)) for t in terms[: self.limits.terms_max]]
        k = _cap(limit, self.limits.find_rows_max, self.limits.find_rows_max)
        query = exp.select(exp.Star()).from_(ref.node()).where(exp.or_(*matches)).limit(k + 1)
        result = self._execute(self._as_role(query), k + 1)
        self._seen(ref)
        return {"table": ref.name, "column": col.name, "columns": result.columns, "rows": result.rows[:k],
                "more": len(result.rows) > k}

    def profile_column(self, table: str, column: str) -> dict[str, Any]:
        ref = self.resolve(table)
        col = self._column(ref, column)
        query = exp.select(exp.Count(this=exp.Star()).as_("row_count"), exp.Count(this=col.copy()).as_("non_null"),
                           exp.Count(this=exp.Distinct(expressions=[col.copy()])).as_("distinct_count"),
                           exp.Min(this=col.copy()).as_("min"), exp.Max(this=col.copy()).as_("max")).from_(ref.node())
        result = self._execute(self._as_role(query), 1)
        rows, non_null, distinct, low, high = result.rows[0]
        top = self.get_col_values(table, column, self.limits.top_values)
        return {"table": ref.name, "column": col.name, "row_count": rows,
                "null_share": round(1 - non_null / rows, 4) if rows else None, "distinct_count": distinct,
                "min": low, "max": high, "top_values": top["values"]}

    # -- read_query, python ---------------------------------------------------------------------------
    def read_query(self, sql: str) -> dict[str, Any]:
        tree = check_read_only(sql, self.layer.dialect)
        ctes = cte_names(tree)
        policy = policy_for(self.layer.semantic)
        for finding in policy.findings(tree):
            if finding.kind == CATALOG_REFUSED:
                raise ToolError(f"'{finding.node.sql(dialect=self.layer.dialect)}' is a system catalog; use list_tables and "
                                "describe_table instead", code=CATALOG_REFUSED, location=Location(field="sql"))
            if finding.kind == NOT_A_TABLE:
                raise ToolError(f"'{finding.node.name}' is a semantic model, not a table; read its physical table "
                                f"{finding.suggestions[0] if finding.suggestions else ''}",
                                code=NOT_A_TABLE, location=Location(field="sql"))
            raise finding.error()  # a function or table function off the allow-list, a table outside the layer
        rewritten = self._as_role(tree)
        cap = self.limits.read_query_rows
        result = self._execute(rewritten, cap)  # regenerated from the checked tree, never the model's text
        for table in tree.find_all(exp.Table):
            if not (len(table_key(table)) == 1 and table_key(table)[0] in ctes) and self.on_table is not None:
                self.on_table(table)
        return {"columns": result.columns, "rows": result.rows, "row_count": result.row_count,
                "truncated": result.truncated, "note": f"at most {cap} rows; this is not the final answer"}

    def python(self, code: str) -> dict[str, Any]:
        if not self.limits.python_enabled:
            raise ToolError("the python tool is off for this run (enable it explicitly)", code="tool_disabled")
        from .sandbox import run_python

        return run_python(code).to_json()

    # -- plumbing ----------------------------------------------------------------------------------
    def _as_role(self, tree: exp.Expression) -> exp.Expression:
        """The query as the role may run it (filtered subqueries), or the role's refusal."""
        return apply_role_to_sql(tree, self.layer.semantic, self.layer.graph, self.role_obj)

    def _execute(self, tree: exp.Expression, max_rows: int) -> Any:
        sql = policy_for(self.layer.semantic).render(tree)
        return self.executor.execute(sql, max_rows=max_rows, timeout_s=self.limits.timeout_s)


def _qualify_columns(node: exp.Expression, table: str) -> exp.Expression:
    out = node.copy()
    for c in [out] if isinstance(out, exp.Column) else list(out.find_all(exp.Column)):
        if not c.table:
            c.set("table", exp.to_identifier(table))
    return out


def _cap(value: int | None, default: int, most: int) -> int:
    return max(1, min(most, value if value is not None else default))


def _str(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"'{key}' is required (a non-empty string)", location=Location(field=key))
    return value


def _opt_str(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ToolError(f"'{key}' must be a string", location=Location(field=key))
    return value


def _opt_int(args: Mapping[str, Any], key: str) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
        raise ToolError(f"'{key}' must be a whole number", location=Location(field=key))
    return int(value)


def _terms(args: Mapping[str, Any]) -> list[str]:
    value = args.get("terms")
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(t, (str, int, float)) for t in value):
        raise ToolError("'terms' must be a non-empty list of strings", location=Location(field="terms"))
    return [str(t) for t in value if str(t)]


# -- declarations for models (every provider) and MCP ---------------------------------------------------
_TABLE = {"type": "string", "description": "physical table name, as list_tables shows it"}
_COLUMN = {"type": "string", "description": "column name, as describe_table shows it"}


def explore_tool_specs(names: tuple[str, ...] | list[str] = EXPLORE_TOOLS) -> list[ToolSpec]:
    """The function declarations of the named exploration tools (descriptions say when to use each)."""
    specs = {
        LIST_MODELS: ToolSpec(LIST_MODELS, "Every semantic model with its description. With a question, each model "
                              "carries directive relevant|irrelevant and a short reason: start from the relevant ones.",
                              {"type": "object", "properties": {"question": {"type": "string",
                               "description": "the question being answered (optional)"}}}),
        LIST_TABLES: ToolSpec(LIST_TABLES, "The physical tables you may read, with the semantic model wrapping each.",
                              {"type": "object", "properties": {}}),
        DESCRIBE_TABLE: ToolSpec(DESCRIBE_TABLE, "Columns of a physical table with types, nullability, primary and "
                                 "foreign keys (read from the database's catalog).",
                                 {"type": "object", "properties": {"table": _TABLE}, "required": ["table"]}),
        GET_JOIN_INFO: ToolSpec(GET_JOIN_INFO, "How a table joins others: the layer's declared joins (with their ON "
                                "conditions, which may clean dirty keys) and the database's foreign keys.",
                                {"type": "object", "properties": {"table": _TABLE}, "required": ["table"]}),
        GET_COL_VALUES: ToolSpec(GET_COL_VALUES, "Distinct values of a column, most frequent first, with counts "
                                 "(use it to learn exact spellings before filtering).",
                                 {"type": "object", "properties": {"table": _TABLE, "column": _COLUMN, "limit": {
                                     "type": "integer", "description": "most values to return (default 20, at most 100)"}},
                                  "required": ["table", "column"]}),
        FIND_ROWS: ToolSpec(FIND_ROWS, "Rows whose column contains any of the terms (case-insensitive substring match).",
                            {"type": "object", "properties": {"table": _TABLE, "column": _COLUMN, "terms": {
                                "type": "array", "items": {"type": "string"}, "description": "text to look for"}},
                             "required": ["table", "column", "terms"]}),
        PROFILE_COLUMN: ToolSpec(PROFILE_COLUMN, "A column's profile: row count, NULL share, distinct count, min, max "
                                 "and top values.", {"type": "object", "properties": {"table": _TABLE, "column": _COLUMN},
                                                     "required": ["table", "column"]}),
        READ_QUERY: ToolSpec(READ_QUERY, "Run one read-only exploratory SELECT (at most 50 rows). Not the final answer: "
                             "finish with execute.", {"type": "object", "properties": {"sql": {
                                 "type": "string", "description": "one SELECT in the database's dialect"}}, "required": ["sql"]}),
        PYTHON: ToolSpec(PYTHON, "Run Python code in a sandbox (no network, no database, CPU/memory/time limits); "
                         "print what you need.", {"type": "object", "properties": {"code": {"type": "string"}},
                                                  "required": ["code"]}),
    }
    return [specs[n] for n in names]
