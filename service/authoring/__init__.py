"""Authoring tools: scaffold a layer from a live database (`smq init`), run model tests next to
the models (`smq test`), and lint a layer as a reviewer would (`smq lint`).

Introspection needs the database drivers, which is why this lives in `service`, not in the pure engine.
"""

from .init import InitResult, MergeError, ScaffoldError, init_layer
from .urls import ConnectionSpec, UrlError, parse_url

__all__ = ["ConnectionSpec", "InitResult", "MergeError", "ScaffoldError", "UrlError", "init_layer", "parse_url"]
