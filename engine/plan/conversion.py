"""Planning a conversion metric: the base measure aggregated as usual, and the conversions in a group of their own.

The conversions group is keyed like the base measure (its model, metric_time bound to the base measure's
time dimension), because the conversions are counted at the base event they are attributed to;
sql/conversion.py renders it. The metric is then `conversions` or `conversions / base` (a float division).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ..errors import InternalError, Location, QueryError
from ..layer.model import Metric
from ..smq.resolve import MeasureRef
from ..sql.dialects import float_division
from .nodes import Aggregate

if TYPE_CHECKING:
    from .planner import Inherited, Planner


def conversion_template(planner: Planner, metric: Metric, field: str, inherited: Inherited = ()) -> exp.Expression:
    """The metric's expression over aggregate columns: the conversions, or their rate per base event."""
    params = metric.conversion
    if params is None:
        raise InternalError(f"conversion metric {metric.name} has no parameters")
    if inherited:  # a filter of a ratio/derived metric or of its input: the conversion CTEs do not take one yet
        raise QueryError(f"conversion metric '{metric.name}' is read under a metric filter ({inherited[0][0]!r}, {inherited[0][1]}); "
                         "filters on conversion metrics are not supported yet", code="unsupported_filter",
                         location=Location(field=field))
    if planner.offset is not None:
        raise QueryError(f"conversion metric '{metric.name}' is read at an offset ({planner.offset}); this is not supported yet",
                         code="unsupported_offset", location=Location(field=field))
    base_ref = planner.layer_resolver.resolve(params.base_measure, field)
    if not isinstance(base_ref, MeasureRef):  # validated
        raise InternalError(f"conversion metric {metric.name}: base_measure is not a measure")
    base_column = planner.expand(base_ref, field)
    base = base_ref.measure
    key = (base.qualified_name, (), f"conversion:{metric.name}")
    agg = planner.aggregates.get(key)
    if agg is None:
        agg = Aggregate(f"a{len(planner.aggregates)}", base)  # the base measure: it places the group on metric_time
        planner.aggregates[key] = agg
        axis = planner.time_dimension(base, None) if planner.axis_used else None
        group_key = (base.model, (), key[2], axis.qualified_name if axis else "")
        planner.groups.setdefault(group_key, []).append(agg)
        planner.group_filters[group_key] = ()
        planner.group_metric[group_key] = None
        planner.group_conversion[group_key] = metric
        planner.first_use.setdefault(group_key, field)
    conversions = exp.column(agg.id)
    return conversions if params.calculation == "conversions" else float_division(conversions, base_column)
