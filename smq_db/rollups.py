"""Rollups' storage (docs/rollups.md): building them from the warehouse, their state, and running the queries the
engine answers from them.

The embedded store is one DuckDB file beside the layer (`rollups.duckdb`). A build copies the live file, writes the
new tables into the copy (each rollup computed by the engine's own compiled SQL of its SMQ, run on the warehouse
through the layer's read-only executor), and swaps the copy in with one `os.replace`: a reader holding the old file
keeps reading it, the next query opens the new one, and a failed build leaves the old file in use. A file lock keeps
two builds apart. `_smq_meta` in the file records, per rollup, when it was built, its rows, its watermark and its
definition's hash (a changed definition is rebuilt in full).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from sqlglot import exp

from engine import Layer, RollupState

from .executors.base import QueryResult

META = "_smq_meta"
Progress = Callable[[str], None]


class RollupError(Exception):
    """A build could not run (another is running, the store is the warehouse without a writer...)."""


@dataclass(frozen=True)
class Built:
    name: str
    rows: int
    seconds: float
    partial_since: str | None  # a partitioned rollup rebuilt from this day on


def store_path(layer: Layer) -> Path:
    storage = layer.semantic.rollups.storage if layer.semantic.rollups is not None else None
    rel = Path(storage.path if storage is not None else "rollups.duckdb")
    return rel if rel.is_absolute() else layer.semantic.directory / rel


def _schema(layer: Layer) -> str:
    return layer.semantic.rollups.storage.schema if layer.semantic.rollups is not None else "smq_rollups"


GRAIN_ORDER = {"day": 0, "week": 1, "month": 2, "quarter": 3, "year": 4}


def definition_hash(layer: Layer, name: str) -> str:
    rollup = layer.rollup(name)
    text = layer.rollup_build_sql(name) + "|" + ",".join(rollup.columns) + "|" + str(rollup.spec.partition_by)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# -- state -------------------------------------------------------------------------------------------------------
def read_meta(layer: Layer, executor: Any | None = None) -> dict[str, dict[str, Any]]:
    """The store's record of each built rollup ({} when there is no store yet)."""
    if layer.semantic.rollups is not None and layer.semantic.rollups.storage.warehouse:
        from .rollups_warehouse import read_meta_from

        return read_meta_from(layer, getattr(executor, "warehouse", executor)) if executor is not None else {}
    path = store_path(layer)
    if not path.is_file():
        return {}
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return {}
    try:
        rows = con.execute(f'SELECT name, built_at, "rows", watermark, definition, bytes FROM "{_schema(layer)}"."{META}"').fetchall()
    except duckdb.Error:
        return {}
    finally:
        con.close()
    return {r[0]: {"built_at": r[1], "rows": r[2], "watermark": r[3], "definition": r[4], "bytes": r[5]} for r in rows}


def states(layer: Layer, *, watermarks: dict[str, str | None] | None = None, now: float | None = None,
           executor: Any | None = None) -> dict[str, RollupState]:
    """What the engine needs to route: per built rollup, until when it may answer. A rollup whose definition changed
    since its build is not offered; `watermarks` (current values of `refresh: {sql}`) mark changed ones stale."""
    meta = read_meta(layer, executor)
    now = time.time() if now is None else now
    out: dict[str, RollupState] = {}
    for rollup in layer.rollups:
        entry = meta.get(rollup.name)
        if entry is None or entry["definition"] != definition_hash(layer, rollup.name):
            continue
        refresh = rollup.spec.refresh
        until: float | None = None
        stale: str | None = None
        if refresh.every_s is not None:
            allowance = refresh.allowance_s or refresh.every_s
            until = entry["built_at"] + allowance
            if now >= entry["built_at"] + refresh.every_s:
                stale = f"built {int(now - entry['built_at'])} s ago, refreshed every {int(refresh.every_s)} s"
        if refresh.sql and watermarks is not None and rollup.name in watermarks and watermarks[rollup.name] != entry["watermark"]:
            stale = "its source changed (refresh sql)"
            until = min(until if until is not None else now, now + (refresh.max_staleness_s or 0))
        out[rollup.name] = RollupState(entry["built_at"], until, stale, entry["rows"])
    return out


def watermark(layer: Layer, executor: Any, name: str) -> str | None:
    """The current value of a rollup's `refresh: {sql}` (None without one)."""
    sql = layer.rollup(name).spec.refresh.sql
    if not sql:
        return None
    result: QueryResult = getattr(executor, "warehouse", executor).execute(sql, max_rows=1)
    return str(result.rows[0][0]) if result.rows and result.rows[0] else None


def refresh_states(layer: Layer, executor: Any | None = None, *, check: bool = False) -> dict[str, RollupState]:
    """Read the store's state into the layer (the watermarks checked too with `check`)."""
    marks = {r.name: watermark(layer, executor, r.name) for r in layer.rollups if r.spec.refresh.sql} \
        if executor is not None and check else None
    found = states(layer, watermarks=marks, executor=executor)
    layer.set_rollup_states(found)
    return found


_SEEN: dict[int, tuple[int, int] | None] = {}


def follow_store(layer: Layer) -> None:
    """Re-read the embedded store's state into the layer when the file changed (a build elsewhere swapped it in):
    one stat per call, so a running service sees a new build at its next query."""
    if not layer.rollups or not layer.rollups_embedded:
        return
    try:
        stat = store_path(layer).stat()
        stamp: tuple[int, int] | None = (stat.st_ino, stat.st_mtime_ns)
    except OSError:
        stamp = None
    if _SEEN.get(id(layer), (-1, -1)) != stamp:
        _SEEN[id(layer)] = stamp
        refresh_states(layer)


def status(layer: Layer, executor: Any | None = None) -> list[dict[str, Any]]:
    """Each declared rollup: built when, rows, size, whether stale, whether queries may use it now."""
    meta = read_meta(layer, executor)
    found = refresh_states(layer, executor, check=executor is not None)
    usable = layer.rollup_usable()
    out = []
    for rollup in layer.rollups:
        entry = meta.get(rollup.name)
        state = found.get(rollup.name)
        changed = entry is not None and entry["definition"] != definition_hash(layer, rollup.name)
        out.append({
            "name": rollup.name, "model": rollup.model, "built": entry is not None,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(entry["built_at"])) if entry else None,
            "rows": entry["rows"] if entry else 0, "bytes": entry["bytes"] if entry else 0,
            "stale": ("its definition changed since the build" if changed else state.stale if state else "not built"),
            "used": usable.get(rollup.name) is None, "why_not": usable.get(rollup.name),
        })
    return out


# -- building ----------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """One build of a store at a time (a second one is refused at once, not queued)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path) + ".lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RollupError(f"another build of {path.name} is running (lock {path.name}.lock)") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build(layer: Layer, executor: Any, names: list[str] | None = None, *, full: bool = False,
          progress: Progress = lambda _: None, timeout_s: float = 3600.0) -> list[Built]:
    """Build the rollups (all, or `names`) into the embedded store, atomically; returns what was built."""
    if layer.semantic.rollups is None or not layer.rollups:
        raise RollupError(f"database '{layer.name}' declares no rollups (rollups.yml)")
    executor = getattr(executor, "warehouse", executor)  # the facts, never the rollup store
    if layer.semantic.rollups.storage.warehouse:
        from .rollups_warehouse import build_in_warehouse

        return build_in_warehouse(layer, executor, names, progress=progress, timeout_s=timeout_s)
    chosen = [layer.rollup(n) for n in names] if names else list(layer.rollups)
    path = store_path(layer)
    schema = _schema(layer)
    out: list[Built] = []
    with build_lock(path):
        tmp = path.with_name(path.name + ".building")
        tmp.unlink(missing_ok=True)
        if path.is_file():
            shutil.copyfile(path, tmp)
        try:
            con = duckdb.connect(str(tmp))
            try:
                con.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                con.execute(f'CREATE TABLE IF NOT EXISTS "{schema}"."{META}" (name VARCHAR PRIMARY KEY, built_at DOUBLE, '
                            '"rows" BIGINT, watermark VARCHAR, definition VARCHAR, bytes BIGINT)')
                meta = {r[0]: r[1] for r in con.execute(f'SELECT name, definition FROM "{schema}"."{META}"').fetchall()}
                # finer grains first: a coarser rollup of the same model is then computed from the one just built
                chosen.sort(key=lambda r: (GRAIN_ORDER.get(r.grain or "day", 0), -len(r.dims)))
                fresh: set[str] = set()
                for i, rollup in enumerate(chosen, 1):
                    step = _numbered(progress, i, len(chosen))
                    out.append(_build_one(layer, executor, con, rollup.name, schema, meta, full, timeout_s, step, fresh))
                _copy_time_spine(layer, executor, con, progress)
                con.execute("CHECKPOINT")
                # each table's size from the file as checkpointed, recorded on the same connection (opening the
                # file twice more cost as much as building a small rollup)
                for name, size in _table_bytes(con, tmp, schema).items():
                    con.execute(f'UPDATE "{schema}"."{META}" SET bytes = ? WHERE name = ?', [size, name])
            finally:
                con.close()
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    refresh_states(layer)
    return out


def _copy_time_spine(layer: Layer, executor: Any, con: duckdb.DuckDBPyConnection, progress: Progress) -> None:
    """The layer's time spine copied into the store (a few thousand days): cumulative windows, offsets and spine
    joins answered from the store read their periods there, under the same table name as in the warehouse."""
    spine = layer.semantic.time_spine
    if spine is None:
        return
    select = exp.select(exp.column(spine.column)).from_(spine.table_node.copy())
    result: QueryResult = executor.execute(select.sql(dialect=layer.dialect), max_rows=1_000_000)
    table = spine.table_node.copy()
    if table.args.get("db") is not None:
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {exp.to_identifier(table.db).sql(dialect='duckdb')}")
    name = table.sql(dialect="duckdb")
    column = exp.to_identifier(spine.column).sql(dialect="duckdb")
    con.execute(f"CREATE OR REPLACE TABLE {name} ({column} DATE)")
    days = [row[0] for row in result.rows]
    _insert_columns(con, table, ["DATE"], [days])
    progress(f"time spine: {len(days):,} days copied")


def _insert_columns(con: duckdb.DuckDBPyConnection, table: Any, types: list[str], columns: list[list[Any]]) -> None:
    """One INSERT binding each column as one list, unnested and cast to its type: a parameter per value (a VALUES
    row each) made DuckDB spend seconds preparing what this does in milliseconds."""
    if not columns or not columns[0]:
        return
    select = exp.select(*[exp.cast(exp.Unnest(expressions=[exp.Placeholder()]), exp.DataType.build(t, dialect="duckdb"))
                          for t in types])
    con.execute(exp.insert(select, table).sql(dialect="duckdb"), columns)


def _numbered(progress: Progress, i: int, n: int) -> Progress:
    return lambda text: progress(f"[{i}/{n}] {text}")


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> Any:
    found = con.execute(sql, params or []).fetchone()
    return found[0] if found is not None else None


def _build_one(layer: Layer, executor: Any, con: duckdb.DuckDBPyConnection, name: str, schema: str,
               meta: dict[str, str], full: bool, timeout_s: float, progress: Progress, fresh: set[str]) -> Built:
    started = time.perf_counter()
    rollup = layer.rollup(name)
    definition = definition_hash(layer, name)
    mark = watermark(layer, executor, name)  # before reading: a change while building marks it stale next time
    exists = bool(_one(con, "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                       [schema, name]))
    since = None
    if rollup.spec.partition_by and rollup.time is not None and not full and exists and meta.get(name) == definition:
        found = con.execute(f'SELECT CAST(date_trunc(?, max("{rollup.time.column}")) AS DATE) FROM "{schema}"."{name}"',
                            [rollup.spec.partition_by]).fetchone()
        since = found[0].isoformat() if found and found[0] is not None else None
    new = f"{name}__new"
    con.execute(f'DROP TABLE IF EXISTS "{schema}"."{new}"')
    # only rollups built in this run: a coarser one is then as fresh as the finer one it is computed from
    held: dict[str, str | None] = {n: None for n in fresh if n != name}
    routed = layer.rollup_build_routed(name, held, since)
    part = f" from {since} on (the last {rollup.spec.partition_by})" if since else ""
    if routed.store == "rollups":  # a rollup of rollups: computed inside the store, from a finer one built before it
        progress(f"{name}: computing from rollup {', '.join(sorted(set(routed.rollups)))}{part}")
        con.execute(f'CREATE TABLE "{schema}"."{new}" AS {routed.sql}')
    else:
        progress(f"{name}: reading {rollup.model} from the warehouse{part}")
        result: QueryResult = executor.execute(layer.rollup_build_sql(name, since), max_rows=50_000_000, timeout_s=timeout_s)
        progress(f"{name}: writing {result.row_count:,} rows")
        types = _column_types(result)
        columns = ", ".join(f'"{c}" {t}' for c, t in zip(result.columns, types))
        con.execute(f'CREATE TABLE "{schema}"."{new}" ({columns})')
        target = exp.Table(this=exp.to_identifier(new, quoted=True), db=exp.to_identifier(schema, quoted=True))
        _insert_columns(con, target, types, [list(c) for c in zip(*result.rows)])
    con.execute("BEGIN")
    if since is not None and rollup.time is not None:
        con.execute(f'DELETE FROM "{schema}"."{name}" WHERE "{rollup.time.column}" >= CAST(? AS DATE)', [since])
        con.execute(f'INSERT INTO "{schema}"."{name}" SELECT * FROM "{schema}"."{new}"')
        con.execute(f'DROP TABLE "{schema}"."{new}"')
    else:
        con.execute(f'DROP TABLE IF EXISTS "{schema}"."{name}"')
        con.execute(f'ALTER TABLE "{schema}"."{new}" RENAME TO "{name}"')
    rows = _one(con, f'SELECT count(*) FROM "{schema}"."{name}"')
    con.execute(f'INSERT OR REPLACE INTO "{schema}"."{META}" VALUES (?, ?, ?, ?, ?, 0)', [name, time.time(), rows, mark, definition])
    con.execute("COMMIT")
    meta[name] = definition
    fresh.add(name)
    seconds = time.perf_counter() - started
    progress(f"{name}: {rows:,} rows in {seconds:.2f} s")
    return Built(name, rows, seconds, since)


_DUCK_TYPES = ("VARCHAR", "BIGINT", "INTEGER", "HUGEINT", "DOUBLE", "DATE", "TIMESTAMP", "BOOLEAN", "DECIMAL", "FLOAT",
               "SMALLINT", "TINYINT", "UBIGINT", "TIMESTAMP WITH TIME ZONE")


def _column_types(result: QueryResult) -> list[str]:
    """DuckDB column types: the warehouse's where it reports DuckDB's names, else read from the (JSON-safe) values."""
    out = []
    for i, _ in enumerate(result.columns):
        reported = (result.column_types or [None] * len(result.columns))[i]
        if reported and reported.upper().split("(")[0] in _DUCK_TYPES:
            out.append(reported.upper())
            continue
        values = [row[i] for row in result.rows if row[i] is not None]
        kinds = {type(v) for v in values}
        if kinds <= {bool} and kinds:
            out.append("BOOLEAN")
        elif kinds <= {int}:
            out.append("BIGINT" if values else "VARCHAR")
        elif kinds <= {int, float}:
            out.append("DOUBLE")
        elif kinds == {str} and all(len(v) == 10 and v[4] == "-" and v[7] == "-" for v in values):
            out.append("DATE")
        elif kinds == {str} and all(len(v) >= 19 and v[4] == "-" and v[10] in "T " for v in values):
            out.append("TIMESTAMP")
        else:
            out.append("VARCHAR")
    return out


def _table_bytes(con: duckdb.DuckDBPyConnection, path: Path, schema: str) -> dict[str, int]:
    """Each rollup table's size, estimated from DuckDB's blocks (the file's size split by estimated rows x width);
    `con`: the store's connection, checkpointed, `path`: its file."""
    rows = con.execute("SELECT table_name, estimated_size, column_count FROM duckdb_tables() WHERE schema_name = ?",
                       [schema]).fetchall()
    total = path.stat().st_size
    weights = {name: max(1, (size or 0) * (cols or 1)) for name, size, cols in rows if name != META}
    whole = sum(weights.values()) or 1
    return {name: int(total * w / whole) for name, w in weights.items()}


def due(layer: Layer, now: float | None = None) -> list[str]:
    """The rollups to build now: not built, built from another definition, or past their `every`."""
    meta = read_meta(layer)
    now = time.time() if now is None else now
    out = []
    for rollup in layer.rollups:
        entry = meta.get(rollup.name)
        every = rollup.spec.refresh.every_s
        if entry is None or entry["definition"] != definition_hash(layer, rollup.name) or \
                (every is not None and now >= entry["built_at"] + every):
            out.append(rollup.name)
    return out


def build_on_schedule(models_dir: Path, stop: Any, *, interval_s: float = 60.0, log: Progress = lambda _: None) -> None:
    """`smq serve --build-rollups`: every `interval_s`, build each embedded rollup that is due (a thread's body; `stop`
    is a threading.Event). The service follows each new store file at its next query."""
    from engine import load_layers

    from .open import open_for_layer

    while True:
        try:
            for layer in load_layers(models_dir).values():
                if not layer.rollups or not layer.rollups_embedded:
                    continue
                names = due(layer)
                if not names:
                    continue
                executor = open_for_layer(layer)
                try:
                    for b in build(layer, executor, names):
                        log(f"smq: rollup {layer.name}.{b.name}: {b.rows:,} rows in {b.seconds:.2f} s")
                finally:
                    executor.close()
        except Exception as err:  # noqa: BLE001 - a failed build keeps the previous rollup; the next round retries
            log(f"smq: building rollups failed (the previous ones stay in use): {err}")
        if stop.wait(interval_s):
            return
