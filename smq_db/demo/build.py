"""Writers for the demo database "shop": DuckDB and SQLite files, and loading into any DB-API connection.

* :func:`build_duckdb` / :func:`build_sqlite` write a complete database file atomically (a temporary file in
  the same folder, then a rename), so a reader never sees half a database and a rebuild is harmless.
* :func:`load_into` creates and fills the tables through any DB-API 2 connection (sqlite3, duckdb,
  psycopg, pymysql, the Snowflake connector or fakesnow). The statements are built as sqlglot
  expressions and generated for the dialect; values always travel as bound parameters, never as SQL
  text: ``executemany`` for sqlite3, psycopg (pipelined) and pymysql (rewritten into multi-row
  INSERTs); one INSERT per table binding each column as a list for DuckDB (its executemany is slow);
  a few INSERTs per table binding the rows as one JSON document for Snowflake (fakesnow re-parses
  every statement, so many small or huge VALUES statements would take minutes). The whole load takes
  about a second on each engine.
* :func:`ensure_demo` builds the file named by a semantic layer's ``database.yml`` on first use (a fresh
  clone has no ``data/`` folder) and rebuilds it when the generator has changed since.

Types per dialect, chosen so that results agree across engines:

==========  =========  =========  ===================  ============  ============
portable    sqlite     duckdb     postgres             mysql         snowflake
==========  =========  =========  ===================  ============  ============
INTEGER     INTEGER    INT        INT                  INT           INT
VARCHAR     TEXT       TEXT       VARCHAR COLLATE "C"  VARCHAR(255)  VARCHAR
DATE        DATE       DATE       DATE                 DATE          DATE
TIMESTAMP   TIMESTAMP  TIMESTAMP  TIMESTAMP            DATETIME      TIMESTAMPNTZ
DECIMAL     REAL       DECIMAL    DECIMAL              DECIMAL       DECIMAL
BOOLEAN     INTEGER    BOOLEAN    BOOLEAN              BOOLEAN       BOOLEAN
==========  =========  =========  ===================  ============  ============

SQLite stores dates as ISO text ``'YYYY-MM-DD'``, timestamps as ``'YYYY-MM-DD HH:MM:SS'``, decimals as REAL
and booleans as 0/1. Strings compare byte-wise everywhere: PostgreSQL columns use the "C" collation and
MySQL/MariaDB tables a binary, no-pad collation (MariaDB's default collation ignores case and trailing
spaces, which would hide the dirty ``customer_ref`` values).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import sqlglot
import yaml
from sqlglot import exp

from engine.dialects import Engine, dialect as dialect_of

from .generate import Table, generate
from .stamp import DEMOS, demo_file, fingerprint, is_current, stamp_of

__all__ = ["DEMOS", "DIALECTS", "build_duckdb", "build_sqlite", "load_into", "ensure_demo", "fingerprint"]

# the engines the demo can be loaded into (a DB-API connection of each: tests, docker-compose)
DIALECTS = tuple(e.value for e in (Engine.SQLITE, Engine.DUCKDB, Engine.POSTGRES, Engine.MYSQL, Engine.SNOWFLAKE))

# rows per INSERT on Snowflake: their JSON stays well below the 1 MB a statement's text may have
_SNOWFLAKE_ROWS_PER_STATEMENT = 2000


# --------------------------------------------------------------------------------------------
# DDL


def _column_type(portable: str, dialect: str) -> exp.DataType:
    return dialect_of(dialect).storage_type(exp.DataType.build(portable))


def _qualified(name: str, schema: str | None) -> exp.Table:
    parts = schema.split(".") if schema else []
    if len(parts) > 2:
        raise ValueError(f"schema must be 'name' or 'database.name', got {schema!r}")
    return exp.Table(
        this=exp.to_identifier(name),
        db=exp.to_identifier(parts[-1]) if parts else None,
        catalog=exp.to_identifier(parts[0]) if len(parts) == 2 else None,
    )


def _create_table(table: Table, dialect: str, schema: str | None, mysql_collation: str | None) -> exp.Create:
    columns: list[exp.Expression] = []
    for name, portable in table.columns:
        constraints = []
        if name in table.primary_key:
            constraints.append(exp.ColumnConstraint(kind=exp.NotNullColumnConstraint()))
        dtype = _column_type(portable, dialect)
        collation = dialect_of(dialect).text_collation
        if collation and dtype.this in (exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT):
            constraints.append(exp.ColumnConstraint(kind=exp.CollateColumnConstraint(this=exp.to_identifier(collation, quoted=True))))
        columns.append(exp.ColumnDef(this=exp.to_identifier(name), kind=dtype, constraints=constraints))
    columns.append(exp.PrimaryKey(expressions=[exp.to_identifier(c) for c in table.primary_key]))
    properties = None
    if dialect_of(dialect).schema_setting == "database":  # MySQL/MariaDB: utf8mb4 (and a binary, NO PAD collation)
        props: list[exp.Expression] = [exp.CharacterSetProperty(this=exp.var("utf8mb4"), default=True)]
        if mysql_collation:
            props.append(exp.CollateProperty(this=exp.var(mysql_collation), default=True))
        properties = exp.Properties(expressions=props)
    return exp.Create(
        kind="TABLE",
        this=exp.Schema(this=_qualified(table.name, schema), expressions=columns),
        properties=properties,
    )


def _create_schema(dialect: str, schema: str) -> exp.Create:
    if dialect_of(dialect).schema_setting == "database":  # MySQL/MariaDB: a schema is a database
        return exp.Create(
            kind="DATABASE",
            this=exp.Table(this=exp.to_identifier(schema)),
            exists=True,
            properties=exp.Properties(expressions=[exp.CharacterSetProperty(this=exp.var("utf8mb4"), default=True)]),
        )
    target = _qualified("_", schema)
    return exp.Create(kind="SCHEMA", this=exp.Table(db=target.args["db"], catalog=target.args.get("catalog")), exists=True)


def ddl(dialect: str, schema: str | None = None, *, mysql_collation: str | None = "utf8mb4_nopad_bin",
        tables: Sequence[Table] | None = None) -> list[str]:
    """The statements that (re)create every demo table for a dialect, in order: drops, then creates.

    `mysql_collation` is the default collation of a MySQL/MariaDB table (ignored elsewhere); `tables`: these
    instead of the generated ones (a test's copy holding some of their rows)."""
    _check_dialect(dialect, schema)
    tables = generate() if tables is None else list(tables)
    statements: list[exp.Expression] = []
    if schema:
        statements.append(_create_schema(dialect, schema))
    statements += [exp.Drop(kind="TABLE", exists=True, tables=[_qualified(t.name, schema)]) for t in reversed(tables)]
    statements += [_create_table(t, dialect, schema, mysql_collation) for t in tables]
    return [s.sql(dialect=dialect) for s in statements]


def _check_dialect(dialect: str, schema: str | None) -> None:
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {', '.join(DIALECTS)}")
    if schema and not dialect_of(dialect).has_schemas:
        raise ValueError(f"{dialect} has no schemas: load into a database file of its own instead")


# --------------------------------------------------------------------------------------------
# values per driver


def _sqlite_value(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, Decimal):
        return float(v)
    return v


def _converter(dialect: str) -> Callable[[tuple], tuple] | None:
    if dialect_of(dialect).affinity_typing:  # SQLite's driver binds no dates nor decimals
        return lambda row: tuple(_sqlite_value(v) for v in row)
    return None  # the other drivers bind int, str, date, datetime, Decimal and bool natively


def _paramstyle(conn: Any, dialect: str) -> str:
    known = dialect_of(dialect).paramstyle
    if known:
        return known
    # Snowflake's connector (and fakesnow) keep the connection's style here; the module default is pyformat
    style = getattr(conn, "_paramstyle", None) or getattr(conn, "paramstyle", None)
    if not style:
        try:
            import snowflake.connector

            style = snowflake.connector.paramstyle
        except ImportError:  # pragma: no cover - the connection had to come from somewhere
            style = "pyformat"
    return str(style).lower()


def _placeholder(style: str, position: int) -> exp.Expression:
    if style == "qmark":
        return exp.var("?")
    if style == "numeric":
        return exp.var(f":{position}")
    if style in ("format", "pyformat"):
        return exp.var("%s")
    raise ValueError(f"unsupported paramstyle {style!r}")


def _insert_sql(table: Table, dialect: str, schema: str | None, style: str) -> str:
    values = exp.values([tuple(_placeholder(style, i + 1) for i in range(len(table.columns)))])
    return exp.insert(values, _qualified(table.name, schema), columns=list(table.column_names)).sql(dialect=dialect)


def _duckdb_insert_sql(table: Table, schema: str | None) -> str:
    # one statement per table: each column is bound as one list and unnested (columnar binding);
    # DuckDB's executemany prepares and runs a statement per row and is ~100 times slower
    select = exp.select(
        *[
            exp.cast(exp.Unnest(expressions=[exp.Placeholder()]), _column_type(portable, Engine.DUCKDB.value))
            for _, portable in table.columns
        ]
    )
    return exp.insert(select, _qualified(table.name, schema), columns=list(table.column_names)).sql(dialect=Engine.DUCKDB.value)


def _snowflake_insert_sql(table: Table, schema: str | None, style: str) -> str:
    # the rows travel as one JSON array bound to a single parameter and are unpacked server side:
    # a handful of statements per table instead of one value per placeholder (fakesnow rewrites every
    # statement with sqlglot, at ~1 ms per VALUES row; real Snowflake caps a statement's text at 1 MB)
    parsed = sqlglot.parse_one("SELECT * FROM TABLE(FLATTEN(INPUT => PARSE_JSON(?))) AS f", read=Engine.SNOWFLAKE.value)
    query = cast(exp.Select, parsed.transform(lambda node: _placeholder(style, 1) if isinstance(node, exp.Placeholder) else node))
    columns = [
        exp.cast(
            exp.Bracket(this=exp.column("value", table="f"), expressions=[exp.Literal.number(i)]),
            _column_type(portable, Engine.SNOWFLAKE.value),
        )
        for i, (_, portable) in enumerate(table.columns)
    ]
    query = query.select(*columns, append=False)
    return exp.insert(query, _qualified(table.name, schema), columns=list(table.column_names)).sql(dialect=Engine.SNOWFLAKE.value)


def _json_value(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, Decimal):
        return str(v)  # exact: cast to DECIMAL(p,s) on the server
    return v


def _chunks(rows: Sequence[tuple], size: int) -> Iterable[Sequence[tuple]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _mysql_collation(cursor: Any) -> str:
    cursor.execute("SELECT VERSION()")
    row = cursor.fetchone()
    version = str(next(iter(row.values())) if isinstance(row, dict) else row[0])
    if "mariadb" in version.lower():
        return "utf8mb4_nopad_bin"  # binary and NO PAD: 'C00042 ' <> 'C00042', as everywhere else
    digits = re.match(r"\d+", version)
    major = int(digits.group()) if digits else 0
    return "utf8mb4_0900_bin" if major >= 8 else "utf8mb4_bin"


def load_into(conn: Any, dialect: str, schema: str | None = None, tables: Sequence[Table] | None = None) -> None:
    """Create (drop first if present) and fill every demo table through a DB-API 2 connection.

    ``dialect`` is one of sqlite, duckdb, postgres, mysql (MySQL and MariaDB) and snowflake. ``schema``
    names a schema to create the tables in (a database for MySQL; ``name`` or ``database.name`` for
    Snowflake); it is created if missing. ``tables``: these instead of the generated ones (the role
    differential loads copies holding one role's rows). Commits at the end.
    """
    _check_dialect(dialect, schema)
    tables = generate() if tables is None else list(tables)
    style = _paramstyle(conn, dialect)
    convert = _converter(dialect)
    cur = conn.cursor()
    try:
        collation = _mysql_collation(cur) if dialect_of(dialect).schema_setting == "database" else None
        for statement in ddl(dialect, schema, mysql_collation=collation, tables=tables):
            cur.execute(statement)
        for table in tables:
            if not table.rows:
                continue
            rows = table.rows if convert is None else [convert(r) for r in table.rows]
            bulk = dialect_of(dialect).bulk_load
            if bulk == "columns":
                cur.execute(_duckdb_insert_sql(table, schema), [list(col) for col in zip(*rows)])
            elif bulk == "json":
                sql = _snowflake_insert_sql(table, schema, style)
                for chunk in _chunks(rows, _SNOWFLAKE_ROWS_PER_STATEMENT):
                    payload = json.dumps([[_json_value(v) for v in row] for row in chunk], separators=(",", ":"))
                    cur.execute(sql, (payload,))
            else:
                # sqlite3 loops in C; psycopg 3 pipelines executemany; pymysql rewrites it into
                # multi-row INSERTs of up to ~1 MB each
                cur.executemany(_insert_sql(table, dialect, schema, style), rows)
    finally:
        try:
            cur.close()
        except Exception:  # pragma: no cover - closing is best effort
            pass
    conn.commit()


# --------------------------------------------------------------------------------------------
# files


def _atomic_build(path: Path, write: Callable[[Path], None]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    tmp.unlink()  # the engines want to create the file themselves
    try:
        write(tmp)
        wal = path.with_name(path.name + ".wal")
        if wal.exists():  # a WAL left next to the old file would be replayed onto the new one
            wal.unlink()
        os.replace(tmp, path)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            if leftover.exists():
                leftover.unlink()
    return path


def build_duckdb(path: Path) -> Path:
    """Write the demo database as a DuckDB file at `path` (replacing any file there). Returns the path."""
    import duckdb

    def write(tmp: Path) -> None:
        con = duckdb.connect(str(tmp))
        try:
            load_into(con, Engine.DUCKDB.value)
            con.execute("CHECKPOINT")
        finally:
            con.close()

    return _atomic_build(path, write)


def build_sqlite(path: Path) -> Path:
    """Write the demo database as a SQLite file at `path` (replacing any file there). Returns the path."""

    def write(tmp: Path) -> None:
        con = sqlite3.connect(str(tmp))
        try:
            load_into(con, Engine.SQLITE.value)
        finally:
            con.close()

    return _atomic_build(path, write)


def ensure_demo(database_dir: Path) -> None:
    """Build the demo database file a layer's ``database.yml`` points at, if it is missing or stale.

    Acts only when ``connection.demo`` names a demo (``shop``) and ``connection.backend`` is a file
    backend (duckdb or sqlite); ``connection.path`` is relative to `database_dir` (``${VAR}`` and ``~``
    are expanded). A file built by an older generator is rebuilt: a stamp file beside it records the
    generator's fingerprint (smq_db/demo/stamp.py).
    """
    database_dir = Path(database_dir)
    with open(database_dir / "database.yml", encoding="utf-8") as f:
        config = yaml.safe_load(f) or {}
    connection = config.get("connection") or {}
    path = demo_file(database_dir, connection)
    if path is None or is_current(path):
        return
    builders = {Engine.DUCKDB.value: build_duckdb, Engine.SQLITE.value: build_sqlite}
    builders[str(connection.get("backend", "")).lower()](path)
    stamp_of(path).write_text(fingerprint() + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m smq_db.demo.build FILE...``: write the demo database to .duckdb / .sqlite / .db files."""
    parser = argparse.ArgumentParser(prog="python -m smq_db.demo.build", description=main.__doc__)
    parser.add_argument("files", nargs="+", type=Path, help="target files; the suffix picks the format")
    args = parser.parse_args(argv)
    for file in args.files:
        if file.suffix == ".duckdb":
            build_duckdb(file)
        elif file.suffix in (".sqlite", ".sqlite3", ".db"):
            build_sqlite(file)
        else:
            parser.error(f"{file}: expected a .duckdb, .sqlite, .sqlite3 or .db file")
        print(file)


if __name__ == "__main__":
    main()
