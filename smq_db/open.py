"""Open the executor of a semantic layer's database, building the demo database first when needed.

One function for the service's registry, the CLI (`smq ask`, `smq test`, `smq directives`), the
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
    if not layer.semantic.connection.get("demo"):
        return
    from .demo.build import ensure_demo

    try:
        ensure_demo(layer.semantic.directory)
    except (OSError, ValueError) as exc:
        raise BackendUnavailable(f"cannot build the demo database of '{layer.name}': {exc}") from None


def open_for_layer(layer: Layer, *, connection: Mapping[str, Any] | None = None,
                   default_timeout_s: float = DEFAULT_TIMEOUT_S) -> Executor:
    """The executor for the layer's database (its ``connection:`` block unless `connection` is given).

    Raises ConfigError (a bad connection block), BackendUnavailable (a driver missing, the demo not
    buildable, a database file missing).
    """
    from .executors.factory import create_executor  # the factory pulls in drivers on first use

    ensure_demo_for(layer)
    settings = dict(layer.semantic.connection if connection is None else connection)
    return create_executor(settings, base_dir=layer.semantic.directory, dialect=layer.dialect,
                           default_timeout_s=default_timeout_s)
