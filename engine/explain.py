"""`Layer.explain`: what the engine made of a query, stage by stage, as plain data (JSON-ready).

- `resolved`: the ResolvedQuery (engine/resolve/resolved.py): the group keys and filters as bound, each
  aggregation with its model, measures, how it reads its rows, its offset and the join path of every dimension it
  touches, and the outputs as templates over the aggregations' columns;
- `plan`: the tree of plan nodes (engine/plan/nodes.py), one object per node with its kind and inputs;
- `sql`: the SQL the renderer made of the plan, in the dialect asked for.

Nothing here changes or re-derives anything: it reads the objects the stages produced.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from .layer.joins import Path, path_text
from .plan import nodes
from .resolve.filters import Filter
from .resolve.names import DimRef
from .resolve.resolved import Aggregation, ConversionsRead, CumulativeRead, ResolvedQuery


def _sql(node: exp.Expression, dialect: str) -> str:
    return node.sql(dialect=dialect)


def _key(ref: DimRef) -> dict[str, Any]:
    out: dict[str, Any] = {"name": ref.text, "dimension": ref.dimension.qualified_name or "metric_time", "type": ref.dimension.type}
    if ref.grain:
        out["grain"] = ref.grain
    if ref.date_part:
        out["date_part"] = ref.date_part
    if ref.keys:
        out["path"] = ".".join(ref.keys)
    if ref.axis:
        out["metric_time"] = True
    return out


def _filter(f: Filter, dialect: str) -> dict[str, Any]:
    return {"filter": f.text, "field": f.field, "applies": "before aggregating" if f.kind == "where" else "after aggregating",
            "elements": sorted({name for name, _ in f.refs}), "sql": _sql(f.node, dialect)}


def _path(start: str, ref: DimRef, path: Path) -> dict[str, Any]:
    return {"dimension": ref.dimension.qualified_name, "path": path_text(start, path), "fans_out": any(s.fans_out for s in path)}


def _reads(agg: Aggregation, dialect: str) -> dict[str, Any]:
    reads = agg.reads
    if isinstance(reads, CumulativeRead):
        metric = reads.metric
        window = str(metric.window) if metric.window else (f"{metric.grain_to_date} to date" if metric.grain_to_date else "all time")
        return {"kind": "cumulative", "metric": metric.name, "window": window,
                "period_filters": [_filter(f, dialect) for f in reads.time_filters]}
    if isinstance(reads, ConversionsRead):
        return {"kind": "conversions", "metric": reads.metric.name,
                "conversion_filters": [_filter(f, dialect) for f in reads.filters]}
    semi = agg.semi_additive
    if semi is not None and semi.non_additive is not None:
        return {"kind": "semi_additive", "measure": semi.qualified_name, "dimension": semi.non_additive.dimension,
                "window_choice": semi.non_additive.window_choice}
    return {"kind": "rows"}


def _aggregation(agg: Aggregation, dialect: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": agg.id, "model": agg.model,
        "measures": [{"column": c.id, "measure": c.measure.qualified_name, "agg": c.measure.agg} for c in agg.columns],
        "reads": _reads(agg, dialect),
        "keys": [_key(k) for k in agg.keys],
        "filters": [_filter(f, dialect) for f in (*agg.where, *agg.metric_filters)],
        "joins": [_path(agg.model, ref, path) for ref, path in agg.paths if path],
        "deduplicated": agg.dedupe,
    }
    if agg.dedupe:
        out["fan_out_path"] = agg.fan_out_path
    if agg.offset is not None:
        out["offset"] = str(agg.offset)
    return out


def resolved_data(query: ResolvedQuery, dialect: str) -> dict[str, Any]:
    """The resolved query as data."""
    return {
        "group_by": [_key(k) for k in query.group_keys],
        "filters": [_filter(f, dialect) for f in query.where],
        "aggregations": [_aggregation(a, dialect) for a in query.aggregations],
        "outputs": [{"name": o.name, "template": _sql(o.template, dialect)} for o in query.outputs],
        "having": [_sql(h, dialect) for h in query.having],
        "order_by": [{"name": name, "descending": desc} for name, desc in query.order_by],
        "limit": query.limit,
        **({"time_spine_only": True} if query.spine_only else {}),
    }


def plan_data(node: nodes.Node) -> dict[str, Any]:
    """The plan tree as data: each node's kind, what it reads, and its inputs."""
    out: dict[str, Any] = {"node": type(node).__name__}
    if hasattr(node, "agg"):
        agg: Aggregation = node.agg
        out.update(aggregation=agg.id, model=agg.model, measures=[c.measure.qualified_name for c in agg.columns])
        if agg.offset is not None:
            out["offset"] = str(agg.offset)
    if isinstance(node, nodes.Merge):
        out["inputs"] = [plan_data(i) for i in node.inputs]
    elif isinstance(node, nodes.Project):
        out.update(outputs=[o.name for o in node.outputs], having=len(node.having), input=plan_data(node.source))
    elif isinstance(node, nodes.SpineFill):
        out.update(time_key=node.group_keys[node.position].text, grain=node.grain, input=plan_data(node.source))
    elif isinstance(node, nodes.OrderLimit):
        out.update(order_by=[("-" if desc else "") + name for name, desc in node.order_by], limit=node.limit,
                   input=plan_data(node.source))
    elif isinstance(node, nodes.SpinePeriods):
        out["keys"] = [k.text for k in node.group_keys]
    return out
