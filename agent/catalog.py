"""The database's own catalog, read by the exploration tools (never by the model).

Tables, columns, primary and foreign keys come from `information_schema` (DuckDB, PostgreSQL,
MySQL/MariaDB, Snowflake, Trino) or SQLite's `sqlite_master` and `pragma_*` table functions. Each
query is a sqlglot expression rendered in the database's dialect and run through the executor like
any read-only query, so the executor's read-only guard, row cap and timeout apply. A backend whose
catalog cannot be read (BigQuery without a dataset, a restricted login) falls back to the tables the
layer declares, so the tools still work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from engine.errors import EngineError

SKIP_SCHEMAS = ("information_schema", "pg_catalog", "pg_toast", "mysql", "performance_schema", "sys")
CATALOG_TIMEOUT_S = 10.0
MAX_TABLES = 2000


@dataclass(frozen=True)
class TableRef:
    """A physical table as the catalog names it; `key` compares case-insensitively, outermost part first."""

    name: str
    schema: str | None = None
    kind: str = "table"

    @property
    def key(self) -> tuple[str, ...]:
        return tuple(p.lower() for p in ((self.schema,) if self.schema else ()) + (self.name,))

    def node(self) -> exp.Table:
        return exp.Table(this=exp.to_identifier(self.name, quoted=True),
                         db=exp.to_identifier(self.schema, quoted=True) if self.schema else None)

    def display(self, qualify: bool) -> str:
        return f"{self.schema}.{self.name}" if qualify and self.schema else self.name


@dataclass
class ColumnInfo:
    name: str
    type: str | None
    nullable: bool | None
    primary_key: bool = False


@dataclass
class ForeignKey:
    columns: list[str]
    ref_table: str
    ref_columns: list[str]
    ref_schema: str | None = None


@dataclass
class Catalog:
    """Catalog reads for one database; results are small and cached per instance (one tool session)."""

    executor: Any
    dialect: str
    _tables: list[TableRef] | None = None
    _columns: dict[tuple[str, ...], list[ColumnInfo]] = field(default_factory=dict)

    def _run(self, query: exp.Expression, max_rows: int = MAX_TABLES) -> list[list[Any]]:
        return self.executor.execute(query.sql(dialect=self.dialect), max_rows=max_rows, timeout_s=CATALOG_TIMEOUT_S).rows

    # -- tables -------------------------------------------------------------------------------
    def tables(self) -> list[TableRef]:
        """Every base table and view; raises EngineError when the catalog cannot be read."""
        if self._tables is None:
            self._tables = self._read_tables()
        return self._tables

    def _read_tables(self) -> list[TableRef]:
        if self.dialect == "sqlite":
            q = (exp.select("name", "type").from_("sqlite_master")
                 .where(exp.column("type").isin(exp.Literal.string("table"), exp.Literal.string("view")))
                 .where(exp.Not(this=exp.column("name").like(exp.Literal.string("sqlite_%")))).order_by("name"))
            return [TableRef(r[0], None, "view" if r[1] == "view" else "table") for r in self._run(q)]
        q = (exp.select("table_schema", "table_name", "table_type").from_("information_schema.tables")
             .where(exp.Not(this=exp.func("LOWER", exp.column("table_schema")).isin(*[exp.Literal.string(s) for s in SKIP_SCHEMAS])))
             .order_by("table_schema", "table_name"))
        return [TableRef(r[1], r[0], "view" if "VIEW" in str(r[2]).upper() else "table") for r in self._run(q)]

    # -- columns and keys ---------------------------------------------------------------------------
    def columns(self, table: TableRef) -> list[ColumnInfo]:
        if table.key not in self._columns:
            self._columns[table.key] = self._read_columns(table)
        return self._columns[table.key]

    def _read_columns(self, table: TableRef) -> list[ColumnInfo]:
        if self.dialect == "sqlite":
            q = exp.select(*_quoted("name", "type", "notnull", "pk")).from_(_table_function("pragma_table_info", table.name)).order_by(*_quoted("cid"))
            return [ColumnInfo(r[0], r[1] or None, not r[2], bool(r[3])) for r in self._run(q)]
        q = (exp.select("column_name", "data_type", "is_nullable").from_("information_schema.columns")
             .where(_in_table(table)).order_by("ordinal_position"))
        columns = [ColumnInfo(r[0], r[1], str(r[2]).upper() != "NO") for r in self._run(q)]
        try:
            keys = set(self._constraint_columns(table, "PRIMARY KEY"))
        except EngineError:
            keys = set()
        for c in columns:
            c.primary_key = c.name in keys
        return columns

    def _constraint_columns(self, table: TableRef, kind: str) -> list[str]:
        tc, kcu = exp.to_table("information_schema.table_constraints", alias="tc"), exp.to_table("information_schema.key_column_usage", alias="kcu")
        on = exp.and_(exp.column("constraint_name", "tc").eq(exp.column("constraint_name", "kcu")),
                      exp.column("table_name", "tc").eq(exp.column("table_name", "kcu")))
        q = (exp.select(exp.column("column_name", "kcu")).from_(tc).join(kcu, on=on)
             .where(exp.column("constraint_type", "tc").eq(exp.Literal.string(kind)))
             .where(_in_table(table, "tc")).order_by(exp.column("ordinal_position", "kcu")))
        return [r[0] for r in self._run(q)]

    def foreign_keys(self, table: TableRef) -> list[ForeignKey]:
        """Declared foreign keys of a table ([] when the backend does not expose them)."""
        try:
            if self.dialect == "sqlite":
                q = (exp.select(*_quoted("id", "table", "from", "to")).from_(_table_function("pragma_foreign_key_list", table.name))
                     .order_by(*_quoted("id", "seq")))
                grouped: dict[Any, ForeignKey] = {}
                for fk_id, ref, col, ref_col in self._run(q):
                    fk = grouped.setdefault(fk_id, ForeignKey([], ref, []))
                    fk.columns.append(col)
                    if ref_col is not None:
                        fk.ref_columns.append(ref_col)
                return list(grouped.values())
            return self._information_schema_fks(table)
        except EngineError:
            return []

    def _information_schema_fks(self, table: TableRef) -> list[ForeignKey]:
        tc = exp.to_table("information_schema.table_constraints", alias="tc")
        kcu = exp.to_table("information_schema.key_column_usage", alias="kcu")
        ccu = exp.to_table("information_schema.constraint_column_usage", alias="ccu")
        q = (exp.select(exp.column("constraint_name", "tc"), exp.column("column_name", "kcu"), exp.column("table_schema", "ccu"),
                        exp.column("table_name", "ccu"), exp.column("column_name", "ccu"))
             .from_(tc)
             .join(kcu, on=exp.column("constraint_name", "tc").eq(exp.column("constraint_name", "kcu")))
             .join(ccu, on=exp.column("constraint_name", "tc").eq(exp.column("constraint_name", "ccu")))
             .where(exp.column("constraint_type", "tc").eq(exp.Literal.string("FOREIGN KEY")))
             .where(_in_table(table, "tc")))
        grouped: dict[str, ForeignKey] = {}
        for name, col, ref_schema, ref_table, ref_col in self._run(q):
            fk = grouped.setdefault(name, ForeignKey([], ref_table, [], ref_schema))
            if col not in fk.columns:
                fk.columns.append(col)
            if ref_col not in fk.ref_columns:
                fk.ref_columns.append(ref_col)
        return list(grouped.values())


def _quoted(*names: str) -> list[exp.Column]:
    return [exp.column(n, quoted=True) for n in names]


def _table_function(name: str, table: str) -> exp.Table:
    """`pragma_table_info('t')` as a FROM item (SQLite's table-valued pragma)."""
    return exp.Table(this=exp.Anonymous(this=name, expressions=[exp.Literal.string(table)]))


def _in_table(table: TableRef, alias: str | None = None) -> exp.Expression:
    cond: exp.Expression = exp.column("table_name", alias).eq(exp.Literal.string(table.name))
    if table.schema:
        cond = exp.and_(cond, exp.column("table_schema", alias).eq(exp.Literal.string(table.schema)))
    return cond
