"""Checks of a layer that read it as queries read it: every filter written in the layer (a metric's, an input's,
a conversion measure's, a role's row filter) and every derived expression, resolved with the query's own rules, so a
layer filter says what a query would say of the same text, at the filter's own file:line.

They run after the layer is read (engine/layer/) and before it is used: `engine.facade.load_layer` passes
`check_layer_filters` to the loader, and their errors join the loader's in one LayerValidationError.
"""

from __future__ import annotations

from sqlglot import exp

from ..errors import ErrorCollector, LayerError, Location, QueryError, nearest
from ..layer.exprs import quoted_value_hint
from ..layer.model import SemanticLayer, column_name
from ..layer.validate import _strip_grain, element_names
from .filters import check_allowed
from .metric_filters import extract, is_placeholder
from .names import DimRef, Resolver

# what a query says of a name that is almost a dimension (a grain, a date part, a path), said of a layer filter too
NAME_PROBLEMS = ("unknown_grain", "invalid_grain", "invalid_name", "unreachable_model", "ambiguous_path")


def check_layer_filters(layer: SemanticLayer) -> list[LayerError]:
    """Every layer filter and derived expression checked as a query would check it."""
    errors = ErrorCollector()
    elements = element_names(layer)
    dimensions = [n for n, k in elements.items() if k == "dimension"]
    resolver = Resolver(layer)  # the names of metric filters, read as queries read them
    for metric in layer.metrics.values():
        loc = metric.location
        field = loc.field
        if metric.type == "derived" and metric.expr_node is not None:
            _allowed(metric.expr_node, metric.expr or "", f"{field}.expr", "derived expression", loc, errors)
        filters = [(text, node, field, _at(metric.filter_locations, i, loc, f"{field}.filters"))
                   for i, (text, node) in enumerate(zip(metric.filters, metric.filter_nodes))]
        for spec in metric.input_specs:
            sfield = spec.location.field if spec.location and spec.location.field else field
            filters += [(text, node, sfield, _at(spec.filter_locations, i, spec.location or loc, f"{sfield}.filters"))
                        for i, (text, node) in enumerate(zip(spec.filters, spec.filter_nodes))]
        if metric.conversion is not None:  # base_measure / conversion_measure filters, at their own lines
            filters += [(text, node, str(floc.field or field or "").rpartition(".filters")[0], floc)
                        for text, node, floc in (*metric.conversion.base_filters, *metric.conversion.conversion_filters)]
        for text, node, ffield, floc in filters:  # the metric's own, then its inputs' (each at its own line)
            checked = _without_metric_calls(layer, node, text, f"{ffield}.filters", floc, errors)
            if checked is None:  # its METRIC(...) call is reported
                continue
            node = checked
            _allowed(node, text, f"{ffield}.filters", "filter", floc, errors)
            for col in node.find_all(exp.Column, exp.Dot):
                if isinstance(col.parent, exp.Dot) or is_placeholder(column_name(col)):
                    continue
                ref = _strip_grain(column_name(col).split(".")[-1])
                problem = _filter_name_problem(resolver, column_name(col), f"{ffield}.filters")
                if problem is not None:  # what is wrong with a name that is almost a dimension, as a query says it
                    errors.add(f"{ffield}.filters: filter '{text}': {problem.message}", floc, code=problem.code,
                               suggestions=problem.suggestions)
                elif elements.get(ref) != "dimension" and (hint := quoted_value_hint(col)):
                    errors.add(f"{ffield}.filters: filter '{text}': {hint.removeprefix('; ')}", floc, code="invalid_filter")
                elif elements.get(ref) != "dimension" and not _time_axis_or_mf_name(resolver, column_name(col)):
                    errors.add(f"{ffield}.filters: '{text}' refers to '{ref}', which is not a dimension (metric filters use dimensions only)",
                               floc, code="invalid_filter", suggestions=nearest(ref, dimensions))
    for role in layer.roles.values():
        for text, node in zip(role.row_filters, role.row_filter_nodes):
            _allowed(node, text, f"{role.location.field}.row_filters", "row filter", role.location, errors)
    return errors.errors


def _at(places: tuple[Location, ...], i: int, fallback: Location, field: str) -> Location:
    """Where the i-th filter is written (its own line), else the element's; the field as the message names it."""
    loc = places[i] if i < len(places) else fallback
    return Location(loc.file, loc.line, loc.column, field)


def _without_metric_calls(layer: SemanticLayer, node: exp.Expression, text: str, field: str, loc: Location,
                          errors: ErrorCollector) -> exp.Expression | None:
    """A metric filter's METRIC(metric, dimension...) calls checked (names resolve) and set aside as placeholders."""
    try:
        return extract(node.copy(), text, field, Resolver(layer))[0]
    except QueryError as err:
        errors.add(f"{field}: {err.message}", loc, code=err.code, suggestions=err.suggestions)
        return None


def _time_axis_or_mf_name(resolver: Resolver, name: str) -> bool:
    """metric_time, a date part, or a MetricFlow name (on a layer with entities): a dimension too."""
    try:
        return isinstance(resolver.resolve(name, "filters"), DimRef)
    except QueryError:
        return False


def _filter_name_problem(resolver: Resolver, name: str, field: str) -> QueryError | None:
    """The query's own error for a name in a layer filter (`metric_time__fortnight`, `Model__status__extract_dow`),
    or None when the name is a dimension, or simply not one (reported as such by the caller)."""
    try:
        resolver.resolve(name, field)
    except QueryError as err:
        return err if err.code in NAME_PROBLEMS else None
    return None


def _allowed(node: exp.Expression, text: str, field: str, what: str, loc: Location, errors: ErrorCollector) -> None:
    try:
        check_allowed(node, text, field, what)
    except QueryError as err:
        errors.add(f"{field}: {err.message}", loc, code="invalid_expression")
