"""Answering a resolved query's aggregations from rollups, only when provably the same as from the facts.

For each aggregation (one per fact model a query reads), the first rollup of its model that passes every rule answers
it; otherwise the facts do, and the first rule that failed is the `why` explain shows. The rules, in order:

1. the rollup is built and within its refresh allowance (the caller says which are: `usable`);
2. the aggregation is not a conversion metric's and does not fan out; a cumulative window or an offset needs a day grain;
3. every measure is in the rollup; sum, count, min and max re-aggregate at any coarser key; an average is its sum
   over its count; count_distinct and percentiles only when the query's keys are exactly the rollup's;
4. every group key and filter dimension is a rollup dimension (the same dimension by the same join path), the time
   dimension at the rollup's grain or a coarser one it divides into (a day into weeks and months, a month into
   quarters and years, never a week into months); no `METRIC(...)` filter;
5. every inner join the rollup made (which drops fact rows without a match) is one the query makes too;
6. the role's row filters restricting the models the query reads can be evaluated on the rollup's dimensions.

An answered aggregation reads the rollup's table as a model of its own (bind.py), so plan and render are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from sqlglot import exp

from ..dialects.base import float_division
from ..layer.joins import Path
from ..resolve.filters import Filter
from ..resolve.names import DimRef
from ..resolve.resolved import Aggregation, ConversionsRead, CumulativeRead, MeasureColumn, ResolvedQuery
from .bind import BoundRollup, RollupDim, path_signature

GRAIN_RANK = {"day": 0, "week": 1, "month": 1, "quarter": 2, "year": 3}
PART_GRAIN = {"year": "year", "quarter": "quarter", "month": "month", "day": "day", "dow": "day", "doy": "day"}


def divides(fine: str, coarse: str) -> bool:
    """Can periods of `coarse` be made of whole periods of `fine`? Never below a day or in a custom granularity of
    the time spine (hour, fiscal_quarter ...): a rollup keeps days at the finest, and its store has no spine columns."""
    if fine not in GRAIN_RANK or coarse not in GRAIN_RANK:
        return False
    if fine == coarse or fine == "day":
        return True
    if fine == "week":
        return False
    return GRAIN_RANK[coarse] > GRAIN_RANK[fine] and coarse != "week"


@dataclass(frozen=True, slots=True)
class RoleFilter:
    """One of the role's row filters: on `model`, its node over `refs` (dimensions of that model)."""

    text: str
    model: str
    node: exp.Expression
    refs: tuple[tuple[str, DimRef], ...]


@dataclass(frozen=True, slots=True)
class RoleRows:
    """What the role restricts, as plain data from engine/access (this stage sits below it)."""

    restricted: frozenset[str]  # models read through the role's filtered subquery
    filters: tuple[RoleFilter, ...]
    n_to_one_paths: Callable[[str, str], list[Path]]


@dataclass(frozen=True, slots=True)
class Decision:
    aggregation: str
    model: str
    rollup: str | None
    why: str

    def as_dict(self) -> dict[str, str | None]:
        return {"model": self.model, "rollup": self.rollup, "why": self.why}


class _Refused(Exception):
    pass


@dataclass
class Routed:
    query: ResolvedQuery
    decisions: list[Decision]
    mixed: bool = False  # some aggregations read the embedded store's rollups, the others the facts (mix.py)

    @property
    def used(self) -> tuple[str, ...]:
        return tuple(d.rollup for d in self.decisions if d.rollup is not None)


def route(query: ResolvedQuery, rollups: tuple[BoundRollup, ...], usable: Mapping[str, str | None],
          role: RoleRows | None, *, all_or_none: bool, mixable: Callable[[str], str | None] | None = None) -> Routed:
    """The query with each answerable aggregation reading its rollup. `usable`: rollup name -> None when it may answer,
    else why not (not built, stale). `all_or_none`: the rollups live apart from the facts (an embedded DuckDB file), so
    a query is answered from them only when every aggregation is, or (`mixable`: rollup name -> None when its rows may
    be given to the warehouse's query, else why not) when each rollup answering part of it may be mixed with the facts
    (engine/rollups/mix.py): the result is then `mixed`."""
    if query.spine_only or not query.aggregations:
        return Routed(query, [])
    next_id = 1 + max((int(c.id[1:]) for a in query.aggregations for c in a.columns if c.id[1:].isdigit()), default=0)
    aggs: list[Aggregation] = []
    decisions: list[Decision] = []
    rewrites: dict[str, exp.Expression] = {}
    for agg in query.aggregations:
        candidates = [r for r in rollups if r.model == agg.model]
        if not candidates:
            decisions.append(Decision(agg.id, agg.model, None, f"no rollup of {agg.model}"))
            aggs.append(agg)
            continue
        first_why = None
        for r in sorted(candidates, key=lambda r: (-GRAIN_RANK.get(r.grain or "day", 0), len(r.dims))):
            try:
                new, more, next_id = _answer(agg, r, usable, role, next_id)
            except _Refused as refused:
                first_why = first_why or f"rollup {r.name}: {refused}"
                continue
            aggs.append(new)
            rewrites.update(more)
            decisions.append(Decision(agg.id, agg.model, r.name, f"answered from rollup {r.name}"))
            break
        else:
            decisions.append(Decision(agg.id, agg.model, None, first_why or "no rollup answers it"))
            aggs.append(agg)
    if not any(d.rollup for d in decisions):
        return Routed(query, decisions)
    mixed = False
    if all_or_none and not all(d.rollup for d in decisions):
        facts = [d for d in decisions if d.rollup is None]
        refusals = [why for d in decisions if d.rollup and (why := (mixable(d.rollup) if mixable is not None
                                                                    else "a query is answered from stored rollups only when all its aggregations are"))]
        if refusals:
            why = (f"the rollups are stored apart from the warehouse, and {facts[0].model} is read from the facts "
                   f"({facts[0].why}): {refusals[0]}")
            return Routed(query, [replace(d, rollup=None, why=why) if d.rollup else d for d in decisions])
        mixed = True
        decisions = [replace(d, why=f"{d.why} (embedded store; its rows are combined with the facts' aggregations by the "
                                    "group keys in the warehouse)") if d.rollup else d for d in decisions]

    def fill(node: exp.Expression) -> exp.Expression:
        def fn(n: exp.Expression) -> exp.Expression:
            if isinstance(n, exp.Column) and not n.table and n.name in rewrites:
                return rewrites[n.name].copy()
            return n
        return node.copy().transform(fn, copy=False)

    outputs = tuple(replace(o, template=fill(o.template)) for o in query.outputs)
    having = tuple(fill(h) for h in query.having)
    return Routed(replace(query, aggregations=tuple(aggs), outputs=outputs, having=having), decisions, mixed)


def _answer(agg: Aggregation, r: BoundRollup, usable: Mapping[str, str | None], role: RoleRows | None,
            next_id: int) -> tuple[Aggregation, dict[str, exp.Expression], int]:
    why = usable.get(r.name, "it is not built (run `smq rollups build`)")
    if why is not None:
        raise _Refused(why)
    if isinstance(agg.reads, ConversionsRead):
        raise _Refused("conversion metrics are answered from the facts")
    windowed = isinstance(agg.reads, CumulativeRead) or agg.offset is not None
    units = [step.grain for step in agg.offset.steps] if agg.offset is not None else []
    if isinstance(agg.reads, CumulativeRead):
        units += [u for u in (agg.reads.metric.window.unit if agg.reads.metric.window else "", agg.reads.metric.grain_to_date) if u]
    if any(u not in GRAIN_RANK for u in units):  # a generated finer spine, or a custom granularity's spine column
        raise _Refused(f"a window or offset in {next(u for u in units if u not in GRAIN_RANK)}s is answered from the facts")
    if windowed and (r.time is None or r.grain != "day"):
        raise _Refused("a cumulative window or an offset reads days: it needs a rollup with a day grain")
    if agg.dedupe:
        raise _Refused(f"the query's path {agg.fan_out_path} fans out")
    paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in agg.paths}
    table = r.table
    bound: dict[tuple, DimRef] = {}

    def rebind(ref: DimRef) -> DimRef:
        path = paths.get((ref.dimension.qualified_name, ref.keys))
        if path is None:
            raise _Refused(f"dimension {ref.text} has no join path here")
        rd = r.dim((ref.dimension.qualified_name, path_signature(path)))
        if rd is None:
            raise _Refused(f"dimension {ref.text} is in no rollup of {agg.model}")
        new = _rebound(ref, rd, r)
        key = (new.dimension.name, new.grain, new.date_part)
        return bound.setdefault(key, new)

    reads = agg.reads
    if isinstance(reads, CumulativeRead):
        time_ref = next((ref for ref, _ in agg.paths if ref.dimension.qualified_name == reads.metric.time_dimension), None)
        if time_ref is None:
            raise _Refused("the cumulative metric's time dimension has no path here")
        path = paths.get((time_ref.dimension.qualified_name, time_ref.keys))
        if r.time is None or path is None or r.time.signature != (time_ref.dimension.qualified_name, path_signature(path)):
            raise _Refused(f"the cumulative metric's time dimension {time_ref.dimension.qualified_name} is not the rollup's")
        # its rows' day (the window reads days): the rollup's day column, whatever the dimension's type
        day = bound.setdefault((r.time.column, None, None), DimRef(time_ref.dimension.qualified_name,
                                                                   table.dimensions[r.time.column], (), None))
        reads = replace(reads, metric=replace(reads.metric, time_dimension=day.dimension.qualified_name),
                        time_filters=tuple(_filter(f, rebind) for f in reads.time_filters))
    elif agg.offset is not None:
        own_time = r.time is not None and not r.time.path
        if not own_time or any(r.measure_time.get(c.measure.qualified_name) != r.time.ref.dimension.qualified_name
                               for c in agg.columns if r.time is not None):
            raise _Refused("an offset reads its measures' own time dimension, which is not the rollup's")
    keys = tuple(rebind(k) for k in agg.keys)
    where = tuple(_filter(f, rebind) for f in agg.where)
    metric_filters = tuple(_filter(f, rebind) for f in agg.metric_filters)
    exact = r.time is None or any(k.dimension.name == r.time.column and k.grain == r.grain and not k.date_part for k in keys)
    exact = exact and {k.dimension.name for k in keys if not k.date_part} == {d.column for d in r.dims} \
        and all(k.grain in (None, r.grain) for k in keys if r.time is None or k.dimension.name != r.time.column)
    joined = {path_signature(p[: i + 1]) for _, p in agg.paths for i in range(len(p))}
    missing = r.inner_prefixes - joined
    if missing:
        raise _Refused("its dimensions are joined by an inner join the query does not make (fact rows without a match "
                       "are missing from it); declare that join `type: left` or group by its dimension")
    role_where = _role_filters(agg, r, role, rebind)
    for f in role_where:
        for _, e in f.refs:
            if isinstance(e, DimRef):
                bound.setdefault((e.dimension.name, e.grain, e.date_part), e)
    columns: list[MeasureColumn] = []
    rewrites: dict[str, exp.Expression] = {}
    for c in agg.columns:
        rm = r.measure(c.measure.qualified_name)
        if rm is None:
            raise _Refused(f"measure {c.measure.qualified_name} is not in it")
        if rm.exact_only and not exact:
            raise _Refused(f"{c.measure.qualified_name} is a {c.measure.agg}: it does not re-aggregate, and the query's "
                           "keys are not exactly the rollup's")
        if c.measure.agg == "avg":
            (_, s), (_, n) = rm.parts
            sid, nid = f"a{next_id}", f"a{next_id + 1}"
            next_id += 2
            columns += [MeasureColumn(sid, table.measures[s]), MeasureColumn(nid, table.measures[n])]
            rewrites[c.id] = float_division(exp.column(sid), exp.column(nid))
            continue
        # a part of an average read by itself (a rollup built from another: its sum, its count)
        part = next((col for agg_name, col in rm.parts if agg_name == c.measure.agg), rm.parts[0][1])
        columns.append(MeasureColumn(c.id, table.measures[part]))
    new_paths = tuple((ref, ()) for ref in bound.values())
    return (replace(agg, model=table.name, columns=tuple(columns), metric_filters=metric_filters, paths=new_paths,
                    dedupe=False, fan_out_path=None, keys=keys, where=where + role_where, reads=reads), rewrites, next_id)



def _rebound(ref: DimRef, rd: RollupDim, r: BoundRollup) -> DimRef:
    dimension = r.table.dimensions[rd.column]
    if r.time is not None and rd is r.time:
        grain = r.grain or "day"
        if ref.date_part:
            part_grain = PART_GRAIN.get(ref.date_part)
            if part_grain is None or not divides(grain, part_grain):
                raise _Refused(f"{ref.text} needs {part_grain or ref.date_part}s, finer than the rollup's {grain} grain")
            return DimRef(ref.text, dimension, (), None, date_part=ref.date_part)
        if ref.grain:
            if not divides(grain, ref.grain):
                raise _Refused(f"{ref.text} is by {ref.grain}, which {grain}s of the rollup do not add up to")
            return DimRef(ref.text, dimension, (), ref.grain)
        if grain != "day" or rd.ref.dimension.type != "date":
            raise _Refused(f"{ref.text} is read without a grain, finer than the rollup's {grain}")
        return DimRef(ref.text, dimension, (), None)
    return DimRef(ref.text, dimension, (), ref.grain, date_part=ref.date_part)


def _filter(f: Filter, rebind: Callable[[DimRef], DimRef]) -> Filter:
    if f.metric_refs():
        raise _Refused(f"the filter '{f.text}' reads a metric")
    return replace(f, refs=tuple((name, rebind(e) if isinstance(e, DimRef) else e) for name, e in f.refs))


def _role_filters(agg: Aggregation, r: BoundRollup, role: RoleRows | None,
                  rebind: Callable[[DimRef], DimRef]) -> tuple[Filter, ...]:
    """The role's row filters as WHERE conditions over the rollup, or refused when they cannot be evaluated on it."""
    if role is None or not role.restricted:
        return ()
    read = {agg.model} | {step.target for _, p in agg.paths for step in p} | {s.target for d in r.dims for s in d.path}
    touched = read & role.restricted
    if not touched:
        return ()
    if agg.model not in role.restricted:
        raise _Refused(f"the role restricts {', '.join(sorted(touched))}, which the rollup joins but not its facts")
    out: list[Filter] = []
    covered: set[str] = {agg.model}
    for f in role.filters:
        routes = role.n_to_one_paths(agg.model, f.model)
        if not routes:
            continue
        if len(routes) != 1:
            raise _Refused(f"the role's row filter '{f.text}' reaches {agg.model} by several paths")
        route = routes[0]
        if any(step.edge.type == "left" for step in route):
            raise _Refused(f"the role's row filter '{f.text}' is joined by a left join: rows without a match would differ")
        sig = path_signature(route)
        refs = []
        for name, ref in f.refs:
            rd = r.dim((ref.dimension.qualified_name, sig))
            if rd is None:
                raise _Refused(f"the role's row filter '{f.text}' reads {ref.text}, which is not in it")
            refs.append((name, _rebound(ref, rd, r)))
        covered |= {step.target for step in route}
        out.append(Filter(f.text, "role", f.node, tuple(refs), "where"))
    if touched - covered:
        raise _Refused(f"the role restricts {', '.join(sorted(touched - covered))} by filters the rollup cannot evaluate")
    return tuple(out)
