"""Reading a database's catalog: one function per backend, each returning the same `Table` objects.

Connections are opened read-only (SQLite `mode=ro`, DuckDB `read_only`, PostgreSQL read-only
transactions, MySQL `SET SESSION TRANSACTION READ ONLY`). The catalog queries are fixed text;
the queries over user tables are built with sqlglot in `profile.py`.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any, Callable

from sqlglot import exp

from smq_db.executors.base import import_driver
from .catalog import Column, ForeignKey, Table, declared_kind
from .urls import ConnectionSpec


class SourceError(RuntimeError):
    """The database cannot be reached or read."""


class QueryFailed(SourceError):
    """A query of ours failed on the database: a bug to report, with the SQL."""


class Source:
    """One open, read-only connection and the dialect its SQL is written in."""

    def __init__(self, spec: ConnectionSpec, conn: Any, query: Callable[[str, tuple], tuple[list[str], list[tuple]]]) -> None:
        self.spec = spec
        self.dialect = spec.dialect
        self.conn = conn
        self._query = query

    def query(self, sql: str | exp.Expression, params: tuple = ()) -> list[tuple]:
        text = sql if isinstance(sql, str) else sql.sql(dialect=self.dialect)
        try:
            return self._query(text, params)[1]
        except Exception as err:  # noqa: BLE001 - every driver has its own error classes
            raise QueryFailed(f"{type(err).__name__}: {str(err).strip()}\n  SQL: {text}") from None

    def table_ref(self, table: Table) -> exp.Table:
        """A quoted, schema-qualified reference to a user table."""
        return exp.Table(this=exp.to_identifier(table.name, quoted=True),
                         db=exp.to_identifier(table.schema, quoted=True) if table.schema else None)

    def run(self, sql: str) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of one query (the model-test runner's interface)."""
        columns, rows = self._query(sql, ())
        return columns, [list(r) for r in rows]

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_source(spec: ConnectionSpec) -> Source:
    """Connect read-only; raises SourceError (unreachable) or BackendUnavailable (driver missing)."""
    return {"sqlite": _open_sqlite, "duckdb": _open_duckdb, "postgres": _open_postgres, "mysql": _open_mysql}[spec.backend](spec)


def introspect(source: Source) -> list[Table]:
    """Every table and view of the database (or schema), with declared keys and comments."""
    reader = {"sqlite": introspect_sqlite, "duckdb": introspect_duckdb, "postgres": introspect_postgres,
              "mysql": introspect_mysql}[source.spec.backend]
    tables = reader(source)
    for table in tables:
        for col in table.columns:
            col.kind = declared_kind(col.type, source.dialect)
    return sorted(tables, key=lambda t: t.name.lower())


# -- SQLite -----------------------------------------------------------------------------------


def _open_sqlite(spec: ConnectionSpec) -> Source:
    try:
        conn = sqlite3.connect(f"{spec.path.resolve().as_uri()}?mode=ro", uri=True)
        conn.execute("PRAGMA query_only = ON")
        conn.text_factory = lambda b: b.decode("utf-8", errors="replace")  # Spider has Latin-1 bytes in places
    except sqlite3.Error as err:
        raise SourceError(f"cannot open SQLite file {spec.path}: {err}") from None

    def query(sql: str, params: tuple) -> tuple[list[str], list[tuple]]:
        cursor = conn.execute(sql, params)
        return [d[0] for d in cursor.description or ()], cursor.fetchall()

    return Source(spec, conn, query)


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="sqlite")


def introspect_sqlite(source: Source) -> list[Table]:
    rows = source.query("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite~_%' ESCAPE '~'")
    tables = []
    for name, kind in rows:
        info = source.query(f"PRAGMA table_info({_quoted(name)})")
        columns = [Column(r[1], r[2] or "", nullable=not r[3] and not r[5]) for r in info]
        pk = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
        table = Table(name, columns, primary_key=pk, is_view=kind == "view")
        fks: dict[int, list[tuple]] = defaultdict(list)
        for r in source.query(f"PRAGMA foreign_key_list({_quoted(name)})"):
            fks[r[0]].append(r)
        for parts in fks.values():
            parts.sort(key=lambda r: r[1])
            refs = tuple(r[4] for r in parts if r[4])
            table.foreign_keys.append(ForeignKey(tuple(r[3] for r in parts), parts[0][2], refs if len(refs) == len(parts) else ()))
        for r in source.query(f"PRAGMA index_list({_quoted(name)})"):
            if r[2] and r[3] != "pk":
                cols = tuple(c[2] for c in source.query(f"PRAGMA index_info({_quoted(r[1])})") if c[2])
                if cols:
                    table.unique.append(cols)
        tables.append(table)
    return tables


# -- DuckDB -----------------------------------------------------------------------------------


def _open_duckdb(spec: ConnectionSpec) -> Source:
    import duckdb

    try:
        conn = duckdb.connect(str(spec.path), read_only=True)
    except duckdb.Error as err:
        raise SourceError(f"cannot open DuckDB file {spec.path}: {err}") from None

    def query(sql: str, params: tuple) -> tuple[list[str], list[tuple]]:
        cursor = conn.execute(sql, list(params))
        return [d[0] for d in cursor.description or ()], cursor.fetchall()

    return Source(spec, conn, query)


def introspect_duckdb(source: Source) -> list[Table]:
    schema = source.spec.schema or "main"
    tables: dict[str, Table] = {}
    for name, comment in source.query("SELECT table_name, comment FROM duckdb_tables() WHERE NOT internal AND schema_name = ? "
                                      "AND database_name = current_database()", (schema,)):
        tables[name] = Table(name, [], comment=comment or "", schema=None if schema == "main" else schema)
    for name, comment in source.query("SELECT view_name, comment FROM duckdb_views() WHERE NOT internal AND schema_name = ? "
                                      "AND database_name = current_database()", (schema,)):
        tables[name] = Table(name, [], comment=comment or "", is_view=True, schema=None if schema == "main" else schema)
    for tname, cname, dtype, nullable, comment in source.query(
        "SELECT table_name, column_name, data_type, is_nullable, comment FROM duckdb_columns() WHERE schema_name = ? "
        "AND database_name = current_database() ORDER BY table_name, column_index", (schema,),
    ):
        if tname in tables:
            tables[tname].columns.append(Column(cname, dtype, nullable=bool(nullable), comment=comment or ""))
    for tname, ctype, cols, ref_table, ref_cols in source.query(
        "SELECT table_name, constraint_type, constraint_column_names, referenced_table, referenced_column_names "
        "FROM duckdb_constraints() WHERE schema_name = ? AND database_name = current_database() "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')", (schema,),
    ):
        table = tables.get(tname)
        if table is None:
            continue
        if ctype == "PRIMARY KEY":
            table.primary_key = tuple(cols)
        elif ctype == "UNIQUE":
            table.unique.append(tuple(cols))
        elif ref_table:
            table.foreign_keys.append(ForeignKey(tuple(cols), ref_table, tuple(ref_cols or ())))
    return list(tables.values())


# -- PostgreSQL -------------------------------------------------------------------------------


def _open_postgres(spec: ConnectionSpec) -> Source:
    psycopg = import_driver("psycopg", "psycopg[binary,pool]")
    try:
        conn = psycopg.connect(host=spec.host, port=spec.port, user=spec.user, password=spec.password, dbname=spec.database,
                               connect_timeout=10)
        conn.execute("SELECT set_config('search_path', %s, false)", [spec.schema or "public"])
        conn.commit()  # a session setting: it must outlive the rolled-back read-only transactions below
        conn.read_only = True
    except psycopg.Error as err:
        raise SourceError(f"cannot connect to PostgreSQL at {spec.host}:{spec.port}/{spec.database}: {str(err).strip()}") from None

    def query(sql: str, params: tuple) -> tuple[list[str], list[tuple]]:
        try:
            with conn.cursor() as cur:
                cur.execute(sql, params or None)
                return [d.name for d in cur.description or ()], cur.fetchall()
        finally:
            conn.rollback()

    return Source(spec, conn, query)


_PG_RELKINDS = "('r', 'v', 'm', 'p', 'f')"


def introspect_postgres(source: Source) -> list[Table]:
    schema = source.spec.schema or "public"
    tables: dict[str, Table] = {}
    for name, relkind, comment in source.query(
        f"SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') FROM pg_class c "
        f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN {_PG_RELKINDS} "
        "AND NOT c.relispartition", (schema,),
    ):
        tables[name] = Table(name, [], comment=comment or "", is_view=relkind in ("v", "m"))
    for tname, cname, dtype, nullable, comment in source.query(
        f"SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, col_description(c.oid, a.attnum) "
        f"FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        f"WHERE n.nspname = %s AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN {_PG_RELKINDS} ORDER BY c.relname, a.attnum",
        (schema,),
    ):
        if tname in tables:
            tables[tname].columns.append(Column(cname, dtype, nullable=nullable, comment=comment or ""))
    for tname, ctype, cols, ref_table, ref_schema, ref_cols in source.query(
        "SELECT c.relname, con.contype, "
        "ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a "
        "      ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i), "
        "fc.relname, fn.nspname, "
        "ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a "
        "      ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i) "
        "FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "LEFT JOIN pg_class fc ON fc.oid = con.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace "
        "WHERE n.nspname = %s AND con.contype IN ('p', 'u', 'f')", (schema,),
    ):
        table = tables.get(tname)
        if table is None:
            continue
        if ctype == "p":
            table.primary_key = tuple(cols)
        elif ctype == "u":
            table.unique.append(tuple(cols))
        elif ref_schema == schema:  # a reference into another schema cannot become a join of this layer
            table.foreign_keys.append(ForeignKey(tuple(cols), ref_table, tuple(ref_cols)))
    return list(tables.values())


# -- MySQL / MariaDB --------------------------------------------------------------------------


def _open_mysql(spec: ConnectionSpec) -> Source:
    pymysql = import_driver("pymysql", "pymysql")
    try:
        conn = pymysql.connect(host=spec.host, port=spec.port, user=spec.user, password=spec.password or "", database=spec.database,
                               connect_timeout=10, charset="utf8mb4", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("SET SESSION TRANSACTION READ ONLY")
    except pymysql.MySQLError as err:
        raise SourceError(f"cannot connect to MySQL/MariaDB at {spec.host}:{spec.port}/{spec.database}: {err.args[-1]}") from None

    def query(sql: str, params: tuple) -> tuple[list[str], list[tuple]]:
        with conn.cursor() as cur:
            cur.execute(sql, params or None)
            return [d[0] for d in cur.description or ()], list(cur.fetchall())

    return Source(spec, conn, query)


def introspect_mysql(source: Source) -> list[Table]:
    db = source.spec.database
    tables: dict[str, Table] = {}
    for name, ttype, comment in source.query(
        "SELECT TABLE_NAME, TABLE_TYPE, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s", (db,)
    ):
        is_view = "VIEW" in str(ttype).upper()
        tables[name] = Table(name, [], comment="" if is_view else (comment or ""), is_view=is_view)
    for tname, cname, ctype, nullable, comment in source.query(
        "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_COMMENT FROM information_schema.COLUMNS "
        "WHERE TABLE_SCHEMA = %s ORDER BY TABLE_NAME, ORDINAL_POSITION", (db,),
    ):
        if tname in tables:
            tables[tname].columns.append(Column(cname, str(ctype), nullable=nullable == "YES", comment=comment or ""))
    constraints: dict[tuple[str, str], dict[str, Any]] = {}
    for tname, cname, ctype, col, ref_table, ref_col in source.query(
        "SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, c.CONSTRAINT_TYPE, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME "
        "FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.TABLE_CONSTRAINTS c "
        "ON c.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND c.TABLE_NAME = k.TABLE_NAME AND c.CONSTRAINT_NAME = k.CONSTRAINT_NAME "
        "WHERE k.TABLE_SCHEMA = %s ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION", (db,),
    ):
        entry = constraints.setdefault((tname, cname), {"type": ctype, "cols": [], "ref": ref_table, "ref_cols": []})
        entry["cols"].append(col)
        if ref_col:
            entry["ref_cols"].append(ref_col)
    for (tname, _), c in constraints.items():
        table = tables.get(tname)
        if table is None:
            continue
        if c["type"] == "PRIMARY KEY":
            table.primary_key = tuple(c["cols"])
        elif c["type"] == "UNIQUE":
            table.unique.append(tuple(c["cols"]))
        elif c["type"] == "FOREIGN KEY" and c["ref"]:
            table.foreign_keys.append(ForeignKey(tuple(c["cols"]), c["ref"], tuple(c["ref_cols"])))
    return list(tables.values())
