"""Open the executor of a semantic layer's database, building the demo database first when needed.

One function for the service's registry, the CLI (`smq query`, `smq ask`, `smq test`, `smq directives`), the
agent's tooling and bench/: a layer whose ``database.yml`` says ``demo: shop`` has no database file
in a fresh clone, so the file is built on first use before the executor opens it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .executors.base import DEFAULT_TIMEOUT_S, Executor
from .executors.errors import BackendUnavailable

if TYPE_CHECKING:  # the facade (sqlglot, the engine) is not imported to open a database a cache entry names
    from engine import Layer


def ensure_demo_for(layer: Layer) -> None:
    """Build the layer's demo database file if its connection names a demo and the file is missing or stale.

    Raises BackendUnavailable (the demo cannot be built: a bad path, a full disk, an unknown demo).
    """
    ensure_demo_at(layer.semantic.directory, layer.semantic.connection, layer.name)


def ensure_demo_at(directory: Path, connection: Mapping[str, Any], name: str) -> None:
    """`ensure_demo_for` given the layer's folder, its connection block and its name (a layer not loaded: the CLI's
    compiled-SQL cache, smq_cli/sqlcache.py)."""
    if not connection.get("demo"):
        return
    from .demo.stamp import demo_file, is_current

    try:
        path = demo_file(directory, connection)
        if path is None or is_current(path):
            return  # built already: the builder (and its generator) is not even imported
        from .demo.build import ensure_demo

        ensure_demo(directory)
    except (OSError, ValueError) as exc:
        raise BackendUnavailable(f"cannot build the demo database of '{name}': {exc}") from None


def open_for_layer(layer: Layer, *, connection: Mapping[str, Any] | None = None,
                   default_timeout_s: float = DEFAULT_TIMEOUT_S, one_shot: bool = False) -> Executor:
    """The executor for the layer's database (its ``connection:`` block unless `connection` is given).

    `one_shot`: the calling process runs this database's queries and then ends (`smq query`). An embedded
    engine that would run in a worker process under the database's memory bound then runs here, and this
    process takes the bound itself (`bound_this_process`): the same kernel limit on the process that runs the
    query, without starting a second interpreter. Never for a process that serves others.

    Raises ConfigError (a bad connection block), BackendUnavailable (a driver missing, the demo not
    buildable, a database file missing).
    """
    from .executors.factory import create_executor, expand_env  # the factory pulls in drivers on first use

    ensure_demo_for(layer)
    settings = dict(layer.semantic.connection if connection is None else connection)
    if one_shot:
        settings = bound_this_process(expand_env(settings))
    executor = create_executor(settings, base_dir=layer.semantic.directory, dialect=layer.dialect,
                               default_timeout_s=default_timeout_s)
    if layer.rollups:
        from .rollup_runs import RollupAwareExecutor
        from .rollups import refresh_states, store_path

        refresh_states(layer, executor)  # which rollups are built and fresh (the engine routes only to those)
        return RollupAwareExecutor(executor, store_path(layer))
    return executor


def bound_this_process(settings: dict[str, Any], isolated_by_default: bool | None = None) -> dict[str, Any]:
    """The connection settings of an embedded engine that isolates its queries in a worker process, rewritten
    to run in this process, which is held to the database's memory limit instead (RLIMIT_DATA, lowered, never
    raised; no core file), exactly as a worker holds itself. Other settings come back unchanged.
    `isolated_by_default`: the engine's trait as recorded (`Recorded`), else looked up in its dialect module."""
    import resource

    from .executors.limits import parse_limits

    if isolated_by_default is None:
        from engine.dialects import dialect as dialect_of, find as find_engine

        engine = find_engine(str(settings.get("backend") or ""))
        isolated_by_default = engine is not None and dialect_of(engine).isolated_by_default
    if not isolated_by_default:
        return settings
    limits = parse_limits(settings.get("limits"))
    if limits.isolation is not None and limits.isolation != "process":
        return settings
    soft, _hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = limits.memory if soft == resource.RLIM_INFINITY else min(soft, limits.memory)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return {**settings, "limits": {**dict(settings.get("limits") or {}), "isolation": "none"}}


@dataclass(frozen=True)
class Recorded:
    """What opening a layer's database needs of its engine's dialect, recorded next to a cached compiled query
    (smq_cli/sqlcache.py) so that a later `smq query` opens it without the dialect modules (and sqlglot): the
    engine, whether it isolates queries in worker processes by default, its executor's "module:function"."""

    backend: str  # connection.backend once its ${VAR}s are expanded, as it named the engine
    isolated_by_default: bool
    executor: str


def executor_record(layer: Layer) -> Recorded | None:
    """The layer's engine traits for `open_recorded`, or None when its backend is none this code knows."""
    from engine.dialects import dialect as dialect_of, find as find_engine

    from .executors.errors import ConfigError
    from .executors.settings import expand_env

    try:
        backend = str(expand_env(dict(layer.semantic.connection)).get("backend") or "")
    except ConfigError:  # an unset ${VAR}: opening says so; nothing is recorded
        return None
    engine = find_engine(backend.strip().lower())
    if engine is None:
        return None
    found = dialect_of(engine)
    return Recorded(backend, found.isolated_by_default, found.executor)


BUILDER = re.compile(r"smq_db\.executors\.[a-z]+:from_settings")  # what an engine's dialect names (engine/dialects)


def open_recorded(recorded: Recorded, connection: Mapping[str, Any], directory: Path, dialect: str, name: str, *,
                  default_timeout_s: float = DEFAULT_TIMEOUT_S, one_shot: bool = False) -> Executor | None:
    """`open_for_layer` for a layer without rollups, from what a cache entry recorded (the layer not loaded); None
    when the connection's backend (after ${VAR}s) is no longer the recorded engine: the caller opens it as usual."""
    from importlib import import_module

    from .executors.settings import expand_env

    ensure_demo_at(directory, connection, name)
    settings = expand_env(dict(connection))
    if str(settings.get("backend") or "") != recorded.backend or not BUILDER.fullmatch(recorded.executor):
        return None
    if one_shot:
        settings = bound_this_process(settings, recorded.isolated_by_default)
    module, _, function = recorded.executor.partition(":")
    executor: Executor = getattr(import_module(module), function)(settings, Path(directory), dialect, default_timeout_s)
    return executor
