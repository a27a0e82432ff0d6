"""Resolving a conversion metric: the base measure aggregated as usual, and the conversions in a group of their own.

The conversions group is keyed like the base measure (its model, metric_time bound to the base measure's
time dimension), because the conversions are counted at the base event they are attributed to;
sql/conversion.py renders it. The metric is then `conversions` or `conversions / base` (a float division),
each input COALESCEd to its `fill_nulls_with` when it has one.

Filters, as MetricFlow applies them: the metric's own `filters`, those of `base_measure: {filters}` and
those handed down by a ratio/derived metric above it restrict the base events (like a query filter);
`conversion_measure: {filters}` restrict the conversion events. Read at an offset (a derived input's
`offset_window` / `offset_to_grain`), the base events count at the shifted period, like a simple metric's rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sqlglot import exp

from ..dialects.base import float_division
from ..errors import InternalError, Location, QueryError
from ..layer.joins import Path, path_text
from ..layer.model import Metric
from .filters import Filter, parse_filter
from .names import DimRef, MeasureRef
from .offsets import offset_key
from .resolved import Aggregation, ConversionsRead, MeasureColumn

if TYPE_CHECKING:
    from .query_resolver import GroupKey, Inherited, QueryResolver


@dataclass(frozen=True, slots=True)
class ConversionEvents:
    """What the conversions group needs besides its metric: the conversion events' filters and their join paths
    from the conversion measure's model."""
    metric: Metric
    filters: tuple[Filter, ...] = ()
    paths: tuple[tuple[DimRef, Path], ...] = ()


def conversion_template(resolution: QueryResolver, metric: Metric, field: str, inherited: Inherited = ()) -> exp.Expression:
    """The metric's expression over aggregate columns: the conversions, or their rate per base event."""
    params = metric.conversion
    if params is None:
        raise InternalError(f"conversion metric {metric.name} has no parameters")
    at = f"metric {metric.name}"
    base_filters = inherited + tuple((text, f"{at}.filters[{i}]") for i, text in enumerate(metric.filters))
    base_filters += tuple((text, f"{at}.base_measure.filters[{i}]") for i, (text, _, _) in enumerate(params.base_filters))
    base_ref = resolution.layer_resolver.resolve(params.base_measure, field)
    if not isinstance(base_ref, MeasureRef):  # validated
        raise InternalError(f"conversion metric {metric.name}: base_measure is not a measure")
    base_column = resolution.expand(base_ref, field, inherited=base_filters)  # the base events, filtered alike
    base = base_ref.measure
    filters = _parsed(resolution, base_filters, base.model, base)
    texts = tuple(sorted(f.text for f in filters))
    key = (base.qualified_name, texts, f"conversion:{metric.name}" + offset_key(resolution.offset))
    agg = resolution.aggregates.get(key)
    if agg is None:
        agg = MeasureColumn(f"a{len(resolution.aggregates)}", base)  # the base measure: it places the group on metric_time
        resolution.aggregates[key] = agg
        axis = resolution.time_dimension(base, None) if resolution.axis_used else None
        group_key: GroupKey = (base.model, texts, key[2], axis.qualified_name if axis else "")
        resolution.groups.setdefault(group_key, []).append(agg)
        resolution.group_filters[group_key] = filters
        resolution.group_metric[group_key] = None
        resolution.group_offset[group_key] = resolution.offset
        resolution.group_conversion[group_key] = conversion_events(resolution, metric, field)
        resolution.first_use.setdefault(group_key, field)
    conversions = _filled(exp.column(agg.id), params.conversion_fill.fill_nulls_with)
    value = conversions if params.calculation == "conversions" else \
        float_division(conversions, _filled(base_column.copy(), params.base_fill.fill_nulls_with))
    filled = params.conversion_fill.fill_nulls_with is not None or params.base_fill.fill_nulls_with is not None
    if not filled or params.joins_spine:
        return value
    # filled where the metric's own groups have a row only: in a row another metric of the query adds, MetricFlow's
    # value is NULL (it fills each input before joining the metric to the others); joined to the spine, every period
    # is one of its own
    absent = exp.and_(exp.Is(this=exp.column(agg.id), expression=exp.Null()), exp.Is(this=base_column.copy(), expression=exp.Null()))
    return exp.Case(ifs=[exp.If(this=absent, true=exp.Null())], default=value)


def _filled(value: exp.Expression, fill: int | float | None) -> exp.Expression:
    """An input's aggregate where its group has no rows: `fill_nulls_with`, as MetricFlow COALESCEs each input
    once the base events' and the conversions' aggregates are joined (a spine period added: timespine_fill.py)."""
    return value if fill is None else exp.Coalesce(this=value, expressions=[exp.Literal.number(fill)])


def _parsed(resolution: QueryResolver, texts: Inherited, model: str, measure: object) -> tuple[Filter, ...]:
    """Filter texts (each once, first field kept) parsed and bound to a measure's model, as the resolution's aggregates are."""
    unique = dict(reversed(texts))
    out = []
    for text in dict.fromkeys(t for t, _ in texts):
        f = resolution.with_subplans(parse_filter(text, unique[text], resolution.layer_resolver, resolution.layer.dialect))
        out.append(resolution.bind_filter(f, model, measure, None, resolution.layer_resolver))  # type: ignore[arg-type]
    return tuple(out)


def conversion_events(resolution: QueryResolver, metric: Metric, field: str) -> ConversionEvents:
    """The conversion_measure's filters, bound to its model, with a join path (never fanning out) for each dimension."""
    params = metric.conversion
    assert params is not None
    if not params.conversion_filters:
        return ConversionEvents(metric)
    model_name, _, measure_name = params.conversion_measure.partition("__")
    measure = resolution.layer.models[model_name].measures[measure_name]
    texts = tuple((text, f"metric {metric.name}.conversion_measure.filters[{i}]") for i, (text, _, _) in enumerate(params.conversion_filters))
    filters = _parsed(resolution, texts, model_name, measure)
    paths: dict[tuple[str, tuple[str, ...]], tuple[DimRef, Path]] = {}
    for f in filters:
        for ref in f.dimension_refs():
            ident = (ref.dimension.qualified_name, ref.keys)
            if ident in paths:
                continue
            try:
                path = resolution.path(model_name, ref)
            except QueryError as err:
                raise QueryError(f"{err.message}; it is needed from {model_name} (the conversion events of {metric.name})",
                                 code=err.code, location=Location(field=f.field), suggestions=err.suggestions) from None
            if any(step.fans_out for step in path):
                raise QueryError(f"filter '{f.text}' of the conversion events of {metric.name}: the path {path_text(model_name, path)} "
                                 "fans out (one_to_many) and would repeat conversion events; filter on a dimension reached "
                                 "many_to_one", code="fan_out_without_primary_key", location=Location(field=f.field))
            paths[ident] = (ref, path)
    return ConversionEvents(metric, filters, tuple(paths.values()))


def with_conversion(group: Aggregation, events: ConversionEvents) -> Aggregation:
    """The aggregation of a conversion metric's conversions (QueryResolver._groups)."""
    return replace(group, reads=ConversionsRead(events.metric, events.filters, events.paths))


def check_conversions(group: Aggregation) -> None:
    """A conversion metric grouped across a one_to_many step would repeat its base events: refused."""
    if isinstance(group.reads, ConversionsRead) and group.dedupe:
        raise QueryError(f"conversion metric '{group.reads.metric.name}': grouping across a one_to_many step ({group.fan_out_path}) "
                         "would repeat base events; this is not supported yet", code="fan_out_without_primary_key",
                         location=Location(field="group_by"))
