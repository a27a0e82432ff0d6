"""What a role may see, by following the data: the columns that hold hidden values, and every element that reads one.

A role's `hidden` elements name values it must never see. Hiding the names is not enough: `OrdersModel__customerRef`
lists the very codes `CustomersModel__customerCode` holds (it is the join key), and raw SQL could read
`orders.customer_ref`. So, per role (access/__init__.py, steps 1 and 2):

1. **Secret columns**: every column a hidden dimension or measure reads; then, to a fixpoint, every column joined to
   a secret one (both sides of a join key pair) and every column an entity's key reads, in every model that declares
   an entity whose key reads a secret column.
2. **Hidden by lineage**: every dimension and measure that reads a secret column of its model, every entity whose key
   reads one, every semi-additive measure whose non_additive_dimension or window_groupings is hidden, and every
   metric that reads a hidden element (at any depth): computed from a hidden measure or metric, filtered on a hidden
   dimension, entity or metric (its own filters, its inputs', a conversion's base and conversion filters), or
   cumulative along a hidden time dimension — besides those the role hides by name. A filter on a hidden `status`
   would otherwise tell its values row by row (`shippedOrders` grouped by the order id).

The resolver treats every hidden name as unknown; raw SQL leaves every secret column out of the role's projections.
The result depends only on the layer (immutable) and the role, so it is computed once per layer and role.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import QueryError
from ..layer.exprs import columns_read, parse_expression
from ..layer.model import Dimension, Measure, Metric, Role, SemanticLayer
from ..lru import LruCache
from ..resolve.filters import parse_filter
from ..resolve.names import Resolver


@dataclass(frozen=True)
class Visibility:
    """One role's view of a layer."""

    hidden: frozenset[str] = frozenset()  # element names (Model__element, metric names): declared and by lineage
    hidden_entities: frozenset[str] = frozenset()  # MetricFlow entity names whose key reads a secret column
    secret: Mapping[str, frozenset[str]] = field(default_factory=dict)  # model -> columns holding hidden values
    why: Mapping[str, str] = field(default_factory=dict)  # an element hidden by lineage -> the secret column it reads

    def __bool__(self) -> bool:
        return bool(self.hidden or self.hidden_entities)


NOTHING_HIDDEN = Visibility()
ENTITY = "entity "  # what a metric reads: an entity's name, apart from element names

# (id of the layer, role) -> (the layer, weakly, its visibility): an id is reused only once its layer is gone
_CACHE: LruCache[tuple[int, str, tuple[str, ...]], tuple[weakref.ref, Visibility]] = LruCache(256)


def visibility(layer: SemanticLayer, role: Role | None) -> Visibility:
    """What `role` may see of `layer` (everything without a role or with nothing hidden)."""
    if role is None or not role.hidden:
        return NOTHING_HIDDEN
    key = (id(layer), role.name, role.hidden)
    cached = _CACHE.get(key)
    if cached is not None and cached[0]() is layer:
        return cached[1]
    found = _visibility(layer, frozenset(role.hidden))
    _CACHE.put(key, (weakref.ref(layer), found))
    return found


def secret_columns(layer: SemanticLayer, hidden: set[str] | frozenset[str]) -> Mapping[str, frozenset[str]]:
    """Model -> the columns that hold values of the hidden elements (step 1 of the module's docstring)."""
    return {name: frozenset(cols) for name, cols in _secret_columns(layer, frozenset(hidden)).items()}


def _visibility(layer: SemanticLayer, declared: frozenset[str]) -> Visibility:
    secret = secret_columns(layer, declared)
    hidden = set(declared)
    why: dict[str, str] = {}
    for model in layer.models.values():
        cols = secret[model.name]
        if not cols:
            continue
        elements: list[Dimension | Measure] = [*model.dimensions.values(), *model.measures.values()]
        for element in elements:
            if element.qualified_name in hidden or element.node is None:
                continue
            read = sorted(set(columns_read([element.node])) & cols)
            if read:
                hidden.add(element.qualified_name)
                why[element.qualified_name] = f"{model.name}.{read[0]}"
    entities = frozenset(entity for (model, entity), cols in _entity_columns(layer).items() if cols & secret[model])
    for model in layer.models.values():  # a semi-additive measure picks its rows by its non-additive dimension and groupings
        for measure in model.measures.values():
            spec = measure.non_additive
            if spec is None or measure.qualified_name in hidden:
                continue
            source = next((f"{model.name}__{n}" for n in (spec.dimension, *spec.window_groupings) if f"{model.name}__{n}" in hidden), None)
            if source is not None:
                hidden.add(measure.qualified_name)
                why[measure.qualified_name] = why.get(source, source)
    reads = {metric.name: _metric_reads(layer, metric) for metric in layer.metrics.values()}
    changed = True
    while changed:  # metrics computed from, filtered by or counted along a hidden element, at any depth
        changed = False
        for metric in layer.metrics.values():
            if metric.name in hidden:
                continue
            source = next((name for name in reads[metric.name]
                           if name in hidden or name.removeprefix(ENTITY) in entities and name.startswith(ENTITY)), None)
            if source is not None:
                hidden.add(metric.name)
                why[metric.name] = why.get(source, source)
                changed = True
    return Visibility(frozenset(hidden), entities, secret, why)


def _metric_reads(layer: SemanticLayer, metric: Metric) -> list[str]:
    """What a metric reads, by name: its inputs (measures, metrics), a cumulative metric's time dimension, and every
    dimension, entity and metric its filters (its own, its inputs', a conversion's base and conversion events') name."""
    out = [*metric.inputs(), *(i.name for i in metric.input_specs)]
    if metric.type == "cumulative" and metric.time_dimension:
        out.append(metric.time_dimension)
    texts = [*metric.filters, *(f for i in metric.input_specs for f in i.filters)]
    if metric.conversion is not None:
        texts += [text for text, _, _ in (*metric.conversion.base_filters, *metric.conversion.conversion_filters)]
    if texts:
        resolver = Resolver(layer)
        for text in texts:
            try:
                found = parse_filter(text, f"metrics.{metric.name}.filters", resolver, layer.dialect)
            except QueryError:  # the layer's own checks report a filter that does not resolve
                continue
            for ref in found.dimension_refs():
                out.append(ref.dimension.qualified_name)
                owner = layer.models.get(ref.dimension.model)  # None for metric_time (no model of its own)
                if owner is not None and ref.dimension.name in owner.entities:
                    out.append(ENTITY + ref.dimension.name)  # an entity's key, hidden with the entity
            out += [e.name if isinstance(e, Metric) else e.measure.qualified_name for e in (r.element for r in found.metric_refs())]
    return out


def _element_columns(layer: SemanticLayer, model_name: str, hidden: frozenset[str]) -> set[str]:
    """The columns the hidden dimensions and measures of a model read."""
    model = layer.models[model_name]
    elements: list[Dimension | Measure] = [*model.dimensions.values(), *model.measures.values()]
    nodes = [e.node for e in elements if e.qualified_name in hidden and e.node is not None]
    return set(columns_read(nodes))


def _entity_columns(layer: SemanticLayer) -> dict[tuple[str, str], set[str]]:
    """(model, entity) -> the columns the entity's key reads in that model."""
    return {(m.name, e.name): set(columns_read([parse_expression(e.expr, layer.dialect)]))
            for m in layer.models.values() for e in m.entities.values()}


def _secret_columns(layer: SemanticLayer, hidden: frozenset[str]) -> dict[str, set[str]]:
    out = {name: _element_columns(layer, name, hidden) for name in layer.models}
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
