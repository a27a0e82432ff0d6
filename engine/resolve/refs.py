"""What a name in a query resolves to: a dimension as written (with its path, grain or date part), or a measure;
a metric resolves to the layer's Metric itself."""

from __future__ import annotations

from dataclasses import dataclass

from ..layer.model import Dimension, Measure, Metric


@dataclass(frozen=True, slots=True)
class DimRef:
    text: str  # as written in the SMQ
    dimension: Dimension
    keys: tuple[str, ...]  # explicit edge keys from the measure's model; () = shortest path
    grain: str | None
    axis: bool = False  # `metric_time`: bound to each measure's own time dimension per aggregation (query_resolver.py)
    date_part: str | None = None  # year, quarter, month, day, dow, doy (`__extract_year`)
    entity_path: tuple[str, ...] | None = None  # a MetricFlow name: its entities, bound per measure's model
    route: tuple | None = None  # a bound MetricFlow name: the join path (layer.joins.Path) it was walked along

    @property
    def model(self) -> str:
        return self.dimension.model

    @property
    def unbound(self) -> bool:
        """Does it still have to be bound to a measure's model (metric_time, MetricFlow names)?"""
        return self.axis or self.entity_path is not None


@dataclass(frozen=True, slots=True)
class MeasureRef:
    text: str
    measure: Measure


Element = DimRef | MeasureRef | Metric
