"""Authoring tools: scaffold a layer from a live database (`smq init`), run model tests next to
the models (`smq test`), and lint a layer as a reviewer would (`smq lint`).

Introspection goes through `smq_db` (drivers, executors); the pure engine stays free of it.
"""

from .init import InitResult, MergeError, ScaffoldError, init_layer
from .urls import ConnectionSpec, UrlError, parse_url

__all__ = ["ConnectionSpec", "InitResult", "MergeError", "ScaffoldError", "UrlError", "init_layer", "parse_url"]
