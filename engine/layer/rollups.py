"""`rollups.yml`: a layer's declared rollups (docs/rollups.md), read with positions like every layer file.

This module reads the file's shape only (keys, names as text, grains, durations); the names are bound to the
layer's elements by `engine/rollups/bind.py`, whose check the facade passes to the loader, so a wrong name is
reported at its own file:line with the nearest right one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import Location
from .model import GRAINS
from .reader import BaseReader
from .yamlpos import YMap, where

DEFAULT_FILE = "rollups.duckdb"
DEFAULT_SCHEMA = "smq_rollups"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$")
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
PARTITION_GRAINS = ("day", "week", "month", "quarter", "year")


def duration_seconds(text: str) -> float | None:
    """`90s`, `15m`, `1h`, `2d`, `1w` -> seconds (None when it is not a duration)."""
    found = _DURATION.match(text)
    return float(found.group(1)) * _UNITS[found.group(2)] if found else None


@dataclass(frozen=True, slots=True)
class RollupStorage:
    """Where rollup tables live: an embedded DuckDB file beside the layer (default), or the warehouse itself, written
    with a login of its own (`connection`), never the one queries read with."""

    warehouse: bool = False
    path: str = DEFAULT_FILE  # embedded: the DuckDB file, relative to the layer's folder
    schema: str = DEFAULT_SCHEMA
    connection: Mapping[str, Any] = field(default_factory=dict)  # warehouse: the write-capable connection


@dataclass(frozen=True, slots=True)
class Refresh:
    """When a rollup is stale, and how long a stale one may still answer (`max_staleness`, default: `every`)."""

    every_s: float | None = None
    sql: str | None = None  # a watermark query: the rollup is stale once its value differs from the one built with
    max_staleness_s: float | None = None

    @property
    def allowance_s(self) -> float | None:
        """Seconds after its build a rollup may answer (None: until its watermark changes)."""
        return self.max_staleness_s if self.max_staleness_s is not None else self.every_s


@dataclass(frozen=True, slots=True)
class RollupSpec:
    name: str
    model: str
    measures: tuple[tuple[str, Location], ...]
    dimensions: tuple[tuple[str, Location], ...]
    time_dimension: tuple[str, Location] | None
    grain: str | None
    partition_by: str | None
    refresh: Refresh
    location: Location


@dataclass(frozen=True, slots=True)
class Rollups:
    storage: RollupStorage
    rollups: tuple[RollupSpec, ...]
    file: str


def read_rollups(reader: BaseReader) -> Rollups | None:
    """The folder's rollups.yml, or None when it has none; every problem goes to the reader's errors."""
    path = reader.directory / "rollups.yml"
    if not path.exists():
        return None
    raw, file = reader.read(path)
    node = reader.mapping(raw, file, "") if raw is not None else None
    if node is None:
        return Rollups(RollupStorage(), (), file)
    reader.known_keys(node, ("storage", "rollups"), file, "")
    storage = _storage(reader, node, file)
    out: list[RollupSpec] = []
    seen: dict[str, Location] = {}
    for i, item, seq in reader.items(node, "rollups", file, ""):
        field_ = f"rollups[{i}]"
        body = reader.mapping(item, file, field_, seq, i)
        if body is None:
            continue
        spec = _rollup(reader, body, file, field_, where(file, seq, i, field=field_))
        if spec is None:
            continue
        if spec.name in seen:
            first = seen[spec.name]
            reader.errors.add(f"{field_}.name: rollup '{spec.name}' is already declared at {first.file}:{first.line}",
                              where(file, body, "name", field=f"{field_}.name"), code="duplicate_name")
            continue
        seen[spec.name] = spec.location
        out.append(spec)
    return Rollups(storage, tuple(out), file)


def _storage(reader: BaseReader, node: YMap, file: str) -> RollupStorage:
    raw = node.get("storage")
    if raw is None:
        return RollupStorage()
    body = reader.mapping(raw, file, "storage", node, "storage")
    if body is None:
        return RollupStorage()
    reader.known_keys(body, ("connection", "schema", "warehouse"), file, "storage")
    schema = reader.text(body, "schema", file, "storage", default=DEFAULT_SCHEMA)
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", schema):
        reader.errors.add(f"storage.schema: '{schema}' is not a plain schema name (letters, digits, underscores)",
                          where(file, body, "schema", field="storage.schema"), code="invalid_name")
        schema = DEFAULT_SCHEMA
    warehouse = body.get("warehouse", False)
    if not isinstance(warehouse, bool):
        reader.errors.add("storage.warehouse: expected true or false", where(file, body, "warehouse", field="storage.warehouse"),
                          code="invalid_shape")
        warehouse = False
    conn_raw = body.get("connection")
    conn = reader.mapping(conn_raw, file, "storage.connection", body, "connection") if conn_raw is not None else None
    connection = _plain(conn) if conn is not None else {}
    if warehouse:
        if not connection:
            reader.errors.add("storage: rollups in the warehouse need `connection:`, a write-capable login kept apart "
                              "from the read-only one queries use", where(file, body, field="storage"), code="missing_key")
        return RollupStorage(True, DEFAULT_FILE, schema, connection)
    from ..dialects import Engine, find

    backend = str(connection.get("backend", Engine.DUCKDB.value))
    if find(backend) is not Engine.DUCKDB:
        reader.errors.add(f"storage.connection.backend: embedded rollups are a DuckDB file, got '{backend}' "
                          "(for the warehouse, write `warehouse: true` and its write-capable connection)",
                          where(file, conn, "backend", field="storage.connection.backend"), code="invalid_rollup",
                          suggestions=["duckdb"])
    unknown = sorted(set(connection) - {"backend", "path"})
    if unknown and conn is not None:
        reader.known_keys(conn, ("backend", "path"), file, "storage.connection")
    return RollupStorage(False, str(connection.get("path", DEFAULT_FILE)), schema, {})


def _rollup(reader: BaseReader, body: YMap, file: str, field_: str, loc: Location) -> RollupSpec | None:
    reader.known_keys(body, ("name", "model", "measures", "dimensions", "time_dimension", "grain", "partition_by",
                             "refresh", "description"), file, field_)
    name = reader.name(body, file, field_, "rollup")
    model = reader.text(body, "model", file, field_, required=True)
    measures = tuple(reader.string_list(body, "measures", file, field_))
    if not measures and "measures" not in body:
        reader.errors.add(f"{field_}: missing required key 'measures'", where(file, body, field=field_), code="missing_key")
    dimensions = tuple(reader.string_list(body, "dimensions", file, field_))
    time_text = reader.text(body, "time_dimension", file, field_)
    time_dim = (time_text, where(file, body, "time_dimension", field=f"{field_}.time_dimension")) if time_text else None
    grain = _choice(reader, body, "grain", GRAINS, file, field_)
    if time_dim is not None and grain is None:
        grain = "day"
    if grain is not None and time_dim is None:
        reader.errors.add(f"{field_}.grain: a grain needs a `time_dimension`", where(file, body, "grain", field=f"{field_}.grain"),
                          code="missing_key")
    partition = _choice(reader, body, "partition_by", PARTITION_GRAINS, file, field_)
    if partition is not None and time_dim is None:
        reader.errors.add(f"{field_}.partition_by: partitions are periods of the `time_dimension`, which is missing",
                          where(file, body, "partition_by", field=f"{field_}.partition_by"), code="missing_key")
    refresh = _refresh(reader, body, file, field_)
    if not name or not model:
        return None
    return RollupSpec(name, model, measures, dimensions, time_dim, grain, partition, refresh, loc)


def _choice(reader: BaseReader, body: YMap, key: str, allowed: tuple[str, ...], file: str, field_: str) -> str | None:
    from ..errors import nearest

    text = reader.text(body, key, file, field_)
    if not text:
        return None
    if text not in allowed:
        reader.errors.add(f"{field_}.{key}: unknown grain '{text}' (one of {', '.join(allowed)})",
                          where(file, body, key, field=f"{field_}.{key}"), code="unknown_grain",
                          suggestions=nearest(text, allowed, 1))
        return None
    return text


def _refresh(reader: BaseReader, body: YMap, file: str, field_: str) -> Refresh:
    raw = body.get("refresh")
    if raw is None:
        return Refresh()
    node = reader.mapping(raw, file, f"{field_}.refresh", body, "refresh")
    if node is None:
        return Refresh()
    at = f"{field_}.refresh"
    reader.known_keys(node, ("every", "sql", "max_staleness"), file, at)
    every = _duration(reader, node, "every", file, at)
    stale = _duration(reader, node, "max_staleness", file, at)
    sql = reader.text(node, "sql", file, at) or None
    if every is None and sql is None:
        reader.errors.add(f"{at}: give `every: 1h` (rebuild on a schedule) or `sql:` (rebuild when its value changes)",
                          where(file, node, field=at), code="missing_key")
    return Refresh(every, sql, stale)


def _duration(reader: BaseReader, node: YMap, key: str, file: str, at: str) -> float | None:
    text = reader.text(node, key, file, at)
    if not text:
        return None
    seconds = duration_seconds(text)
    if seconds is None or seconds <= 0:
        reader.errors.add(f"{at}.{key}: '{text}' is not a duration (like 90s, 15m, 1h, 2d, 1w)",
                          where(file, node, key, field=f"{at}.{key}"), code="invalid_rollup")
    return seconds


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
