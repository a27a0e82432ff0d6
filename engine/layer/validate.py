"""Checks that span files: join endpoints, metric inputs and cycles, time dimensions,
primary keys where fan-out can happen, access roles, and columns against sources.yml."""

from __future__ import annotations

from collections.abc import Mapping
from graphlib import CycleError, TopologicalSorter

from sqlglot import exp

from ..errors import ErrorCollector, LayerError, nearest
from .columns import check_columns, table_key
from .conversion import check_conversion
from .exprs import quoted_value_hint
from .inputs import check_inputs
from .joins import FLIP
from .model import GRAINS, Dimension, Measure, SemanticLayer, column_name


def element_names(layer: SemanticLayer) -> Mapping[str, str]:
    """Every `Model__element` name mapped to 'dimension' or 'measure' (the layer's, built once: the layer's checks
    and the query checks of its filters both ask)."""
    return layer.element_kinds


def _strip_grain(name: str) -> str:
    parts = name.split("__")
    if len(parts) == 3 and parts[2].lower() in GRAINS:
        return "__".join(parts[:2])
    return name


def validate_layer(layer: SemanticLayer) -> list[LayerError]:
    errors = ErrorCollector()
    elements = element_names(layer)
    dimensions = [n for n, k in elements.items() if k == "dimension"]
    measures = [n for n, k in elements.items() if k == "measure"]
    _check_joins(layer, errors)
    _check_metrics(layer, errors, elements, dimensions, measures)
    _check_primary_keys(layer, errors)
    _check_roles(layer, errors, elements, dimensions)
    _check_sources(layer, errors)
    return errors.errors


def _check_joins(layer: SemanticLayer, errors: ErrorCollector) -> None:
    seen: dict[tuple[str, str, str], str] = {}
    for edge in layer.joins:
        for end, field in ((edge.from_model, "from"), (edge.to_model, "to")):
            if end not in layer.models:
                errors.add(f"{edge.location.field}.{field}: unknown model '{end}'", edge.location, code="unknown_model",
                           suggestions=nearest(end, layer.models))
        if edge.from_model == edge.to_model:
            errors.add(f"{edge.location.field}: a model cannot join itself ({edge.from_model}); wrap the second role in a derived model (sql:)",
                       edge.location, code="invalid_join")
        ident = (edge.from_model, edge.to_model, edge.key)
        if ident in seen:
            errors.add(f"{edge.location.field}: duplicate edge {edge.from_model} -[{edge.key}]-> {edge.to_model} (also at {seen[ident]})",
                       edge.location, code="duplicate_name")
        seen[ident] = str(edge.location)


def _check_metrics(layer: SemanticLayer, errors: ErrorCollector, elements: Mapping[str, str], dimensions: list[str], measures: list[str]) -> None:
    graph: dict[str, list[str]] = {}  # metric -> the metrics it reads, in the order met
    for metric in layer.metrics.values():
        graph.setdefault(metric.name, [])
        loc = metric.location
        field = loc.field

        def unknown(ref: str, role: str, pool: list[str]) -> None:
            errors.add(f"{field}: {role} '{ref}' is not a {'measure' if pool is measures else 'measure or metric'} of this layer",
                       loc, code="unknown_element", suggestions=nearest(ref, pool))

        if metric.type in ("simple", "cumulative") and metric.measure:
            if elements.get(metric.measure) != "measure":
                unknown(metric.measure, "measure", measures)
        for ref, role in ((metric.numerator, "numerator"), (metric.denominator, "denominator")):
            if ref and ref not in layer.metrics and elements.get(ref) != "measure":
                unknown(ref, role, measures + list(layer.metrics))
            elif ref and ref in layer.metrics:
                graph[metric.name].append(ref)
        if metric.type == "derived" and metric.expr_node is not None:
            for ref in metric.inputs():
                if ref in layer.metrics:
                    graph[metric.name].append(ref)
                elif elements.get(ref) != "measure" and ref not in {i.name for i in metric.input_specs}:  # those: at their line
                    aliases = [i.alias for i in metric.input_specs if i.alias]  # a misspelled alias: the nearest aliases first
                    errors.add(f"{field}: input '{ref}' is not {'an alias of its inputs, nor ' if aliases else ''}a measure or metric "
                               "of this layer", loc, code="unknown_element",
                               suggestions=list(dict.fromkeys(nearest(ref, aliases) + nearest(ref, measures + list(layer.metrics)))))
            for _subquery in metric.expr_node.find_all(exp.Subquery, exp.Select):
                errors.add(f"{field}.expr: subqueries are not allowed in a derived metric", loc, code="invalid_metric")
                break
        if metric.type == "derived" and metric.derived_inputs:
            check_inputs(metric.name, metric.derived_inputs, metric.expr_names(), layer.time_spine is not None, errors)
        if metric.conversion is not None:
            check_conversion(layer, metric.name, metric.conversion, errors)
        if metric.type == "derived":
            for spec in metric.input_specs:
                if spec.name not in layer.metrics and elements.get(spec.name) != "measure":
                    errors.add(f"{spec.location.field if spec.location else field}: input '{spec.name}' is not a measure or metric "
                               "of this layer", spec.location or loc, code="unknown_element",
                               suggestions=nearest(spec.name, measures + list(layer.metrics)))
        if metric.join_to_timespine and layer.time_spine is None:
            errors.add(f"{field}.join_to_timespine: metric '{metric.name}' needs a time spine: add time_spine (table, column) "
                       f"to database.yml", loc, code="missing_time_spine")
        measure = _measure(layer, metric.measure or "") if metric.type == "cumulative" else None
        if measure is not None and measure.non_additive is not None:
            errors.add(f"{field}.measure: {measure.qualified_name} is semi-additive (non_additive_dimension); a cumulative "
                       f"metric over it would add up balances across days. Use a simple metric", loc, code="invalid_metric")
        if metric.type == "cumulative":
            if layer.time_spine is None:
                errors.add(f"{field}: cumulative metric '{metric.name}' needs a time spine: add time_spine (table, column) to database.yml",
                           loc, code="missing_time_spine")
            td = metric.time_dimension or ""
            dim = _dimension(layer, td)
            if td and dim is None:
                errors.add(f"{field}.time_dimension: '{td}' is not a dimension", loc, code="unknown_element",
                           suggestions=nearest(td, dimensions))
            elif dim is not None and not dim.is_time:
                errors.add(f"{field}.time_dimension: '{td}' has type {dim.type}; a time dimension must be date or timestamp",
                           loc, code="invalid_time_dimension")
    for cycle in _metric_cycles(graph):
        first = layer.metrics[sorted(cycle)[0]]
        chain = " -> ".join(cycle + [cycle[0]])
        errors.add(f"{first.location.field}: metrics form a cycle: {chain}", first.location, code="metric_cycle")


def _metric_cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Every cycle of metric references; networkx (slow to import) only lists them once the stdlib has seen one."""
    try:
        TopologicalSorter(graph).prepare()
        return []
    except CycleError:
        import networkx as nx

        digraph = nx.DiGraph()
        for name, targets in graph.items():  # the order of old: the cycles print as they always did
            digraph.add_node(name)
            digraph.add_edges_from((name, target) for target in targets)
        return sorted(nx.simple_cycles(digraph), key=lambda c: sorted(c))


def _measure(layer: SemanticLayer, name: str) -> Measure | None:
    model, _, element = name.partition("__")
    found = layer.models.get(model)
    return found.measures.get(element) if found is not None else None


def _dimension(layer: SemanticLayer, name: str) -> Dimension | None:
    model, _, elem = name.partition("__")
    m = layer.models.get(model)
    return m.dimensions.get(elem) if m else None


def _check_primary_keys(layer: SemanticLayer, errors: ErrorCollector) -> None:
    """A model with measures must have a primary key if a one_to_many step leaves it."""
    for model in layer.models.values():
        if model.primary_key or not model.measures:
            continue
        for edge in layer.joins:
            walked = None
            if edge.from_model == model.name:
                walked = edge.relationship
            elif edge.to_model == model.name:
                walked = FLIP[edge.relationship]
            if walked == "one_to_many":
                other = edge.to_model if edge.from_model == model.name else edge.from_model
                errors.add(
                    f"model {model.name} has measures and a one_to_many join to {other} (key '{edge.key}'), "
                    "so queries can fan out its rows: declare its primary_key so they can be deduplicated",
                    model.location, code="missing_primary_key",
                )
                break


def _check_roles(layer: SemanticLayer, errors: ErrorCollector, elements: Mapping[str, str], dimensions: list[str]) -> None:
    for role in layer.roles.values():
        for name in role.hidden:
            if name not in elements and name not in layer.metrics:
                errors.add(f"{role.location.field}.hidden: unknown element '{name}'", role.location, code="unknown_element",
                           suggestions=nearest(name, elements))
        for text, node in zip(role.row_filters, role.row_filter_nodes):
            refs = [column_name(col) for col in node.find_all(exp.Column)]
            for col in node.find_all(exp.Column):
                ref = column_name(col)
                if elements.get(ref) != "dimension" and (hint := quoted_value_hint(col)):
                    errors.add(f"{role.location.field}.row_filters: filter '{text}': {hint.removeprefix('; ')}", role.location,
                               code="invalid_filter")
                elif elements.get(ref) != "dimension":
                    errors.add(f"{role.location.field}.row_filters: '{text}' refers to '{ref}', which is not a dimension "
                               "(row filters use dimensions of one model, without grains or paths)",
                               role.location, code="invalid_filter", suggestions=nearest(ref, dimensions))
            models = sorted({r.split("__")[0] for r in refs if elements.get(r) == "dimension"})  # the unknown: reported
            if len(models) > 1:
                errors.add(f"{role.location.field}.row_filters: '{text}' uses dimensions of {' and '.join(models)}; "
                           "a row filter restricts one model (write one filter per model)", role.location, code="invalid_filter")


def _check_sources(layer: SemanticLayer, errors: ErrorCollector) -> None:
    """sources.yml is a catalog: every column the layer names must be one of its table's (columns.py)."""
    if not layer.sources:
        return
    catalog: dict[str, list[str]] = {}
    for key, source in layer.sources.items():
        names = [c.name for c in source.columns.values()]
        catalog[table_key(key)] = names
        catalog[table_key(source.table)] = names
    errors.errors.extend(check_columns(layer, catalog, "sources.yml"))
