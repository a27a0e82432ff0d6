"""Build an executor from a ``database.yml`` connection mapping; route Spider2 instances to backends.

The mapping is the layer's ``connection:`` block. ``${ENV_VAR}`` in any string value is expanded
here (secrets never live in YAML), relative file paths are resolved against the layer's folder,
and keys this backend does not use (``demo`` and the like) are ignored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from engine.errors import Location, nearest

from .base import DEFAULT_TIMEOUT_S, Executor, import_driver
from .errors import ConfigError
from .limits import parse_limits

BACKENDS = ("sqlite", "duckdb", "postgres", "mysql", "snowflake", "bigquery", "trino", "clickhouse", "spark", "databricks")
DEFAULT_DIALECTS = {b: b for b in BACKENDS}
ALIASES = {"postgresql": "postgres", "mariadb": "mysql", "sqlite3": "sqlite"}

# Spider2 instance id prefix -> backend, first match wins ("sf_bq001" is Snowflake, not BigQuery).
SPIDER2_ROUTES: tuple[tuple[str, str], ...] = (
    ("sf", "snowflake"),
    ("local", "sqlite"),
    ("bq", "bigquery"),
    ("ga", "bigquery"),
)

_ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def create_executor(connection: Mapping[str, Any], *, base_dir: Path, dialect: str | None = None,
                    default_timeout_s: float = DEFAULT_TIMEOUT_S) -> Executor:
    """The executor for one database; raises ConfigError for a bad mapping, BackendUnavailable for a missing driver.

    `default_timeout_s` is the timeout most queries will ask for: backends that keep it in the session
    (PostgreSQL, MySQL) set it once per connection instead of once per query.
    """
    settings = expand_env(dict(connection))
    backend = str(settings.get("backend") or "").strip().lower()
    backend = ALIASES.get(backend, backend)
    builder = _BUILDERS.get(backend)
    if builder is None:
        raise ConfigError(
            f"unknown backend '{backend}'; valid backends are: {', '.join(BACKENDS)}",
            location=Location(field="connection.backend"),
            suggestions=nearest(backend, BACKENDS) if backend else (),
        )
    return builder(settings, Path(base_dir), dialect or DEFAULT_DIALECTS[backend], default_timeout_s)


def route_instance(instance_id: str) -> str:
    """The backend a Spider2 instance runs on, from its id prefix (``local001`` -> sqlite)."""
    lowered = instance_id.strip().lower()
    for prefix, backend in SPIDER2_ROUTES:
        if lowered.startswith(prefix):
            return backend
    known = ", ".join(f"{p}* -> {b}" for p, b in SPIDER2_ROUTES)
    raise ConfigError(f"cannot route Spider2 instance '{instance_id}': its id starts with none of the known prefixes ({known})")


def expand_env(value: Any, path: str = "connection") -> Any:
    """Replace ``${NAME}`` in every string (nested too); a missing variable is an error naming it."""
    if isinstance(value, str):
        def substitute(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in os.environ:
                raise ConfigError(f"environment variable {name} is not set (used in {path})", location=Location(field=path))
            return os.environ[name]

        return _ENV_VAR.sub(substitute, value)
    if isinstance(value, Mapping):
        return {k: expand_env(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def _file_path(settings: Mapping[str, Any], key: str, base_dir: Path) -> Path:
    raw = settings.get(key)
    if not raw:
        raise ConfigError(f"connection.{key} is required for the {settings['backend']} backend",
                          location=Location(field=f"connection.{key}"))
    path = Path(str(raw)).expanduser()
    return path if path.is_absolute() else (base_dir / path)


def _int(settings: Mapping[str, Any], key: str, default: int) -> int:
    raw = settings.get(key, default)
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"connection.{key} must be an integer, got {raw!r}", location=Location(field=f"connection.{key}")) from None


def _sqlite(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .sqlite import SqliteExecutor

    limits = parse_limits(settings.get("limits"))
    path = _file_path(settings, "path", base_dir)
    if limits.isolated("sqlite"):
        from .worker import IsolatedExecutor

        return IsolatedExecutor("sqlite", path, dialect=dialect, limits=limits)
    return SqliteExecutor(path, dialect=dialect, pool_size=_int(settings, "pool_size", 4), limits=limits)


def _duckdb(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .duckdb import DuckDBExecutor

    limits = parse_limits(settings.get("limits"))
    path = _file_path(settings, "path", base_dir)
    if limits.isolated("duckdb"):  # the default: DuckDB's memory_limit does not bound what its functions build
        from .worker import IsolatedExecutor

        return IsolatedExecutor("duckdb", path, dialect=dialect, limits=limits)
    return DuckDBExecutor(path, dialect=dialect, limits=limits)


def _postgres(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .postgres import PostgresExecutor

    conninfo_module = import_driver("psycopg.conninfo", "psycopg[binary,pool]")
    parts = {"host": settings.get("host"), "port": settings.get("port"), "user": settings.get("user"),
             "password": settings.get("password"), "dbname": settings.get("database")}
    conninfo = conninfo_module.make_conninfo(str(settings.get("url") or ""), **{k: str(v) for k, v in parts.items() if v not in (None, "")})
    return PostgresExecutor(conninfo, dialect=dialect, schema=settings.get("schema"), pool_size=_int(settings, "pool_size", 4),
                            connect_timeout_s=float(settings.get("connect_timeout", 10)), default_timeout_s=default_timeout_s)


def _mysql(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .mysql import MySQLExecutor

    merged = dict(settings)
    if settings.get("url"):  # mysql://user:password@host:port/database; explicit keys win
        url = urlparse(str(settings["url"]))
        from_url = {"host": url.hostname, "port": url.port, "user": unquote(url.username or "") or None,
                    "password": unquote(url.password or "") or None, "database": url.path.lstrip("/") or None}
        merged = {k: v for k, v in from_url.items() if v is not None} | {k: v for k, v in settings.items() if v not in (None, "")}
    return MySQLExecutor(host=str(merged.get("host") or "127.0.0.1"), port=_int(merged, "port", 3306), user=merged.get("user"),
                         password=merged.get("password"), database=merged.get("database"), dialect=dialect,
                         pool_size=_int(merged, "pool_size", 4), connect_timeout_s=float(merged.get("connect_timeout", 10)))


def _snowflake(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .snowflake import SnowflakeExecutor

    resolved = dict(settings)
    if settings.get("private_key_path"):
        resolved["private_key_path"] = _file_path(settings, "private_key_path", base_dir)
    return SnowflakeExecutor(resolved, dialect=dialect, pool_size=_int(settings, "pool_size", 4))


def _bigquery(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .bigquery import BigQueryExecutor

    credentials = _file_path(settings, "credentials_path", base_dir) if settings.get("credentials_path") else None
    billed = settings.get("maximum_bytes_billed")
    return BigQueryExecutor(project=settings.get("project"), location=settings.get("location"), credentials_path=credentials,
                            maximum_bytes_billed=_int(settings, "maximum_bytes_billed", 0) if billed else None, dialect=dialect)


def _trino(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .trino import TrinoExecutor, settings_from

    _require(settings, "host")
    return TrinoExecutor(**settings_from(settings), port=_int(settings, "port", 8080), dialect=dialect)


def _clickhouse(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .clickhouse import ClickHouseExecutor

    _require(settings, "host")
    return ClickHouseExecutor(settings, dialect=dialect)


def _spark(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .spark import SparkConnectExecutor

    _require(settings, "url")
    return SparkConnectExecutor(str(settings["url"]), dialect=dialect)


def _databricks(settings: Mapping[str, Any], base_dir: Path, dialect: str, default_timeout_s: float) -> Executor:
    from .databricks import DatabricksExecutor

    for key in ("server_hostname", "http_path", "access_token"):
        _require(settings, key)
    return DatabricksExecutor(settings, dialect=dialect)


def _require(settings: Mapping[str, Any], key: str) -> None:
    if settings.get(key) in (None, ""):
        raise ConfigError(f"connection.{key} is required for the {settings['backend']} backend",
                          location=Location(field=f"connection.{key}"))


_BUILDERS: dict[str, Callable[[Mapping[str, Any], Path, str, float], Executor]] = {
    "sqlite": _sqlite, "duckdb": _duckdb, "postgres": _postgres, "mysql": _mysql, "snowflake": _snowflake, "bigquery": _bigquery,
    "trino": _trino, "clickhouse": _clickhouse, "spark": _spark, "databricks": _databricks,
}
