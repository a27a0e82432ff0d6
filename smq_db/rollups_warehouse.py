"""Rollups stored in the warehouse itself (`storage: {warehouse: true, connection: {...}}`, docs/rollups.md).

The build writes with the storage's own, write-capable login (never the read-only one queries use): each rollup's
rows are made by the engine's compiled SQL inside the warehouse (`CREATE TABLE <schema>.<name>__new AS ...`), then
swapped in by a drop and a rename in one transaction (PostgreSQL, DuckDB, SQLite: DDL is transactional there), so a
failed build leaves the previous table in use. DuckDB, SQLite and PostgreSQL warehouses; others: not yet.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import Layer, RollupState
from engine.dialects import Engine, find as find_engine

META = "_smq_meta"


def _connect(layer: Layer) -> tuple[Any, Engine | None]:
    from .executors.factory import expand_env
    from .executors.settings import file_path
    from .rollups import RollupError

    storage = layer.semantic.rollups.storage  # type: ignore[union-attr]
    settings = expand_env(dict(storage.connection))
    backend = str(settings.get("backend") or "").lower()
    engine = find_engine(backend)
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
        return psycopg.connect(info, autocommit=True), engine
    raise RollupError(f"rollups in a {backend or 'unknown'} warehouse are not supported yet (DuckDB, SQLite, PostgreSQL); "
                      "use the embedded store (remove `warehouse: true`)")


def _table(schema: str, name: str, kind: Engine | None) -> str:
    return f'"{name}"' if kind is Engine.SQLITE and schema == "main" else f'"{schema}"."{name}"'


def build_in_warehouse(layer: Layer, executor: Any, names: list[str] | None, *, progress: Callable[[str], None],
                       timeout_s: float) -> list[Any]:
    from .rollups import Built, build_lock, definition_hash, refresh_states, watermark

    storage = layer.semantic.rollups.storage  # type: ignore[union-attr]
    schema = storage.schema
    chosen = [layer.rollup(n) for n in names] if names else list(layer.rollups)
    digest = hashlib.sha256(repr(sorted(storage.connection.items())).encode()).hexdigest()[:12]
    out = []
    con, kind = _connect(layer)
    try:
        with build_lock(Path(layer.semantic.directory) / f".rollups-{digest}"):
            cur = con.cursor()
            if kind is not Engine.SQLITE:
                cur.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            meta = _table(schema, META, kind)
            cur.execute(f"CREATE TABLE IF NOT EXISTS {meta} (name VARCHAR(200) PRIMARY KEY, built_at DOUBLE PRECISION, "
                        '"rows" BIGINT, watermark VARCHAR(1000), definition VARCHAR(64), bytes BIGINT)')
            for i, rollup in enumerate(chosen, 1):
                started = time.perf_counter()
                say = lambda text, i=i: progress(f"[{i}/{len(chosen)}] {text}")  # noqa: E731
                mark = watermark(layer, executor, rollup.name)
                say(f"{rollup.name}: building in the warehouse")
                new, live = _table(schema, rollup.name + "__new", kind), _table(schema, rollup.name, kind)
                cur.execute(f"DROP TABLE IF EXISTS {new}")
                cur.execute(f"CREATE TABLE {new} AS {layer.rollup_build_sql(rollup.name)}")
                cur.execute("BEGIN")
                cur.execute(f"DROP TABLE IF EXISTS {live}")
                cur.execute(f'ALTER TABLE {new} RENAME TO "{rollup.name}"')
                cur.execute(f"SELECT count(*) FROM {live}")
                rows = int(cur.fetchone()[0])
                cur.execute(f"DELETE FROM {meta} WHERE name = {_p(kind)}", [rollup.name])
                cur.execute(f"INSERT INTO {meta} VALUES ({', '.join([_p(kind)] * 6)})",
                            [rollup.name, time.time(), rows, mark, definition_hash(layer, rollup.name), 0])
                cur.execute("COMMIT")
                seconds = time.perf_counter() - started
                say(f"{rollup.name}: {rows:,} rows in {seconds:.2f} s")
                out.append(Built(rollup.name, rows, seconds, None))
    finally:
        con.close()
    refresh_states(layer, executor)
    return out


def _p(kind: Engine | None) -> str:
    return "%s" if kind is Engine.POSTGRES else "?"


def read_meta_from(layer: Layer, executor: Any) -> dict[str, dict[str, Any]]:
    """The warehouse's record of its rollups, read with the read-only executor ({} before the first build)."""
    storage = layer.semantic.rollups.storage  # type: ignore[union-attr]
    kind = find_engine(str(executor.backend))
    try:
        result = executor.execute(f'SELECT name, built_at, "rows", watermark, definition, bytes FROM {_table(storage.schema, META, kind)}',
                                  max_rows=10_000)
    except Exception:  # noqa: BLE001 - no table yet: nothing built
        return {}
    return {r[0]: {"built_at": r[1], "rows": r[2], "watermark": r[3], "definition": r[4], "bytes": r[5]} for r in result.rows}


__all__ = ["RollupState", "build_in_warehouse", "read_meta_from"]
