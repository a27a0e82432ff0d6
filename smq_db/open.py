"""Open the executor of a semantic layer's database, building the demo database first when needed.

One function for the service's registry, the CLI (`smq query`, `smq ask`, `smq test`, `smq directives`), the
agent's tooling and bench/: a layer whose ``database.yml`` says ``demo: shop`` has no database file
in a fresh clone, so the file is built on first use before the executor opens it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import Layer

from .executors.base import DEFAULT_TIMEOUT_S, Executor
from .executors.errors import BackendUnavailable


def ensure_demo_for(layer: Layer) -> None:
    """Build the layer's demo database file if its connection names a demo and the file is missing or stale.

    Raises BackendUnavailable (the demo cannot be built: a bad path, a full disk, an unknown demo).
    """
    connection = layer.semantic.connection
    if not connection.get("demo"):
        return
    from .demo.stamp import demo_file, is_current

    try:
        path = demo_file(layer.semantic.directory, connection)
        if path is None or is_current(path):
            return  # built already: the builder (and its generator) is not even imported
        from .demo.build import ensure_demo

        ensure_demo(layer.semantic.directory)
    except (OSError, ValueError) as exc:
        raise BackendUnavailable(f"cannot build the demo database of '{layer.name}': {exc}") from None


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


def bound_this_process(settings: dict[str, Any]) -> dict[str, Any]:
    """The connection settings of an embedded engine that isolates its queries in a worker process, rewritten
    to run in this process, which is held to the database's memory limit instead (RLIMIT_DATA, lowered, never
    raised; no core file), exactly as a worker holds itself. Other settings come back unchanged."""
    import resource

    from engine.dialects import dialect as dialect_of, find as find_engine

    from .executors.limits import parse_limits

    engine = find_engine(str(settings.get("backend") or ""))
    if engine is None or not dialect_of(engine).isolated_by_default:
        return settings
    limits = parse_limits(settings.get("limits"))
    if not limits.isolated(engine.value):
        return settings
    soft, _hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = limits.memory if soft == resource.RLIM_INFINITY else min(soft, limits.memory)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return {**settings, "limits": {**dict(settings.get("limits") or {}), "isolation": "none"}}
