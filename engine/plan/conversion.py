"""Planning a conversion metric: the base measure aggregated as usual, and the conversions in a group of their own.

The conversions group is keyed like the base measure (its model, metric_time bound to the base measure's
time dimension), because the conversions are counted at the base event they are attributed to;
sql/conversion.py renders it. The metric is then `conversions` or `conversions / base` (a float division).

Filters, as MetricFlow applies them: the metric's own `filters`, those of `base_measure: {filters}` and
those handed down by a ratio/derived metric above it restrict the base events (like a query filter);
`conversion_measure: {filters}` restrict the conversion events. Read at an offset (a derived input's
`offset_window` / `offset_to_grain`), the base events count at the shifted period, like a simple metric's rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sqlglot import exp

from ..errors import InternalError, Location, QueryError
from ..layer.joins import Path, path_text
from ..layer.model import Metric
from ..resolve.filters import Filter, parse_filter
from ..resolve.names import DimRef, MeasureRef
from ..dialects.base import float_division
from .nodes import Aggregate, FactGroup
from .offsets import offset_key

if TYPE_CHECKING:
    from .planner import GroupKey, Inherited, Planner


@dataclass(frozen=True, slots=True)
class ConversionEvents:
    """What the conversions group needs besides its metric: the conversion events' filters and their join paths
    from the conversion measure's model."""
    metric: Metric
    filters: tuple[Filter, ...] = ()
    paths: tuple[tuple[DimRef, Path], ...] = ()


def conversion_template(planner: Planner, metric: Metric, field: str, inherited: Inherited = ()) -> exp.Expression:
    """The metric's expression over aggregate columns: the conversions, or their rate per base event."""
    params = metric.conversion
    if params is None:
        raise InternalError(f"conversion metric {metric.name} has no parameters")
    at = f"metric {metric.name}"
    base_filters = inherited + tuple((text, f"{at}.filters[{i}]") for i, text in enumerate(metric.filters))
    base_filters += tuple((text, f"{at}.base_measure.filters[{i}]") for i, (text, _, _) in enumerate(params.base_filters))
    base_ref = planner.layer_resolver.resolve(params.base_measure, field)
    if not isinstance(base_ref, MeasureRef):  # validated
        raise InternalError(f"conversion metric {metric.name}: base_measure is not a measure")
    base_column = planner.expand(base_ref, field, inherited=base_filters)  # the base events, filtered alike
    base = base_ref.measure
    filters = _parsed(planner, base_filters, base.model, base)
    texts = tuple(sorted(f.text for f in filters))
    key = (base.qualified_name, texts, f"conversion:{metric.name}" + offset_key(planner.offset))
    agg = planner.aggregates.get(key)
    if agg is None:
        agg = Aggregate(f"a{len(planner.aggregates)}", base)  # the base measure: it places the group on metric_time
        planner.aggregates[key] = agg
        axis = planner.time_dimension(base, None) if planner.axis_used else None
        group_key: GroupKey = (base.model, texts, key[2], axis.qualified_name if axis else "")
        planner.groups.setdefault(group_key, []).append(agg)
        planner.group_filters[group_key] = filters
        planner.group_metric[group_key] = None
        planner.group_offset[group_key] = planner.offset
        planner.group_conversion[group_key] = conversion_events(planner, metric, field)
        planner.first_use.setdefault(group_key, field)
    conversions = exp.column(agg.id)
    return conversions if params.calculation == "conversions" else float_division(conversions, base_column)


def _parsed(planner: Planner, texts: Inherited, model: str, measure: object) -> tuple[Filter, ...]:
    """Filter texts (each once, first field kept) parsed and bound to a measure's model, as the planner's aggregates are."""
    unique = dict(reversed(texts))
    out = []
    for text in dict.fromkeys(t for t, _ in texts):
        f = planner.with_subplans(parse_filter(text, unique[text], planner.layer_resolver, planner.layer.dialect))
        out.append(planner.bind_filter(f, model, measure, None, planner.layer_resolver))  # type: ignore[arg-type]
    return tuple(out)


def conversion_events(planner: Planner, metric: Metric, field: str) -> ConversionEvents:
    """The conversion_measure's filters, bound to its model, with a join path (never fanning out) for each dimension."""
    params = metric.conversion
    assert params is not None
    if not params.conversion_filters:
        return ConversionEvents(metric)
    model_name, _, measure_name = params.conversion_measure.partition("__")
    measure = planner.layer.models[model_name].measures[measure_name]
    texts = tuple((text, f"metric {metric.name}.conversion_measure.filters[{i}]") for i, (text, _, _) in enumerate(params.conversion_filters))
    filters = _parsed(planner, texts, model_name, measure)
    paths: dict[tuple[str, tuple[str, ...]], tuple[DimRef, Path]] = {}
    for f in filters:
        for ref in f.dimension_refs():
            ident = (ref.dimension.qualified_name, ref.keys)
            if ident in paths:
                continue
            try:
                path = planner.path(model_name, ref)
            except QueryError as err:
                raise QueryError(f"{err.message}; it is needed from {model_name} (the conversion events of {metric.name})",
                                 code=err.code, location=Location(field=f.field), suggestions=err.suggestions) from None
            if any(step.fans_out for step in path):
                raise QueryError(f"filter '{f.text}' of the conversion events of {metric.name}: the path {path_text(model_name, path)} "
                                 "fans out (one_to_many) and would repeat conversion events; filter on a dimension reached "
                                 "many_to_one", code="fan_out_without_primary_key", location=Location(field=f.field))
            paths[ident] = (ref, path)
    return ConversionEvents(metric, filters, tuple(paths.values()))


def with_conversion(group: FactGroup, events: ConversionEvents) -> FactGroup:
    """The planned group of a conversion metric's conversions (planner._groups)."""
    return replace(group, conversion=events.metric, conversion_filters=events.filters, conversion_paths=events.paths)
