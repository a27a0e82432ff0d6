"""The semantic-layer engine: YAML layers in, deterministic SQL out. Pure: no HTTP, no LLMs.

    from engine import load_layers
    layers = load_layers("semantic_models")
    sql = layers["shop"].compile({"metrics": ["OrdersModel__orderCount"]}, dialect="postgres")

The errors are imported at once (small); the facade (sqlglot, networkx) only when one of its names is first
used, so `import engine.errors` or a CLI command that does not compile stays fast (docs/performance.md).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .errors import EngineError, InternalError, LayerError, LayerValidationError, Location, QueryError

if TYPE_CHECKING:
    from .dialects import SUPPORTED_DIALECTS
    from .facade import Compiled, Layer, Layers, default_models_dir, load_layer, load_layers
    from .rollups.bind import RollupState

# name -> the submodule defining it, imported on first access (PEP 562)
_LAZY = {
    "Layer": ".facade", "Layers": ".facade", "default_models_dir": ".facade", "load_layer": ".facade",
    "load_layers": ".facade", "SUPPORTED_DIALECTS": ".dialects", "Compiled": ".facade", "RollupState": ".rollups.bind",
}

__all__ = [
    "EngineError", "InternalError", "Layer", "LayerError", "LayerValidationError", "Layers", "Location", "QueryError",
    "SUPPORTED_DIALECTS", "default_models_dir", "load_layer", "load_layers", "Compiled", "RollupState",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
