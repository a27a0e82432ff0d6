"""Metric filters in queries: a metric grouped by some dimensions, filtered row by row.

MetricFlow writes `{{ Metric('bookings', group_by=['listing']) }} > 2` ("listings with more than two
bookings"); the native form is `METRIC(bookings, listing)` (or any native names:
`METRIC(OrdersModel__orderCount, CustomersModel__customerCode) >= 3`). The metric is computed on its
own, grouped by those dimensions (a subquery compiled like any SMQ, without the query's filters, as
MetricFlow does), joined to each aggregation's rows on the same dimensions as that aggregation reaches
them, and the comparison is a row filter (WHERE). A row whose key finds no group compares with NULL and
is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ..digests import sha1
from ..errors import Location, QueryError
from ..layer.model import Metric, column_name
from .names import DimRef, MeasureRef, Resolver

CALL = "METRIC"
PREFIX = "__metric_"  # placeholder names: no element name starts with "__"


@dataclass(frozen=True, slots=True)
class MetricFilterRef:
    text: str  # the call as written, for messages
    name: str  # its placeholder in the filter tree (and its subquery's alias)
    metric: str  # the metric or measure, as written: the subquery's value column
    element: MeasureRef | Metric
    group_by: tuple[DimRef, ...]  # as this query's aggregations reach them (bound per aggregation by the query resolver)
    resolved: Any = None  # the subquery's ResolvedQuery (engine/resolve/resolved.py), set by the query resolver

    @property
    def alias(self) -> str:
        return self.name.strip("_")


def is_placeholder(name: str) -> bool:
    return name.startswith(PREFIX)


def extract(node: exp.Expression, text: str, field: str, resolver: Resolver) -> tuple[exp.Expression, dict[str, MetricFilterRef]]:
    """Every METRIC(metric, dimension, ...) call replaced by a placeholder column; the calls resolved."""
    calls = [n for n in node.find_all(exp.Anonymous) if n.name.upper() == CALL]
    if not calls:
        return node, {}
    refs: dict[str, MetricFilterRef] = {}
    for call in calls:
        args = list(call.expressions)
        if any(not isinstance(a, (exp.Column, exp.Dot)) for a in args) or len(args) < 2:
            raise QueryError(f"filter '{text}': write METRIC(metric, dimension, ...) with element names: the metric, then the "
                             "dimensions (an entity such as `listing`) it is grouped by and joined on",
                             code="invalid_filter", location=Location(field=field))
        names = [column_name(a) for a in args]
        element = resolver.metric(names[0], field)
        group_by = tuple(resolver.dimension(n, field) for n in names[1:])
        for ref in group_by:
            if ref.axis:
                raise QueryError(f"filter '{text}': a metric filter is grouped by entities or dimensions, not by metric_time",
                                 code="invalid_filter", location=Location(field=field))
        digest = sha1("\x00".join(names).encode()).hexdigest()[:8]
        name = f"{PREFIX}{digest}"
        refs[name] = MetricFilterRef(call.sql(), name, names[0], element, group_by)
        call.replace(exp.column(name))
    return node, refs
