"""Rollups stored in the warehouse itself (`storage: {warehouse: true, connection: {...}}`, docs/rollups.md).

The build writes with the storage's own, write-capable login (never the read-only one queries use): each rollup's
rows are made by the engine's compiled SQL inside the warehouse (`CREATE TABLE <schema>.<name>__new AS ...`), then
swapped in atomically, so a failed build leaves the previous table in use: by a drop and a rename in one transaction
where DDL is transactional (PostgreSQL, DuckDB, SQLite), by one multi-table `RENAME TABLE` on MySQL and MariaDB (their
DDL commits at once; that statement swaps both names at once). Other warehouses: not yet.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlglot import exp

from engine import Layer, RollupState
from engine.dialects import Engine, find as find_engine

META = "_smq_meta"
SUPPORTED = (Engine.DUCKDB, Engine.SQLITE, Engine.POSTGRES, Engine.MYSQL)
_META_COLUMNS = (("name", "VARCHAR(200)"), ("built_at", "DOUBLE PRECISION"), ("rows", "BIGINT"), ("watermark", "VARCHAR(1000)"),
                 ("definition", "VARCHAR(64)"), ("bytes", "BIGINT"))


def _connect(layer: Layer) -> tuple[Any, Engine]:
    from .executors.factory import expand_env
    from .executors.settings import file_path, integer
    from .rollups import RollupError

    storage = layer.semantic.rollups.storage  # type: ignore[union-attr]
    settings = expand_env(dict(storage.connection))
    backend = str(settings.get("backend") or "").lower()
    engine = find_engine(backend)
    # the build's SQL names the facts as the layer's own connection finds them (its PostgreSQL search_path, its
    # MySQL database): the writing login looks there too unless it says otherwise
    reading = layer.semantic.connection or {}
    for key in ("schema",) if engine is Engine.POSTGRES else ("database",) if engine is Engine.MYSQL else ():
        if not settings.get(key) and reading.get(key):
            settings[key] = expand_env(reading[key])
    base = Path(layer.semantic.directory)
    if engine is Engine.DUCKDB:
        import duckdb

        return duckdb.connect(str(file_path(settings, "path", base))), engine
    if engine is Engine.SQLITE:
        import sqlite3

        return sqlite3.connect(str(file_path(settings, "path", base)), isolation_level=None), engine
    if engine is Engine.POSTGRES:
        import psycopg
        from psycopg import conninfo as ci

        parts = {"host": settings.get("host"), "port": settings.get("port"), "user": settings.get("user"),
                 "password": settings.get("password"), "dbname": settings.get("database")}
        info = ci.make_conninfo(str(settings.get("url") or ""), **{k: str(v) for k, v in parts.items() if v not in (None, "")})
        con = psycopg.connect(info, autocommit=True)
        if settings.get("schema"):
            con.execute("SELECT set_config('search_path', %s, false)", [str(settings["schema"])])
        return con, engine
    if engine is Engine.MYSQL:
        import pymysql

        return pymysql.connect(host=str(settings.get("host") or "127.0.0.1"), port=integer(settings, "port", 3306),
                               user=settings.get("user"), password=settings.get("password") or "",
                               database=settings.get("database"), autocommit=True), engine
    names = ", ".join(e.value for e in SUPPORTED)
    raise RollupError(f"rollups in a {backend or 'unknown'} warehouse are not supported yet ({names}); "
                      "use the embedded store (remove `warehouse: true`)")


def _table(schema: str, name: str, kind: Engine | None) -> exp.Table:
    """The rollup's table: in `schema` (a database on MySQL), or SQLite's main one unqualified."""
    db = None if kind is Engine.SQLITE and schema == "main" else exp.to_identifier(schema, quoted=True)
    return exp.Table(this=exp.to_identifier(name, quoted=True), db=db)


def _sql(node: exp.Expression, kind: Engine | None) -> str:
    return node.sql(dialect=kind.value if kind is not None else None)


def _meta_ddl(table: exp.Table, kind: Engine) -> str:
    columns = [exp.ColumnDef(this=exp.to_identifier(name, quoted=True), kind=exp.DataType.build(type_),
                             constraints=[exp.ColumnConstraint(kind=exp.PrimaryKeyColumnConstraint())] if name == "name" else [])
               for name, type_ in _META_COLUMNS]
    return _sql(exp.Create(this=exp.Schema(this=table, expressions=columns), kind="TABLE", exists=True), kind)


def build_in_warehouse(layer: Layer, executor: Any, names: list[str] | None, *, progress: Callable[[str], None],
                       timeout_s: float) -> list[Any]:
    from .rollups import Built, build_lock, definition_hash, refresh_states, watermark

    storage = layer.semantic.rollups.storage  # type: ignore[union-attr]
    schema = storage.schema
    chosen = [layer.rollup(n) for n in names] if names else list(layer.rollups)
    digest = hashlib.sha256(repr(sorted(storage.connection.items())).encode()).hexdigest()[:12]
    out = []
    con, kind = _connect(layer)
    p = "%s" if kind in (Engine.POSTGRES, Engine.MYSQL) else "?"
    try:
        with build_lock(Path(layer.semantic.directory) / f".rollups-{digest}"):
            cur = con.cursor()
            if kind is not Engine.SQLITE:
                cur.execute(_sql(exp.Create(this=exp.to_identifier(schema, quoted=True), kind="SCHEMA", exists=True), kind))
            meta = _table(schema, META, kind)
            cur.execute(_meta_ddl(meta, kind))
            for i, rollup in enumerate(chosen, 1):
                started = time.perf_counter()
                say = lambda text, i=i: progress(f"[{i}/{len(chosen)}] {text}")  # noqa: E731
                mark = watermark(layer, executor, rollup.name)
                say(f"{rollup.name}: building in the warehouse")
                new, live = _table(schema, rollup.name + "__new", kind), _table(schema, rollup.name, kind)
                cur.execute(_sql(exp.Drop(tables=[new], kind="TABLE", exists=True), kind))
                cur.execute(f"CREATE TABLE {_sql(new, kind)} AS {layer.rollup_build_sql(rollup.name)}")
                if kind is Engine.MYSQL:
                    _swap_mysql(cur, schema, rollup.name, kind)
                    cur.execute("BEGIN")
                else:
                    cur.execute("BEGIN")
                    cur.execute(_sql(exp.Drop(tables=[live], kind="TABLE", exists=True), kind))
                    cur.execute(_sql(exp.Alter(this=new, kind="TABLE", actions=[exp.AlterRename(this=exp.Table(this=exp.to_identifier(rollup.name, quoted=True)))]),
                                     kind))
                cur.execute(_sql(exp.select(exp.Count(this=exp.Star())).from_(live), kind))
                rows = int(cur.fetchone()[0])
                cur.execute(f"DELETE FROM {_sql(meta, kind)} WHERE {_sql(exp.to_identifier('name', quoted=True), kind)} = {p}", [rollup.name])
                cur.execute(f"INSERT INTO {_sql(meta, kind)} VALUES ({', '.join([p] * len(_META_COLUMNS))})",
                            [rollup.name, time.time(), rows, mark, definition_hash(layer, rollup.name), 0])
                cur.execute("COMMIT")
                seconds = time.perf_counter() - started
                say(f"{rollup.name}: {rows:,} rows in {seconds:.2f} s")
                out.append(Built(rollup.name, rows, seconds, None))
    finally:
        con.close()
    refresh_states(layer, executor)
    return out


def _swap_mysql(cur: Any, schema: str, name: str, kind: Engine) -> None:
    """The new table under the live name, in one RENAME TABLE (atomic on MySQL and MariaDB), the old one dropped."""
    new, live, old = (_table(schema, name + suffix, kind) for suffix in ("__new", "", "__old"))
    cur.execute(_sql(exp.Drop(tables=[old], kind="TABLE", exists=True), kind))
    cur.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = %s AND table_name = %s", [schema, name])
    pairs = [(live, old), (new, live)] if cur.fetchone()[0] else [(new, live)]
    cur.execute("RENAME TABLE " + ", ".join(f"{_sql(a, kind)} TO {_sql(b, kind)}" for a, b in pairs))
    cur.execute(_sql(exp.Drop(tables=[old], kind="TABLE", exists=True), kind))


def read_meta_from(layer: Layer, executor: Any) -> dict[str, dict[str, Any]]:
    """The warehouse's record of its rollups, read with the read-only executor ({} before the first build)."""
    storage = layer.semantic.rollups.storage  # type: ignore[union-attr]
    kind = find_engine(str(executor.backend))
    select = exp.select(*(exp.column(exp.to_identifier(name, quoted=True)) for name, _ in _META_COLUMNS)).from_(_table(storage.schema, META, kind))
    try:
        result = executor.execute(_sql(select, kind), max_rows=10_000)
    except Exception:  # noqa: BLE001 - no table yet: nothing built
        return {}
    return {r[0]: {"built_at": r[1], "rows": r[2], "watermark": r[3], "definition": r[4], "bytes": r[5]} for r in result.rows}


__all__ = ["RollupState", "build_in_warehouse", "read_meta_from"]
