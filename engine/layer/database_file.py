"""Reading a database folder's database.yml: its name, dialect, connection, time spine (and custom grains), access,
raw SQL allow-list, cache policy and semantics, each error at its file:line (load.py reads the rest of the folder)."""

from __future__ import annotations

import re
from typing import Any

from ..dialects import DEFAULT_ENGINE, SUPPORTED_DIALECTS, backend_names, find as find_engine
from ..dialects.denylist import why_not_allowable
from ..errors import Location, nearest
from .exprs import ExprError, check_dialect, parse_query, parse_table
from .model import DATE_PARTS, TIME_GRAINS, CachePolicy, CustomGrain, TimeSpine
from .reader import NAME_RULE, BaseReader, _kind, display_path
from .semantics import SEMANTICS
from .yamlpos import YMap, where

DATABASE_KEYS = ("name", "description", "dialect", "connection", "time_spine", "access", "raw_sql", "cache", "semantics")
RAW_SQL_KEYS = ("functions", "table_functions")
CACHE_KEYS = ("ttl_seconds", "refresh_key")
FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class DatabaseReader(BaseReader):
    """database.yml of one folder, read into the parts of a SemanticLayer it gives."""

    # -- database.yml ----------------------------------------------------------------------
    def database(self) -> dict[str, Any]:
        path = self.directory / "database.yml"
        if not path.exists() and (self.directory / "database.yaml").exists():
            path = self.directory / "database.yaml"
        if not path.exists():
            self.errors.add("missing database.yml (name, description, dialect, connection)", Location(display_path(path), 1, 1), code="missing_file")
            return {"name": self.directory.name}
        raw, file = self.read(path)
        node = self.mapping(raw, file, "")
        if node is None:
            return {"name": self.directory.name}
        self.known_keys(node, DATABASE_KEYS, file, "")
        name = self.name(node, file, "database", "database") or self.directory.name
        dialect = self.text(node, "dialect", file, "database", required=True, default=DEFAULT_ENGINE.value)
        if dialect.lower() not in SUPPORTED_DIALECTS or check_dialect(dialect.lower()):
            self.errors.add(
                f"dialect: unsupported dialect '{dialect}' (supported: {', '.join(SUPPORTED_DIALECTS)})",
                where(file, node, "dialect", field="dialect"), code="unknown_dialect",
                suggestions=nearest(dialect, SUPPORTED_DIALECTS, 1),
            )
            dialect = DEFAULT_ENGINE.value
        dialect = dialect.lower()
        self.dialect = dialect
        connection = node.get("connection") or {}
        if connection and not isinstance(connection, YMap):
            self.mapping(connection, file, "connection", node, "connection")
            connection = {}
        # where each connection setting is written: `smq validate` names the line of a missing file or a bad backend
        connection_at = {"": where(file, node, "connection", field="connection") if connection else Location(file, 1, 1)}
        for key in connection:
            connection_at[str(key)] = where(file, connection, key, field=f"connection.{key}")
        backend = connection.get("backend")
        if connection and (not isinstance(backend, str) or not backend.strip()):
            self.errors.add("connection.backend: missing (the engine to connect to: " + ", ".join(SUPPORTED_DIALECTS) + ")",
                            connection_at[""], code="missing_key")
        elif isinstance(backend, str) and "${" not in backend and find_engine(backend) is None:
            self.errors.add(f"connection.backend: unknown backend '{backend}' (supported: {', '.join(backend_names())})",
                            connection_at["backend"], code="unknown_backend",
                            suggestions=nearest(backend.strip().lower(), backend_names(), 1))
        spine = None
        if node.get("time_spine") is not None:
            spine_node = self.mapping(node["time_spine"], file, "time_spine", node, "time_spine")
            if spine_node is not None:
                self.known_keys(spine_node, ("table", "column", "custom_granularities"), file, "time_spine")
                table = self.text(spine_node, "table", file, "time_spine", required=True)
                column = self.text(spine_node, "column", file, "time_spine", required=True)
                if table and column:
                    try:
                        spine = TimeSpine(table, column, parse_table(table, dialect), self.custom_grains(spine_node, file))
                        self.custom_grain_names = tuple(spine.custom_grains)
                    except ExprError as err:
                        self.errors.add(f"time_spine.table: {err}", where(file, spine_node, "table", field="time_spine.table"), code="invalid_expression")
        return {
            **self.raw_sql(node, file),
            "name": name,
            "description": self.text(node, "description", file, "database"),
            "dialect": dialect,
            "connection": _plain(connection),
            "connection_at": connection_at,
            "time_spine": spine,
            "access": (node.get("access"), file, node),
            "cache": self.cache_policy(node, file),
            "semantics": self.semantics(node, file),
        }

    def semantics(self, node: YMap, file: str) -> str:
        """`semantics: native | metricflow`: whose meaning the layer answers with where smq and MetricFlow differ."""
        raw = node.get("semantics")
        if raw is None:
            return "native"
        loc = where(file, node, "semantics", field="semantics")
        if not isinstance(raw, str):
            self.errors.add(f"semantics: expected one of {', '.join(SEMANTICS)}, got {_kind(raw)}", loc, code="invalid_shape")
            return "native"
        value = raw.strip().lower()
        if value not in SEMANTICS:
            self.errors.add(f"semantics: unknown semantics '{raw}' (use native, smq's own, or metricflow, MetricFlow's where "
                            "the two differ: docs/dbt.md)", loc, code="unknown_semantics", suggestions=nearest(value, SEMANTICS, 1))
            return "native"
        return value

    def custom_grains(self, spine: YMap, file: str) -> dict[str, CustomGrain]:
        """`time_spine.custom_granularities`: [{name, column}] (MetricFlow's; `column_name` as MetricFlow spells it)."""
        out: dict[str, CustomGrain] = {}
        taken = (*TIME_GRAINS, *DATE_PARTS, *(f"extract_{p}" for p in DATE_PARTS))
        for i, item, seq in self.items(spine, "custom_granularities", file, "time_spine"):
            field = f"time_spine.custom_granularities[{i}]"
            node = self.mapping(item, file, field, seq, i)
            if node is None:
                continue
            self.known_keys(node, ("name", "column", "column_name"), file, field)
            name = self.text(node, "name", file, field, required=True)
            column = self.text(node, "column", file, field) or self.text(node, "column_name", file, field) or name
            if not name:
                continue
            loc = where(file, node, "name", field=f"{field}.name")
            if not NAME_RULE.match(name) or "__" in name or name.lower() in taken:
                why = "a standard grain or date part" if name.lower() in taken else "letters, digits, single underscores"
                self.errors.add(f"{field}.name: invalid custom granularity '{name}' ({why})", loc, code="invalid_name")
                continue
            if name.lower() in out:
                self.errors.add(f"{field}.name: duplicate custom granularity '{name}' (first at {out[name.lower()].location})", loc,
                                code="duplicate_name")
                continue
            out[name.lower()] = CustomGrain(name.lower(), column, loc)
        return out

    def cache_policy(self, node: YMap, file: str) -> CachePolicy:
        """`cache: {ttl_seconds, refresh_key}`: the service's result cache for this database (docs/service.md)."""
        if node.get("cache") is None:
            return CachePolicy()
        block = self.mapping(node["cache"], file, "cache", node, "cache")
        if block is None:
            return CachePolicy()
        self.known_keys(block, CACHE_KEYS, file, "cache")
        ttl: float | None = None
        raw_ttl = block.get("ttl_seconds")
        if raw_ttl is not None:
            if isinstance(raw_ttl, bool) or not isinstance(raw_ttl, (int, float)) or raw_ttl < 0:
                self.errors.add(f"cache.ttl_seconds: expected a number of seconds (0 or more; 0: never cached), got "
                                f"{raw_ttl!r}", where(file, block, "ttl_seconds", field="cache.ttl_seconds"), code="invalid_shape")
            else:
                ttl = float(raw_ttl)
        refresh = self.text(block, "refresh_key", file, "cache").strip() or None
        if refresh is not None:
            try:
                parse_query(refresh, self.dialect)
            except ExprError as err:
                self.errors.add(f"cache.refresh_key: {err}", where(file, block, "refresh_key", field="cache.refresh_key"),
                                code="invalid_expression")
                refresh = None
        return CachePolicy(ttl, refresh)

    def raw_sql(self, node: YMap, file: str) -> dict[str, frozenset[str]]:
        """`raw_sql: {functions: [...], table_functions: [...]}`: what an admin allows raw SQL to call."""
        if node.get("raw_sql") is None:
            return {}
        block = self.mapping(node["raw_sql"], file, "raw_sql", node, "raw_sql")
        if block is None:
            return {}
        self.known_keys(block, RAW_SQL_KEYS, file, "raw_sql")
        out: dict[str, frozenset[str]] = {}
        for key in RAW_SQL_KEYS:
            names = set()
            for text, loc in self.string_list(block, key, file, "raw_sql"):
                name = text.strip().lower()
                if not FUNCTION_NAME.match(name):
                    self.errors.add(f"{loc.field}: '{text}' is not a function name (letters, digits and underscores, "
                                    "no schema, no parentheses)", loc, code="invalid_name")
                elif why_not_allowable(name, self.dialect):
                    self.errors.add(f"{loc.field}: {why_not_allowable(name, self.dialect)}; it stays refused for raw SQL", loc,
                                    code="function_not_allowable")
                else:
                    names.add(name)
            out[f"raw_sql_{key}"] = frozenset(names)
        return out


def _plain(value: Any) -> Any:
    """A YAML value as plain dicts and lists (the connection block, without positions)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
