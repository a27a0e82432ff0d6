"""Build an executor from a ``database.yml`` connection mapping; route Spider2 instances to backends.

The mapping is the layer's ``connection:`` block. ``${ENV_VAR}`` in any string value is expanded
here (secrets never live in YAML), relative file paths are resolved against the layer's folder,
and keys this backend does not use (``demo`` and the like) are ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from pathlib import Path
from typing import Any

from engine.dialects import SUPPORTED_DIALECTS, Engine, backend_names, dialect as dialect_of, find as find_engine
from engine.errors import Location, nearest

from .base import DEFAULT_TIMEOUT_S, Executor
from .errors import ConfigError
from .settings import expand_env  # noqa: F401 - importable from here as before

# every name a `backend:` may take (the engines, then their aliases): engine/dialects, one module per engine
BACKENDS = backend_names()

# Spider2 instance id prefix -> backend, first match wins ("sf_bq001" is Snowflake, not BigQuery).
SPIDER2_ROUTES: tuple[tuple[str, Engine], ...] = (
    ("sf", Engine.SNOWFLAKE),
    ("local", Engine.SQLITE),
    ("bq", Engine.BIGQUERY),
    ("ga", Engine.BIGQUERY),
)

def create_executor(connection: Mapping[str, Any], *, base_dir: Path, dialect: str | None = None,
                    default_timeout_s: float = DEFAULT_TIMEOUT_S) -> Executor:
    """The executor for one database; raises ConfigError for a bad mapping, BackendUnavailable for a missing driver.

    `default_timeout_s` is the timeout most queries will ask for: backends that keep it in the session
    (PostgreSQL, MySQL) set it once per connection instead of once per query.
    """
    settings = expand_env(dict(connection))
    backend = str(settings.get("backend") or "").strip().lower()
    engine = find_engine(backend)
    if engine is None and not backend:  # `smq import dbt` writes a layer without one: what to add, not "unknown backend ''"
        raise ConfigError("the database has no connection: add a `connection:` to database.yml (e.g. `backend: duckdb` "
                          "and `path: data/db.duckdb`, or `url: postgresql://...`; docs/semantic-layer.md)",
                          location=Location(field="connection"))
    if engine is None:
        raise ConfigError(
            f"unknown backend '{backend}'; valid backends are: {', '.join(BACKENDS)}",
            location=Location(field="connection.backend"),
            suggestions=nearest(backend, SUPPORTED_DIALECTS) if backend else (),
        )
    builder = _builder(dialect_of(engine).executor)
    return builder(settings, Path(base_dir), dialect or engine.value, default_timeout_s)


Builder = Callable[[Mapping[str, Any], Path, str, float], Executor]


def _builder(target: str) -> Builder:
    """The `from_settings` of an engine's executor module, as its dialect names it ("module:function"); the
    module (and its driver) is imported only when a database of that engine is opened."""
    module, _, name = target.partition(":")
    builder: Builder = getattr(import_module(module), name)
    return builder


def route_instance(instance_id: str) -> str:
    """The backend a Spider2 instance runs on, from its id prefix (``local001`` -> sqlite)."""
    lowered = instance_id.strip().lower()
    for prefix, backend in SPIDER2_ROUTES:
        if lowered.startswith(prefix):
            return backend.value
    known = ", ".join(f"{p}* -> {b.value}" for p, b in SPIDER2_ROUTES)
    raise ConfigError(f"cannot route Spider2 instance '{instance_id}': its id starts with none of the known prefixes ({known})")
