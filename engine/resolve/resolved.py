"""The resolved query: what a query means, as frozen data, before anything is planned or rendered.

Every entry point (an SMQ, MetricFlow's names and templates, structured filters, the Cube query, the SQL API) ends
here. Every name is bound to a layer object as the caller's role sees it, metric_time and MetricFlow's names are bound
to each aggregation's own model, every join path is chosen, fan-out is detected, every literal is typed against its
element, and every user error has been raised with its location: nothing after this stage reports a user error.

One `Aggregation` per set of measures that must be aggregated together: a model's measures sharing the same metric
filters, reading their rows the same way (`RowsRead`, a cumulative metric's `CumulativeRead` window, a conversion metric's
`Conversions`), at the same offset. Outputs and HAVING conditions are templates over the aggregations' columns
(`a0`, `a1`...) and the group keys (`g0`, `g1`...).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ..layer.joins import Path
from ..layer.model import Measure, Metric, Offset
from .filters import Filter
from .names import DimRef


@dataclass(frozen=True, slots=True)
class MeasureColumn:
    """One measure aggregated in an aggregation: the column `id` ("a0") it gets."""

    id: str
    measure: Measure


@dataclass(frozen=True, slots=True)
class RowsRead:
    """The measures aggregate their model's rows (a semi-additive measure: the rows on its window's day)."""


@dataclass(frozen=True, slots=True)
class CumulativeRead:
    """A cumulative metric: each period aggregates the rows in its window (render/cumulative.py)."""

    metric: Metric
    time_filters: tuple[Filter, ...] = ()  # filters on the metric's time dimension: they choose periods, not rows


@dataclass(frozen=True, slots=True)
class ConversionsRead:
    """A conversion metric's conversions, attributed to the closest preceding base event (render/conversion.py)."""

    metric: Metric
    filters: tuple[Filter, ...] = ()  # its conversion_measure's filters: on the conversion events
    paths: tuple[tuple[DimRef, Path], ...] = ()  # their dimensions' paths from the conversion measure's model


Reads = RowsRead | CumulativeRead | ConversionsRead


@dataclass(frozen=True, slots=True)
class Aggregation:
    id: str  # "f0": its CTE's name
    model: str  # the measures' model, where every join path starts
    columns: tuple[MeasureColumn, ...]
    metric_filters: tuple[Filter, ...]  # its metrics' own filters (WHERE, this aggregation only)
    paths: tuple[tuple[DimRef, Path], ...]  # every dimension it touches, with its join path
    dedupe: bool  # a path fans out: aggregate over DISTINCT primary-key rows
    fan_out_path: str | None  # the first fanning path, for messages
    # the query's group keys and row filters as this aggregation reads them: metric_time and MetricFlow's
    # names bound to its model (the same objects as the query's when it uses neither)
    keys: tuple[DimRef, ...] = ()
    where: tuple[Filter, ...] = ()
    reads: Reads = RowsRead()
    offset: Offset | None = None  # a derived metric's offset input: values read from another period

    @property
    def semi_additive(self) -> Measure | None:
        """The semi-additive measure it aggregates (always alone in its aggregation), if any."""
        return next((c.measure for c in self.columns if c.measure.non_additive), None)


@dataclass(frozen=True, slots=True)
class OutputColumn:
    name: str  # exactly as written in the query
    template: exp.Expression  # over columns a0.. and g0..


@dataclass(frozen=True, slots=True)
class ResolvedQuery:
    group_keys: tuple[DimRef, ...]
    where: tuple[Filter, ...]
    aggregations: tuple[Aggregation, ...]
    outputs: tuple[OutputColumn, ...]
    having: tuple[exp.Expression, ...]  # templates over a0.., g0..
    order_by: tuple[tuple[str, bool], ...]  # (output name, descending)
    limit: int | None
    spine_only: bool = False  # metric_time without metrics: the time spine's periods (render/spine_query.py)
    # metric_time beside other dimensions without metrics: the other dimensions' values (a dimension-only query),
    # each with every period of the spine, as MetricFlow crosses them
    spine_cross: ResolvedQuery | None = None
