"""The plan: one small frozen node class per operation of a query, rendered by one visit each (engine/render/visitor.py).

Leaves read one aggregation (engine/resolve/resolved.py: its measures, how it reads its rows, its offset) and become
one CTE or more, named after it, with columns g0.. (the group keys) and a0.. (its measures); the nodes above combine
them:

    OrderLimit -> SpineFill? -> Project -> Merge -> leaves        (Project reads one plain leaf directly)

A new kind of metric is one leaf class here and one visit there.

A node is its own identity (`eq=False`): nothing compares or hashes plan nodes (the planner builds a tree the
visitor walks once), and without the generated `__eq__`/`__hash__` a node class is a third cheaper to create at
import (`smq compile`'s start-up, docs/performance.md); comparing their sqlglot trees field by field would be slow.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ..resolve.filters import Filter
from ..resolve.names import DimRef
from ..resolve.resolved import Aggregation, OutputColumn


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    """An operation of the plan."""


# -- leaves: one aggregation each ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Aggregate(Node):
    """Measures of one model grouped by the query's keys; over DISTINCT primary-key rows when a join fans out."""

    agg: Aggregation


@dataclass(frozen=True, slots=True, eq=False)
class SemiAdditive(Node):
    """A semi-additive measure: only the rows on its window's first or last day count."""

    agg: Aggregation


@dataclass(frozen=True, slots=True, eq=False)
class Cumulative(Node):
    """A cumulative metric: the time spine's periods joined to the rows in each period's window."""

    agg: Aggregation


@dataclass(frozen=True, slots=True, eq=False)
class OffsetAggregate(Node):
    """An offset input: the measures' rows read at the period the offset gives, joined to the spine."""

    agg: Aggregation


@dataclass(frozen=True, slots=True, eq=False)
class CumulativeOffset(Node):
    """A cumulative metric read at an offset: its running values looked up at the shifted period."""

    agg: Aggregation


@dataclass(frozen=True, slots=True, eq=False)
class Conversion(Node):
    """A conversion metric's conversions, each attributed to the closest preceding base event."""

    agg: Aggregation


@dataclass(frozen=True, slots=True, eq=False)
class ConversionOffset(Node):
    """A conversion metric read at an offset: the attributed conversions counted at the shifted period."""

    agg: Aggregation


@dataclass(frozen=True, slots=True, eq=False)
class Given(Node):
    """An aggregation computed elsewhere: its rows (g0.., its a..) are a table the runner fills in before the query
    runs. A rollup in the embedded store answers it while the warehouse answers the rest (engine/rollups/mix.py)."""

    agg: Aggregation
    table: str  # the placeholder table's name


Leaf = Aggregate | SemiAdditive | Cumulative | OffsetAggregate | CumulativeOffset | Conversion | ConversionOffset | Given


# -- above the leaves ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Merge(Node):
    """Several aggregations stacked (UNION ALL, each padding the others' columns with NULL) and collapsed by the group
    keys: NULL keys group together on every engine, with no FULL JOIN. One input is read as it is."""

    inputs: tuple[Leaf, ...]
    keys: int  # the number of group keys (g0..)
    # per input: read only by the query's metric filters (HAVING), no output reads it. Such an input's groups are
    # not listed on their own: a filter holds on the rows the queried metrics have, it adds none
    filter_only: tuple[bool, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class Project(Node):
    """The query's columns: its group keys and the metric math over the aggregates, and its metric filters (HAVING;
    with a spine fill above, kept as columns for it)."""

    source: Aggregate | SemiAdditive | Merge
    outputs: tuple[OutputColumn, ...]
    having: tuple[exp.Expression, ...]  # templates over a0.., g0..
    having_as_columns: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class SpineFill(Node):
    """join_to_timespine / fill_nulls_with: every spine period of the time key gets a row, NULLs filled."""

    source: Project
    group_keys: tuple[DimRef, ...]
    where: tuple[Filter, ...]
    outputs: tuple[OutputColumn, ...]
    having: tuple[exp.Expression, ...]
    position: int  # the time key the spine is joined on
    grain: str
    # the agg time dimensions of its measures (qualified names): a filter on one of them bounds the spine like a
    # filter on metric_time (None: a layer without metric_time, only the key's own dimension does)
    time_dimensions: frozenset[str] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class SpinePeriods(Node):
    """metric_time without metrics: the periods of the time spine (crossed with the other dimensions' values)."""

    group_keys: tuple[DimRef, ...]
    where: tuple[Filter, ...]
    dims: Project | None = None  # the other group keys' values (a dimension-only query), every period beside each


@dataclass(frozen=True, slots=True, eq=False)
class OrderLimit(Node):
    """ORDER BY the output columns (NULLs last), then LIMIT."""

    source: Project | SpineFill | SpinePeriods
    order_by: tuple[tuple[str, bool], ...]
    limit: int | None
