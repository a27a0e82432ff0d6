"""A declared rollup bound to the layer: its fact model, measures (with the parts each re-aggregates from), dimensions
with their join paths, time dimension and grain; the table it is stored in, read as a model of its own.

Bound once per layer (`bind_rollups`); `check_rollups` is the loader's check, reporting every wrong name at its
rollups.yml line with the nearest right one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlglot import exp

from ..dialects import dialect as dialect_of
from ..errors import LayerError, Location, QueryError, nearest
from ..layer.joins import JoinGraph, Path
from ..layer.model import SUM_OF_COUNTS, Dimension, Measure, Model, SemanticLayer
from ..layer.rollups import RollupSpec
from ..resolve.names import DimRef, Resolver
from ..resolve.query import parse_smq
from ..resolve.query_resolver import QueryResolver

EXACT_ONLY = ("count_distinct", "percentile", "median")  # they do not re-aggregate: only at the rollup's own keys
PREFIX = "__rollup__"


@dataclass(frozen=True, slots=True)
class RollupMeasure:
    """A measure of the fact model as the rollup holds it: one column per part (an average: its sum and its count)."""

    measure: Measure
    parts: tuple[tuple[str, str], ...]  # (the part's aggregation over the facts, its column)

    @property
    def exact_only(self) -> bool:
        return self.measure.agg in EXACT_ONLY


@dataclass(frozen=True, slots=True)
class RollupDim:
    """A dimension the rollup is keyed by: the fact model's own (path ()) or a joined one, as a column."""

    ref: DimRef  # as the build resolved it (grain: the rollup's, for the time dimension)
    path: Path
    column: str

    @property
    def signature(self) -> tuple[str, tuple[tuple[int, bool], ...]]:
        return self.ref.dimension.qualified_name, path_signature(self.path)


@dataclass(frozen=True, slots=True)
class BoundRollup:
    spec: RollupSpec
    model: str  # the fact model
    measures: tuple[RollupMeasure, ...]
    dims: tuple[RollupDim, ...]  # the time dimension last, when there is one
    time: RollupDim | None
    grain: str | None
    table: Model  # the stored table as a model: its dimensions and re-aggregating measures are columns
    inner_prefixes: frozenset[tuple[tuple[int, bool], ...]]  # join steps that drop fact rows without a match
    measure_time: Mapping[str, str] = field(default_factory=dict)  # measure -> its place on the time axis (offsets)

    @property
    def name(self) -> str:
        return self.spec.name

    def measure(self, qualified: str) -> RollupMeasure | None:
        return next((m for m in self.measures if m.measure.qualified_name == qualified), None)

    def dim(self, signature: tuple[str, tuple[tuple[int, bool], ...]]) -> RollupDim | None:
        return next((d for d in self.dims if d.signature == signature), None)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(d.column for d in self.dims) + tuple(c for m in self.measures for _, c in m.parts)


def path_signature(path: Path) -> tuple[tuple[int, bool], ...]:
    return tuple((step.edge.index, step.forward) for step in path)


def _column(prefix: str, text: str) -> str:
    return prefix + re.sub(r"[^a-z0-9_]", "_", text.lower())


def _fail(message: str, loc: Location, code: str = "invalid_rollup", suggestions: list[str] | None = None) -> LayerError:
    return LayerError(message, code=code, location=loc, suggestions=suggestions or [])


def _measures_of(layer: SemanticLayer, name: str, seen: frozenset[str] = frozenset()) -> list[Measure]:
    """The measures a metric is computed from; refused (ValueError) when one carries a filter or is not re-readable."""
    metric = layer.metrics[name]
    if metric.filters or any(s.filters for s in metric.input_specs):
        raise ValueError(f"metric '{name}' has filters; list the measures it is built from instead")
    if metric.type == "conversion":
        raise ValueError(f"metric '{name}' is a conversion metric; a rollup holds measures and the metrics built from them")
    if metric.type in ("simple", "cumulative"):
        model_name, _, measure = str(metric.measure).partition("__") if "__" in str(metric.measure) else ("", "", str(metric.measure))
        for model in layer.models.values():
            if metric.measure in model.measures and (not model_name or model.name == model_name):
                return [model.measures[str(metric.measure)]]
            if model_name == model.name and measure in model.measures:
                return [model.measures[measure]]
        raise ValueError(f"metric '{name}': its measure '{metric.measure}' is not found")
    out: list[Measure] = []
    for n in metric.inputs():
        if n in seen:
            continue
        if n in layer.metrics:
            out += _measures_of(layer, n, seen | {name})
        else:
            found = [m.measures[n] for m in layer.models.values() if n in m.measures]
            found += [m.measures[n.split("__", 1)[1]] for m in layer.models.values() if n.startswith(m.name + "__") and n.split("__", 1)[1] in m.measures]
            out += found[:1]
    return out


def bind_rollup(layer: SemanticLayer, graph: JoinGraph, spec: RollupSpec, schema: str) -> tuple[BoundRollup | None, list[LayerError]]:
    errors: list[LayerError] = []
    model = layer.models.get(spec.model)
    if model is None:
        return None, [_fail(f"rollup '{spec.name}': unknown model '{spec.model}'", spec.location, "unknown_model",
                            nearest(spec.model, layer.models))]
    measures: list[Measure] = []
    for text, loc in spec.measures:
        found: list[Measure] = []
        if text in model.measures:
            found = [model.measures[text]]
        elif text.startswith(model.name + "__") and text[len(model.name) + 2:] in model.measures:
            found = [model.measures[text[len(model.name) + 2:]]]
        elif text in layer.metrics:
            try:
                found = _measures_of(layer, text)
            except ValueError as err:
                errors.append(_fail(f"rollup '{spec.name}': {err}", loc))
                continue
        else:
            names = list(model.measures) + [m for m in layer.metrics if layer.metrics[m].model == model.name]
            errors.append(_fail(f"rollup '{spec.name}': '{text}' is no measure of {model.name} nor a metric", loc,
                                "unknown_element", nearest(text, names)))
            continue
        for m in found:
            if m.model != model.name:
                errors.append(_fail(f"rollup '{spec.name}': '{text}' reads {m.qualified_name}, a measure of {m.model}, "
                                    f"not of {model.name}: a rollup holds one fact model's measures", loc))
            elif m.non_additive is not None:
                errors.append(_fail(f"rollup '{spec.name}': {m.qualified_name} is semi-additive; it cannot be rolled up", loc))
            elif m not in measures:
                measures.append(m)
    resolver = Resolver(layer)
    dims: list[tuple[str, Location]] = []
    own = {d: model.dimensions[d] for d in model.dimensions}
    for text, loc in list(spec.dimensions) + ([spec.time_dimension] if spec.time_dimension else []):
        name = f"{model.name}__{text}" if text in own else text
        try:
            ref = resolver.dimension(name, "dimensions")
        except QueryError as err:
            errors.append(_fail(f"rollup '{spec.name}': {err.message}", loc, err.code, list(err.suggestions)
                                or nearest(text, list(own) + [d.qualified_name for m in layer.models.values() for d in m.dimensions.values()])))
            continue
        if ref.grain or ref.date_part:
            errors.append(_fail(f"rollup '{spec.name}': '{text}': write the dimension without a grain (the rollup's is `grain:`)", loc))
            continue
        dims.append((name, loc))
    if errors or not measures:
        if not measures and not errors:
            errors.append(_fail(f"rollup '{spec.name}': no measures", spec.location, "missing_key"))
        return None, errors
    time_text = None
    if spec.time_dimension is not None:
        time_name, time_loc = dims[-1]
        tref = resolver.dimension(time_name, "time_dimension")
        if not tref.dimension.is_time:
            return None, [_fail(f"rollup '{spec.name}': time_dimension '{spec.time_dimension[0]}' is a {tref.dimension.type}, "
                                "not a date or timestamp", time_loc, "invalid_time_dimension")]
        time_text = f"{time_name}__{spec.grain}"
    group_by = [n for n, _ in (dims[:-1] if time_text else dims)] + ([time_text] if time_text else [])
    smq = {"metrics": [m.qualified_name for m in measures], "group_by": group_by}
    try:
        resolved = QueryResolver(layer, graph, Resolver(layer), dialect_of(layer.dialect)).resolve(parse_smq(smq))
    except QueryError as err:
        return None, [_fail(f"rollup '{spec.name}': {err.message}", spec.location, err.code, list(err.suggestions))]
    if len(resolved.aggregations) != 1:
        return None, [_fail(f"rollup '{spec.name}': its measures do not aggregate together", spec.location)]
    agg = resolved.aggregations[0]
    if agg.dedupe:
        return None, [_fail(f"rollup '{spec.name}': the dimension path {agg.fan_out_path} fans out (one_to_many): a row would "
                            "count in several groups, so no coarser query could add them up", spec.location)]
    paths = {(ref.dimension.qualified_name, ref.keys): path for ref, path in agg.paths}
    bound_dims: list[RollupDim] = []
    for i, ref in enumerate(agg.keys):
        path = paths[(ref.dimension.qualified_name, ref.keys)]
        is_time = time_text is not None and i == len(agg.keys) - 1
        column = f"t_{spec.grain}" if is_time else _column("d_", ref.text)
        bound_dims.append(RollupDim(ref, path, column))
    inner = frozenset(path_signature(path[: k + 1]) for _, path in agg.paths for k, step in enumerate(path) if step.edge.type != "left")
    rms = tuple(RollupMeasure(m, (("sum", _column("m_", m.qualified_name) + "__sum"), ("count", _column("m_", m.qualified_name) + "__count"))
                              if m.agg == "avg" else ((m.agg, _column("m_", m.qualified_name)),)) for m in measures)
    time = bound_dims[-1] if time_text else None
    table = _table_model(spec, schema, tuple(bound_dims), rms, time)
    placed = {m.qualified_name: d.qualified_name for m in measures if (d := model.time_dimension_of(m)) is not None}
    return BoundRollup(spec, model.name, rms, tuple(bound_dims), time, spec.grain, table, inner, placed), []


def _table_model(spec: RollupSpec, schema: str, dims: tuple[RollupDim, ...], measures: tuple[RollupMeasure, ...],
                 time: RollupDim | None) -> Model:
    """The stored table read as a model: a query answered from the rollup is planned and rendered over it."""
    name = PREFIX + spec.name
    loc = spec.location
    dimensions = {d.column: Dimension(name, d.column, "date" if d is time else d.ref.dimension.type, "", d.column,
                                      exp.column(d.column), loc) for d in dims}
    reagg = {"sum": "sum", "count": SUM_OF_COUNTS, "min": "min", "max": "max"}
    out: dict[str, Measure] = {}
    for m in measures:
        for part, column in m.parts:
            out[column] = Measure(name, column, reagg.get(part, "max"), "", column, exp.column(column), loc)
    source = exp.Table(this=exp.to_identifier(spec.name), db=exp.to_identifier(schema))
    return Model(name, f"rollup {spec.name}", f"{schema}.{spec.name}", None, source, (), (), dimensions, out, (), loc.file or "",
                 loc, time.column if time is not None else None)


def bind_rollups(layer: SemanticLayer, graph: JoinGraph) -> tuple[tuple[BoundRollup, ...], list[LayerError]]:
    if layer.rollups is None:
        return (), []
    out: list[BoundRollup] = []
    errors: list[LayerError] = []
    for spec in layer.rollups.rollups:
        bound, found = bind_rollup(layer, graph, spec, layer.rollups.storage.schema)
        errors += found
        if bound is not None:
            out.append(bound)
    return tuple(out), errors


def check_rollups(layer: SemanticLayer) -> list[LayerError]:
    """The loader's check: every rollup binds to the layer."""
    if layer.rollups is None:
        return []
    return bind_rollups(layer, JoinGraph(layer.models, layer.joins))[1]


@dataclass(frozen=True, slots=True)
class RollupState:
    """What the store says of one rollup (smq_db/rollups.py): when it was built, until when it may answer."""

    built_at: float
    usable_until: float | None = None  # None: until its watermark changes
    stale: str | None = None  # why it is stale, when it is (it may still answer until usable_until)
    rows: int = 0


def usable(rollups: tuple[BoundRollup, ...], states: dict[str, RollupState], now: float) -> dict[str, str | None]:
    """Rollup name -> None when it may answer now, else why not."""
    out: dict[str, str | None] = {}
    for r in rollups:
        state = states.get(r.name)
        if state is None:
            out[r.name] = "it is not built (run `smq rollups build`)"
        elif state.usable_until is not None and now >= state.usable_until:
            out[r.name] = f"it is stale past its refresh allowance ({state.stale or 'built too long ago'})"
        else:
            out[r.name] = None
    return out
