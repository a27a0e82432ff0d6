"""The database's own catalog, read through an executor: tables, views, columns, keys and comments.

One reader, two uses:

* the agent's exploration tools ask lazily, table by table, across every schema (`tables`, `columns`,
  `foreign_keys`), from `information_schema` (DuckDB, PostgreSQL, MySQL/MariaDB, Snowflake, Trino) or
  SQLite's `sqlite_master` and `pragma_*` table functions, so any backend answers; a backend whose
  catalog cannot be read raises EngineError and the caller falls back to the layer's tables;
* `smq init` reads one schema whole (`introspect`), with comments and unique constraints, from each
  engine's richest catalog (DuckDB's `duckdb_*()` functions, `pg_catalog`, MySQL's
  `information_schema`, SQLite's pragma table functions).

Every query is a sqlglot tree rendered in the executor's dialect (the fixed catalog queries are
written as SQL with `:name` placeholders, parsed once per dialect, and get their values as literal
nodes) and runs through the executor like any read-only query: the read-only guard, the row cap and
the timeout apply, and no connection is opened beside the executor's own.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

import sqlglot
from sqlglot import exp

from engine.dialects import dialect as dialect_of, introspectable
from engine.errors import EngineError

from .executors.base import Executor

SKIP_SCHEMAS = ("information_schema", "pg_catalog", "pg_toast", "mysql", "performance_schema", "sys")
CATALOG_TIMEOUT_S = 10.0  # the agent's lazy reads
MAX_TABLES = 2000
INTROSPECT_TIMEOUT_S = 300.0  # `smq init` reads a whole schema once
INTROSPECT_MAX_ROWS = 1_000_000


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
    comment: str = ""


@dataclass
class ForeignKey:
    columns: list[str]
    ref_table: str
    ref_columns: list[str]  # empty: the referenced table's primary key (SQLite allows that)
    ref_schema: str | None = None


@dataclass
class TableInfo:
    """One table or view of an introspected schema, with what its catalog declares."""

    name: str
    columns: list[ColumnInfo] = field(default_factory=list)
    primary_key: tuple[str, ...] = ()
    unique: list[tuple[str, ...]] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    comment: str = ""
    is_view: bool = False
    schema: str | None = None  # set when not the default schema (it then qualifies the table)


class Catalog:
    """Catalog reads for one database; the lazy reads are cached per instance (one tool session)."""

    def __init__(self, executor: Executor, dialect: str | None = None) -> None:
        self.executor = executor
        self.dialect = dialect or executor.dialect
        # SQLite's catalog is sqlite_master and pragma table functions, every other engine's information_schema
        self._pragmas = not dialect_of(self.dialect).information_schema
        self._tables: list[TableRef] | None = None
        self._columns: dict[tuple[str, ...], list[ColumnInfo]] = {}

    def _run(self, query: exp.Expression, max_rows: int = MAX_TABLES, timeout_s: float = CATALOG_TIMEOUT_S) -> list[list[Any]]:
        return self.executor.execute(query.sql(dialect=self.dialect), max_rows=max_rows, timeout_s=timeout_s).rows

    # -- tables ------------------------------------------------------------------------------------
    def tables(self) -> list[TableRef]:
        """Every base table and view; raises EngineError when the catalog cannot be read."""
        if self._tables is None:
            self._tables = self._read_tables()
        return self._tables

    def _read_tables(self) -> list[TableRef]:
        if self._pragmas:
            q = (exp.select("name", "type").from_("sqlite_master")
                 .where(exp.column("type").isin(exp.Literal.string("table"), exp.Literal.string("view")))
                 .where(exp.Not(this=exp.column("name").like(exp.Literal.string("sqlite_%")))).order_by("name"))
            return [TableRef(r[0], None, "view" if r[1] == "view" else "table") for r in self._run(q)]
        q = (exp.select("table_schema", "table_name", "table_type").from_("information_schema.tables")
             .where(exp.Not(this=exp.func("LOWER", exp.column("table_schema")).isin(*[exp.Literal.string(s) for s in SKIP_SCHEMAS])))
             .order_by("table_schema", "table_name"))
        return [TableRef(r[1], r[0], "view" if "VIEW" in str(r[2]).upper() else "table") for r in self._run(q)]

    # -- columns and keys ----------------------------------------------------------------------------
    def columns(self, table: TableRef) -> list[ColumnInfo]:
        if table.key not in self._columns:
            self._columns[table.key] = self._read_columns(table)
        return self._columns[table.key]

    def _read_columns(self, table: TableRef) -> list[ColumnInfo]:
        if self._pragmas:
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
            if self._pragmas:
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

    # -- one schema, whole (smq init) ----------------------------------------------------------------
    def introspect(self, schema: str | None = None) -> list[TableInfo]:
        """Every table and view of one schema (DuckDB `main`, PostgreSQL `public`, MySQL the connected
        database by default; SQLite has one), with declared keys, unique constraints and comments."""
        backend = self.executor.backend
        target = dialect_of(backend).introspector
        if target is None:
            raise ValueError(f"reading a whole schema is supported for {', '.join(d.name for d in introspectable())}, not {backend}")
        module, _, name = target.partition(":")
        reader: Callable[[Catalog, str | None], list[TableInfo]] = getattr(import_module(module), name)
        return reader(self, schema)

    def _query(self, text: str, **values: Any) -> list[list[Any]]:
        """Run a fixed catalog query; `:name` placeholders become literals of `values`."""
        tree = exp.replace_placeholders(_parsed(text, self.dialect).copy(), **values)
        result = self.executor.execute(tree.sql(dialect=self.dialect), max_rows=INTROSPECT_MAX_ROWS, timeout_s=INTROSPECT_TIMEOUT_S)
        if result.truncated:
            raise ValueError(f"the catalog has more than {INTROSPECT_MAX_ROWS:,} rows for one query")
        return result.rows


@functools.lru_cache(maxsize=64)
def _parsed(text: str, dialect: str) -> exp.Expr:
    return sqlglot.parse_one(text, read=dialect)


def _quoted(*names: str) -> list[exp.Column]:
    return [exp.column(n, quoted=True) for n in names]


def _table_function(name: str, table: str) -> exp.Table:
    """`pragma_table_info('t')` as a FROM item (SQLite's table-valued pragma)."""
    return exp.Table(this=exp.Anonymous(this=name, expressions=[exp.Literal.string(table)]))


def _in_table(table: TableRef, alias: str | None = None) -> exp.Expr:
    cond: exp.Expr = exp.column("table_name", alias).eq(exp.Literal.string(table.name))
    if table.schema:
        cond = exp.and_(cond, exp.column("table_schema", alias).eq(exp.Literal.string(table.schema)))
    return cond


# -- SQLite ---------------------------------------------------------------------------------------------
def introspect_sqlite(catalog: Catalog, schema: str | None) -> list[TableInfo]:
    q = catalog._query
    tables = []
    for name, kind in q("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
                        "AND name NOT LIKE 'sqlite~_%' ESCAPE '~'"):
        info = q("SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(:t) ORDER BY cid", t=name)
        columns = [ColumnInfo(r[1], r[2] or "", nullable=not r[3] and not r[5]) for r in info]
        pk = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
        table = TableInfo(name, columns, primary_key=pk, is_view=kind == "view")
        fks: dict[int, list[list[Any]]] = defaultdict(list)
        for r in q("SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(:t) ORDER BY id, seq", t=name):
            fks[r[0]].append(r)
        for parts in fks.values():
            refs = [r[4] for r in parts if r[4]]
            table.foreign_keys.append(ForeignKey([r[3] for r in parts], parts[0][2], refs if len(refs) == len(parts) else []))
        for r in q("SELECT seq, name, \"unique\", origin FROM pragma_index_list(:t) ORDER BY seq", t=name):
            if r[2] and r[3] != "pk":
                cols = tuple(c[2] for c in q("SELECT seqno, cid, name FROM pragma_index_info(:i) ORDER BY seqno", i=r[1]) if c[2])
                if cols:
                    table.unique.append(cols)
        tables.append(table)
    return tables


# -- DuckDB ---------------------------------------------------------------------------------------------
_DUCKDB_HERE = "schema_name = :schema AND database_name = current_database()"


def introspect_duckdb(catalog: Catalog, schema: str | None) -> list[TableInfo]:
    q, schema = catalog._query, schema or "main"
    shown = None if schema == "main" else schema
    tables: dict[str, TableInfo] = {}
    for name, comment in q(f"SELECT table_name, comment FROM duckdb_tables() WHERE NOT internal AND {_DUCKDB_HERE}", schema=schema):
        tables[name] = TableInfo(name, comment=comment or "", schema=shown)
    for name, comment in q(f"SELECT view_name, comment FROM duckdb_views() WHERE NOT internal AND {_DUCKDB_HERE}", schema=schema):
        tables[name] = TableInfo(name, comment=comment or "", is_view=True, schema=shown)
    for tname, cname, dtype, nullable, comment in q(
            "SELECT table_name, column_name, data_type, is_nullable, comment FROM duckdb_columns() "
            f"WHERE {_DUCKDB_HERE} ORDER BY table_name, column_index", schema=schema):
        if tname in tables:
            tables[tname].columns.append(ColumnInfo(cname, dtype, nullable=bool(nullable), comment=comment or ""))
    for tname, ctype, cols, ref_table, ref_cols in q(
            "SELECT table_name, constraint_type, constraint_column_names, referenced_table, referenced_column_names "
            f"FROM duckdb_constraints() WHERE {_DUCKDB_HERE} "
            "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')", schema=schema):
        _add_constraint(tables.get(tname), ctype, cols, ref_table, ref_cols)
    return list(tables.values())


def _add_constraint(table: TableInfo | None, kind: str, cols: list[str], ref_table: str | None, ref_cols: list[str] | None) -> None:
    if table is None:
        return
    if kind == "PRIMARY KEY":
        table.primary_key = tuple(cols)
    elif kind == "UNIQUE":
        table.unique.append(tuple(cols))
    elif kind == "FOREIGN KEY" and ref_table:
        table.foreign_keys.append(ForeignKey(list(cols), ref_table, list(ref_cols or ())))


# -- PostgreSQL -----------------------------------------------------------------------------------------
_PG_RELATIONS = "c.relkind IN ('r', 'v', 'm', 'p', 'f')"
_PG_KEY_NAMES = ("ARRAY(SELECT a.attname FROM unnest(con.{keys}) WITH ORDINALITY k(n, i) JOIN pg_attribute a "
                 "ON a.attrelid = con.{rel} AND a.attnum = k.n ORDER BY k.i)")


def introspect_postgres(catalog: Catalog, schema: str | None) -> list[TableInfo]:
    q, schema = catalog._query, schema or "public"
    tables: dict[str, TableInfo] = {}
    for name, relkind, comment in q(
            "SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') FROM pg_class c "
            f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = :schema AND {_PG_RELATIONS} "
            "AND NOT c.relispartition", schema=schema):
        tables[name] = TableInfo(name, comment=comment or "", is_view=relkind in ("v", "m"))
    for tname, cname, dtype, nullable, comment in q(
            "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, col_description(c.oid, a.attnum) "
            "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            f"WHERE n.nspname = :schema AND a.attnum > 0 AND NOT a.attisdropped AND {_PG_RELATIONS} ORDER BY c.relname, a.attnum",
            schema=schema):
        if tname in tables:
            tables[tname].columns.append(ColumnInfo(cname, dtype, nullable=nullable, comment=comment or ""))
    kinds = {"p": "PRIMARY KEY", "u": "UNIQUE", "f": "FOREIGN KEY"}
    for tname, ctype, cols, ref_table, ref_schema, ref_cols in q(
            f"SELECT c.relname, con.contype, {_PG_KEY_NAMES.format(keys='conkey', rel='conrelid')}, fc.relname, fn.nspname, "
            f"{_PG_KEY_NAMES.format(keys='confkey', rel='confrelid')} "
            "FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "LEFT JOIN pg_class fc ON fc.oid = con.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace "
            "WHERE n.nspname = :schema AND con.contype IN ('p', 'u', 'f')", schema=schema):
        if ctype == "f" and ref_schema != schema:
            continue  # a reference into another schema cannot become a join of this layer
        _add_constraint(tables.get(tname), kinds[ctype], cols, ref_table, ref_cols)
    return list(tables.values())


# -- MySQL / MariaDB ------------------------------------------------------------------------------------
def introspect_mysql(catalog: Catalog, schema: str | None) -> list[TableInfo]:
    q = catalog._query
    if schema is None:
        schema = q("SELECT DATABASE()")[0][0]
    tables: dict[str, TableInfo] = {}
    for name, ttype, comment in q(
            "SELECT TABLE_NAME, TABLE_TYPE, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = :db", db=schema):
        is_view = "VIEW" in str(ttype).upper()
        tables[name] = TableInfo(name, comment="" if is_view else (comment or ""), is_view=is_view)
    for tname, cname, ctype, nullable, comment in q(
            "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_COMMENT FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA = :db ORDER BY TABLE_NAME, ORDINAL_POSITION", db=schema):
        if tname in tables:
            tables[tname].columns.append(ColumnInfo(cname, str(ctype), nullable=nullable == "YES", comment=comment or ""))
    constraints: dict[tuple[str, str], dict[str, Any]] = {}
    for tname, cname, ctype, col, ref_table, ref_col in q(
            "SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, c.CONSTRAINT_TYPE, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, "
            "k.REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.TABLE_CONSTRAINTS c "
            "ON c.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND c.TABLE_NAME = k.TABLE_NAME AND c.CONSTRAINT_NAME = k.CONSTRAINT_NAME "
            "WHERE k.TABLE_SCHEMA = :db ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION", db=schema):
        entry = constraints.setdefault((tname, cname), {"type": ctype, "cols": [], "ref": ref_table, "ref_cols": []})
        entry["cols"].append(col)
        if ref_col:
            entry["ref_cols"].append(ref_col)
    for (tname, _), c in constraints.items():
        _add_constraint(tables.get(tname), c["type"], c["cols"], c["ref"], c["ref_cols"])
    return list(tables.values())
