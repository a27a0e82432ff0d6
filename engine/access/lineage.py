"""Which columns hold a role's hidden values: read by the access rules (engine/access.py) for raw SQL and by
MetricFlow's entity names (engine/smq/mf_names.py), so both refuse the same columns.

A hidden dimension's columns are secret, and so is every key holding the same values: the other side of a
join on one, and an entity's key in every model that declares an entity reading one, to a fixpoint. The
result depends only on the layer (immutable) and the hidden names, so it is computed once per layer and role.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping

from ..lru import LruCache
from ..layer.exprs import columns_read, parse_expression
from ..layer.model import SemanticLayer

# (id of the layer, hidden names) -> (the layer, weakly, and its secret columns): an id is reused only once its layer is gone
_SECRETS: LruCache[tuple[int, frozenset[str]], tuple[weakref.ref, Mapping[str, frozenset[str]]]] = LruCache(256)


def _hidden_dimension_columns(layer: SemanticLayer, model_name: str, hidden: set[str] | frozenset[str]) -> set[str]:
    """The columns hidden dimensions of a model read."""
    return set(columns_read([d.node for d in layer.models[model_name].dimensions.values() if d.qualified_name in hidden]))


def _entity_columns(layer: SemanticLayer) -> dict[tuple[str, str], set[str]]:
    """(model, entity) -> the columns the entity's key reads in that model."""
    return {(m.name, e.name): set(columns_read([parse_expression(e.expr, layer.dialect)]))
            for m in layer.models.values() for e in m.entities.values()}


def secret_columns(layer: SemanticLayer, hidden: set[str] | frozenset[str]) -> Mapping[str, frozenset[str]]:
    """Model -> the columns that hold values of the hidden dimensions (see the module's docstring)."""
    key = (id(layer), frozenset(hidden))
    cached = _SECRETS.get(key)
    if cached is not None and cached[0]() is layer:
        return cached[1]
    secret = {name: frozenset(cols) for name, cols in _secret_columns(layer, key[1]).items()}
    _SECRETS.put(key, (weakref.ref(layer), secret))
    return secret


def _secret_columns(layer: SemanticLayer, hidden: frozenset[str]) -> dict[str, set[str]]:
    out = {name: _hidden_dimension_columns(layer, name, hidden) for name in layer.models}
    if not any(out.values()):
        return out
    entities = _entity_columns(layer)
    changed = True

    def mark(model: str, columns: set[str]) -> None:
        nonlocal changed
        if not columns <= out[model]:
            out[model] |= columns
            changed = True

    while changed:
        changed = False
        for edge in layer.joins:
            for left, right in edge.key_pairs():
                lcols, rcols = set(columns_read([left])), set(columns_read([right]))
                if lcols & out[edge.from_model]:
                    mark(edge.to_model, rcols)
                if rcols & out[edge.to_model]:
                    mark(edge.from_model, lcols)
        secret_entities = {entity for (model, entity), cols in entities.items() if cols & out[model]}
        for (model, entity), cols in entities.items():
            if entity in secret_entities:
                mark(model, cols)
    return out
