"""In-memory DuckDB databases the listener answers from itself, never the warehouse.

* `CatalogDatabase`: one per (layer version, role), holding the catalog tables of engine/sql_api/catalog.py;
  a client's catalog query, rewritten by engine/sql_api/catalog_sql.py, runs there.
* `evaluate_over`: a BI tool's outer query over the rows of a semantic subquery that could not be folded
  into one SMQ, run over those rows (already bounded by SMQ_MAX_ROWS) in a throwaway database.

Both are locked as the DuckDB executor is (no files, no network, no extensions, configuration locked),
the SQL passes the read-only guard first, and a query is bounded by the service's row limit, result
budget and timeout (smq_db's `make_result` and `CancelTimer`), as every executor is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
from sqlglot import exp

from engine.lru import LruCache
from engine.sql_api.catalog import CatalogTable, catalog_tables
from engine.sql_api.catalog_sql import SCHEMA_PREFIX, TYPE_NAMES_TABLE
from engine.sql_api.pgtypes import TYPES
from engine.sql_api.tables import Table
from smq_db.executors.base import CancelTimer, QueryResult, description_types, make_result, timeout_message
from smq_db.executors.duckdb import LOCKED_CONFIG
from smq_db.executors.errors import ExecutionError, QueryTimeout
from smq_db.readonly import ensure_read_only

# PostgreSQL type name -> the DuckDB column type holding it (an OID is UINTEGER, so it reads back as an oid)
_DUCK_TYPES = {"oid": "UINTEGER", "int2": "SMALLINT", "int4": "INTEGER", "int8": "BIGINT", "float4": "FLOAT",
               "float8": "DOUBLE", "numeric": "DOUBLE", "bool": "BOOLEAN", "date": "DATE", "timestamp": "TIMESTAMP",
               "timestamptz": "TIMESTAMPTZ", "text": "VARCHAR", "name": "VARCHAR", "char": "VARCHAR"}
# a DuckDB result type -> the PostgreSQL type a client is told
_PG_TYPES = {"UINTEGER": "oid", "INTEGER": "int4", "SMALLINT": "int2", "TINYINT": "int2", "BIGINT": "int8",
             "HUGEINT": "numeric", "UBIGINT": "numeric", "USMALLINT": "int4", "UTINYINT": "int2", "FLOAT": "float4",
             "DOUBLE": "float8", "BOOLEAN": "bool", "DATE": "date", "TIMESTAMP": "timestamp",
             "TIMESTAMP WITH TIME ZONE": "timestamptz", "VARCHAR": "text", "TIME": "time", "INTERVAL": "interval",
             "UUID": "uuid", "BLOB": "bytea", "JSON": "json", '"NULL"': "text", "NULL": "text"}


def duck_type(pg_type: str) -> str:
    if pg_type.startswith("_"):
        return duck_type(pg_type[1:]) + "[]"
    return _DUCK_TYPES.get(pg_type, "VARCHAR")


def pg_type_of(duck: str | None) -> str:
    """The PostgreSQL type name of a DuckDB result column type."""
    if not duck:
        return "text"
    text = str(duck).upper()
    if text.endswith("[]"):
        inner = pg_type_of(text[:-2])
        return "_" + inner if inner in ("text", "int2", "int4", "int8", "oid", "bool", "float8", "numeric") else "text"
    if text.startswith("DECIMAL"):
        return "numeric"
    return _PG_TYPES.get(text, "text")


@dataclass(frozen=True)
class LocalResult:
    columns: list[str]
    pg_types: list[str]
    rows: list[list[Any]]
    truncated: bool


# what one local evaluation may take: catalogs are a few hundred rows, a subquery's answer at most SMQ_MAX_ROWS
LOCAL_LIMITS = {"memory_limit": "'256MB'", "threads": "1", "max_temp_directory_size": "'0MB'"}


def _locked(conn: duckdb.DuckDBPyConnection) -> None:
    for key, text in LOCAL_LIMITS.items():
        conn.execute(f"SET {key} = {text}")
    for key, value in LOCKED_CONFIG.items():
        conn.execute(f"SET {key} = {'true' if value else 'false'}")


def _run(conn: duckdb.DuckDBPyConnection, sql: str, max_rows: int, timeout_s: float) -> LocalResult:
    ensure_read_only(sql, "duckdb")
    cursor = conn.cursor()
    started = time.perf_counter()
    try:
        with CancelTimer(timeout_s, cursor.interrupt) as timer:
            try:
                cursor.execute(sql)
                description = cursor.description or ()
                rows = cursor.fetchmany(max_rows + 1)
            except duckdb.Error as error:
                if timer.fired:
                    raise QueryTimeout(timeout_message(timeout_s)) from None
                raise ExecutionError(str(error).split("\n")[0]) from None
        result: QueryResult = make_result([d[0] for d in description], rows, max_rows, started,
                                          description_types(description))
    finally:
        cursor.close()
    types = [pg_type_of(t) for t in (result.column_types or [None] * len(result.columns))]
    return LocalResult(result.columns, types, result.rows, result.truncated)


class CatalogDatabase:
    """The catalog tables of one layer as one role sees them, in an in-memory DuckDB."""

    def __init__(self, database: str, tables: Mapping[str, Table]) -> None:
        self.conn = duckdb.connect(":memory:")
        self.tables: list[CatalogTable] = catalog_tables(database, tables)
        for schema in ("pg_catalog", "information_schema"):
            self.conn.execute(f'CREATE SCHEMA "{SCHEMA_PREFIX}{schema}"')
        for table in self.tables:
            self._create(table)
        self._create(CatalogTable("pg_catalog", TYPE_NAMES_TABLE, (("oid", "oid"), ("display", "text")),
                                  tuple((t.oid, t.display) for t in TYPES)))
        _locked(self.conn)
        self.known = {(t.schema, t.name) for t in self.tables}
        self._lock = threading.Lock()

    def _create(self, table: CatalogTable) -> None:
        name = f'"{SCHEMA_PREFIX}{table.schema}"."{table.name}"'
        columns = ", ".join(f'"{c}" {duck_type(t)}' for c, t in table.columns)
        self.conn.execute(f"CREATE TABLE {name} ({columns})")
        if table.rows:  # one INSERT per table (executemany costs about a millisecond per row)
            marks = "(" + ", ".join("?" for _ in table.columns) + ")"
            values = [value for row in table.rows for value in row]
            self.conn.execute(f"INSERT INTO {name} VALUES " + ", ".join(marks for _ in table.rows), values)

    def query(self, tree: exp.Expression, max_rows: int, timeout_s: float) -> LocalResult:
        sql = tree.sql(dialect="duckdb")
        with self._lock:
            conn = self.conn.cursor()
        try:
            return _run(conn, sql, max_rows, timeout_s)
        finally:
            conn.close()


_CATALOGS: LruCache[tuple, CatalogDatabase] = LruCache(32)
_BUILD_LOCK = threading.Lock()


def catalog_for(key: tuple, database: str, tables: Mapping[str, Table]) -> CatalogDatabase:
    """The catalog database of (layer version, role), built once (a few milliseconds) and kept."""
    found = _CATALOGS.get(key)
    if found is None:
        with _BUILD_LOCK:
            found = _CATALOGS.get(key)
            if found is None:
                found = CatalogDatabase(database, tables)
                _CATALOGS.put(key, found)
    return found


def evaluate_over(name: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Any]], outer: exp.Expression,
                  max_rows: int, timeout_s: float) -> LocalResult:
    """`outer` (which reads table `name`) over `rows`, whose columns are (name, PostgreSQL type)."""
    conn = duckdb.connect(":memory:")
    try:
        spec = ", ".join(f'"{c}" {duck_type(t if t != "numeric" else "float8")}' for c, t in columns)
        conn.execute(f'CREATE TABLE "{name}" ({spec})')
        if rows:
            marks = ", ".join("?" for _ in columns)
            conn.executemany(f'INSERT INTO "{name}" VALUES ({marks})', [list(r) for r in rows])
        _locked(conn)
        return _run(conn, outer.sql(dialect="duckdb"), max_rows, timeout_s)
    finally:
        conn.close()
