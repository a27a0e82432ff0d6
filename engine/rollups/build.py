"""A rollup's build query: its SMQ resolved by the engine's own rules, with each measure's parts as columns (an
average as its sum and its count) and every key as a column, so the stored rows re-aggregate exactly."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from ..resolve.resolved import MeasureColumn, OutputColumn, ResolvedQuery
from .bind import BoundRollup


def build_smq(rollup: BoundRollup, since: str | None = None) -> dict:
    """The SMQ whose answer the rollup stores (`since`: only the periods from that day on: a partial rebuild)."""
    group_by = [d.ref.text for d in rollup.dims]
    smq: dict = {"metrics": [m.measure.qualified_name for m in rollup.measures], "group_by": group_by}
    if since is not None and rollup.time is not None:
        smq["filters"] = [f"{rollup.time.ref.dimension.qualified_name} >= '{since}'"] if not rollup.time.ref.keys else []
    return smq


def build_query(resolved: ResolvedQuery, rollup: BoundRollup) -> ResolvedQuery:
    """The resolved SMQ with the rollup's columns as its outputs."""
    (agg,) = resolved.aggregations
    columns: list[MeasureColumn] = []
    outputs = [OutputColumn(d.column, exp.column(f"g{i}")) for i, d in enumerate(rollup.dims)]
    next_id = len(agg.columns)
    for c in agg.columns:
        rm = rollup.measure(c.measure.qualified_name)
        assert rm is not None, "bound: every measure of the build query is the rollup's"
        for part, column in rm.parts:
            if part == c.measure.agg:
                columns.append(c)
                outputs.append(OutputColumn(column, exp.column(c.id)))
            else:
                part_column = MeasureColumn(f"a{next_id}", replace(c.measure, agg=part))
                next_id += 1
                columns.append(part_column)
                outputs.append(OutputColumn(column, exp.column(part_column.id)))
    return replace(resolved, aggregations=(replace(agg, columns=tuple(columns)),), outputs=tuple(outputs), having=(),
                   order_by=(), limit=None)
