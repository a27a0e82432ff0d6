"""The query plan: frozen data between the resolved SMQ and the SQL renderer.

One `FactGroup` per aggregation (a model's measures sharing the same metric filters, or
one cumulative metric); outputs and HAVING conditions are templates over the groups'
aggregate columns (`a0`, `a1`...) and the group keys (`g0`, `g1`...).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ..layer.inputs import Offset
from ..layer.joins import Path
from ..layer.model import Measure, Metric
from ..resolve.filters import Filter
from ..resolve.names import DimRef


@dataclass(frozen=True, slots=True)
class Aggregate:
    id: str  # "a0": the column this aggregate gets
    measure: Measure
    # a simple metric's filters, applied inside the aggregate (CASE WHEN ... THEN input END), so
    # groups without matching rows get 0 for counts, like COUNT(*) FILTER (WHERE ...)
    conditions: tuple[Filter, ...] = ()


@dataclass(frozen=True, slots=True)
class FactGroup:
    id: str  # "f0": the CTE name
    model: str  # the measures' model, where every join path starts
    aggregates: tuple[Aggregate, ...]
    metric_filters: tuple[Filter, ...]  # a simple metric's own filters (WHERE, this group only)
    paths: tuple[tuple[DimRef, Path], ...]  # every dimension this group touches, with its join path
    dedupe: bool  # a path fans out: aggregate over DISTINCT primary-key rows
    fan_out_path: str | None  # the first fanning path, for messages
    cumulative: Metric | None = None
    # the query's group keys and row filters as this aggregation reads them: metric_time and MetricFlow's
    # names bound to its model (the same objects as the plan's when the query uses neither)
    keys: tuple[DimRef, ...] = ()
    where: tuple[Filter, ...] = ()
    time_filters: tuple[Filter, ...] = ()  # filters on a cumulative metric's time dimension: periods only
    offset: Offset | None = None  # a derived metric's offset input: values read from another period (sql/offsets.py)
    conversion: Metric | None = None  # the conversions of a conversion metric (sql/conversion.py)
    conversion_filters: tuple[Filter, ...] = ()  # its conversion_measure's filters: on the conversion events
    conversion_paths: tuple[tuple[DimRef, Path], ...] = ()  # their dimensions' paths from the conversion measure's model


@dataclass(frozen=True, slots=True)
class OutputColumn:
    name: str  # exactly as written in the SMQ
    template: exp.Expression  # over columns a0.. and g0..


@dataclass(frozen=True, slots=True)
class QueryPlan:
    group_keys: tuple[DimRef, ...]
    where: tuple[Filter, ...]
    groups: tuple[FactGroup, ...]
    outputs: tuple[OutputColumn, ...]
    having: tuple[exp.Expression, ...]  # templates over a0.., g0..
    order_by: tuple[tuple[str, bool], ...]  # (output name, descending)
    limit: int | None
    time_filters: tuple[Filter, ...] = ()  # filters on a cumulative metric's time dimension: periods only
    spine_only: bool = False  # metric_time without metrics: the time spine's periods (engine/sql/spine_query.py)
