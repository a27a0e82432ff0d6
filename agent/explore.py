"""The fine-grained exploration tools of docs/directives.md, for `smq ask --tools`, REST and MCP.

`listModels` (with directives for a question), `listTables`, `describeTable`, `getJoinInfo`,
`getColValues`, `findRows`, `profileColumn`, `readQuery` and `python`. Table names are
physical names. Every tool runs as the caller's access role: a tool's SQL is a sqlglot tree that
goes through `engine.access.apply_role_to_sql` before the executor (row filters become filtered
subqueries; tables a row-filtered role may not read are refused), and the columns a role may see
are the ones the database returns for `SELECT * FROM <table as the role sees it> LIMIT 0`, so
hidden columns are absent everywhere (describe, values, rows, profiles). Catalog reads are the
tool's own queries (smq_db/catalog.py), never the model's.

Mistakes (unknown table or column, bad arguments) raise `ToolError` with a message the model can
act on; the agent and MCP turn it into `{"error": ..., "code": ...}`, REST into a 400 problem. The
tools are declared (names, argument schemas, handlers) in agent/tool_registry.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from engine import Layer
from engine.access.readpolicy import (
    CATALOG_REFUSED,
    NOT_A_TABLE,
    cte_names,
    policy_for,
)
from engine.access.roles import apply_role_to_sql
from engine.errors import EngineError, Location, nearest
from smq_db.catalog import Catalog, ColumnInfo, ForeignKey, TableRef
from smq_db.executors import Executor, QueryResult, check_read_only
from smq_db.stats import column_stats_query, top_values_query

from .guards import is_catalog, table_key
from .providers.base import ToolSpec
from .tool_registry import (  # noqa: F401 - re-exported: the names callers import from here
    DESCRIBE_TABLE,
    EXPLORE_TOOLS,
    FIND_ROWS,
    GET_COL_VALUES,
    GET_JOIN_INFO,
    LIST_MODELS,
    LIST_TABLES,
    PROFILE_COLUMN,
    PYTHON,
    READ_QUERY,
    ToolError,
    run_explore,
    specs,
)


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

    def __init__(self, layer: Layer, executor: Executor, *, role: str | None = None, limits: ExploreLimits | None = None,
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
        self.last_rows: dict[str, Any] | None = None  # the last readQuery result: the python tool's default data

    # -- dispatch -------------------------------------------------------------------------------
    def call(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """Run tool `name` with JSON arguments (parsed by its declaration); raises ToolError (or another EngineError)."""
        return run_explore(self, name, args)

    # -- listModels -----------------------------------------------------------------------------
    def list_models(self, question: str | None = None) -> dict[str, Any]:
        models = self.layer.model_list()
        saved = self.layer.saved_query_list(self.role)  # run one by name: convertSmqToSql {"saved_query": NAME}
        if not question:
            return {"models": models, **({"saved_queries": saved} if saved else {})}
        from .directives import directives_for

        verdict = directives_for(self.layer, question, role=self.role, provider=self.provider,
                                 executor=self.executor if self.limits.sample_values else None).by_model()
        return {"models": [{**m, "directive": "relevant" if verdict[m["name"]].relevant else "irrelevant",
                            "reason": verdict[m["name"]].reason} for m in models],
                **({"saved_queries": saved} if saved else {})}

    # -- tables -----------------------------------------------------------------------------------
    def _tables(self) -> list[TableRef]:
        try:
            return [t for t in self.catalog.tables() if self._readable(t)]
        except EngineError:
            return self._layer_tables()

    def _layer_tables(self) -> list[TableRef]:
        out: dict[tuple[str, ...], TableRef] = {}
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
            raise ToolError(f"'{name}' is not a table name; listTables shows them", code="unknown_table",
                            location=Location(field="table")) from None
        key = table_key(node)
        if is_catalog(key):
            raise ToolError(f"'{name}' is a system catalog; use listTables and describeTable instead",
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

    # -- describeTable, getJoinInfo ------------------------------------------------------------
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
            on = exp.and_(*[exp.EQ(this=_qualify_columns(lk, getattr(left, "name", edge.from_model)),
                                   expression=_qualify_columns(rk, getattr(right, "name", edge.to_model)))
                            for lk, rk in edge.key_pairs()])  # every pair of a composite key
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
        result = self._execute(self._as_role(top_values_query(ref.node(), col, k + 1)), k + 1)
        self._seen(ref)
        return {"table": ref.name, "column": col.name, "values": [{"value": v, "count": n} for v, n in result.rows[:k]],
                "more": len(result.rows) > k}

    def find_rows(self, table: str, column: str, terms: list[str], limit: int | None = None) -> dict[str, Any]:
        ref = self.resolve(table)
        col = self._column(ref, column)
        if not terms:
            raise ToolError("findRows needs at least one term", location=Location(field="terms"))
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
        query = column_stats_query(ref.node(), col.name)
        stats = query.read(self._execute(self._as_role(query.tree()), 1).rows[0])
        rows, found = stats.rows, stats.columns[col.name]
        top = self.get_col_values(table, column, self.limits.top_values)
        return {"table": ref.name, "column": col.name, "row_count": rows,
                "null_share": round(1 - found.non_null / rows, 4) if rows else None, "distinct_count": found.distinct,
                "min": found.low, "max": found.high, "top_values": top["values"]}

    # -- readQuery, python ---------------------------------------------------------------------------
    def read_query(self, sql: str) -> dict[str, Any]:
        tree = check_read_only(sql, self.layer.dialect)
        ctes = cte_names(tree)
        policy = policy_for(self.layer.semantic)
        for finding in policy.findings(tree):
            if finding.kind == CATALOG_REFUSED:
                raise ToolError(f"'{finding.node.sql(dialect=self.layer.dialect)}' is a system catalog; use listTables and "
                                "describeTable instead", code=CATALOG_REFUSED, location=Location(field="sql"))
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
        self.last_rows = {"columns": result.columns, "rows": result.rows}
        return {"columns": result.columns, "rows": result.rows, "row_count": result.row_count,
                "truncated": result.truncated, "note": f"at most {cap} rows; this is not the final answer"}

    def python(self, code: str, data: Any = None) -> dict[str, Any]:
        """Run code in the OS sandbox (agent/sandbox.py), handed `data` or else the last readQuery result."""
        if not self.limits.python_enabled:
            raise ToolError("the python tool is off for this run (enable it explicitly)", code="tool_disabled")
        from .sandbox import python_tool_refusal, run_python

        refusal = python_tool_refusal(self.role)
        if refusal is not None:
            raise ToolError(refusal.message, code=refusal.code)
        return run_python(code, data=data if data is not None else self.last_rows).to_json()

    # -- plumbing ----------------------------------------------------------------------------------
    def _as_role(self, tree: exp.Expression) -> exp.Expression:
        """The query as the role may run it (filtered subqueries), or the role's refusal."""
        return apply_role_to_sql(tree, self.layer.semantic, self.layer.graph, self.role_obj)

    def _execute(self, tree: exp.Expression, max_rows: int) -> QueryResult:
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


def explore_tool_specs(names: tuple[str, ...] | list[str] = EXPLORE_TOOLS) -> list[ToolSpec]:
    """The function declarations of the named exploration tools (from agent/tool_registry.py)."""
    return specs(tuple(names))
