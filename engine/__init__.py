"""The semantic-layer engine: YAML layers in, deterministic SQL out. Pure: no HTTP, no LLMs.

    from engine import load_layers
    layers = load_layers("semantic_models")
    sql = layers["shop"].compile({"metrics": ["OrdersModel__orderCount"]}, dialect="postgres")
"""

from .errors import EngineError, InternalError, LayerError, LayerValidationError, Location, QueryError
from .facade import Layer, Layers, default_models_dir, load_layer, load_layers
from .sql.dialects import SUPPORTED_DIALECTS

__all__ = [
    "EngineError", "InternalError", "Layer", "LayerError", "LayerValidationError", "Layers", "Location", "QueryError",
    "SUPPORTED_DIALECTS", "default_models_dir", "load_layer", "load_layers",
]
