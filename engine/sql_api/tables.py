"""What a SQL client sees of a layer: one table per model, its columns typed as `/query` types their values.

A table's columns are the model's dimensions (by element name, without the model prefix), its measures,
the metrics `/elements` lists under it, and every dimension of another model reachable from it by exactly
one path of many-to-one steps, as `Model__element`. Everything is as one role sees it: a hidden element
is no column at all. The result is cached per (layer version, role): BI tools read the catalog often.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..layer.joins import Path
from ..layer.model import Dimension, Measure, Metric, SemanticLayer
from ..lru import LruCache

if TYPE_CHECKING:
    from ..facade import Layer

ColumnKind = Literal["dimension", "measure", "metric"]

# dimension type -> the PostgreSQL type of its values (the /query semantic type, as PostgreSQL names it)
DIMENSION_PG_TYPES = {"string": "text", "number": "numeric", "boolean": "bool", "date": "date", "timestamp": "timestamp"}
_AGG_PG_TYPES = {"count": "int8", "count_distinct": "int8", "sum": "numeric", "avg": "float8", "median": "float8",
                 "percentile": "float8"}
_METRIC_PG_TYPES = {"ratio": "float8", "conversion": "float8", "derived": "numeric"}


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a model's table."""

    name: str  # as the client writes it: `channel`, `orderCount`, `CustomersModel__country`
    element: str  # the SMQ element: `OrdersModel__channel`, `averageOrderValue`, `CustomersModel__country`
    kind: ColumnKind
    pg_type: str  # text, numeric, int8, float8, bool, date, timestamp
    description: str
    agg: str | None = None  # a measure's aggregation (or a simple/cumulative metric's measure's)
    is_time: bool = False  # a date or timestamp dimension: DATE_TRUNC applies

    def grain_element(self, grain: str) -> str:
        """The SMQ element of this time dimension at a grain (`OrdersModel__orderDate__month`)."""
        return f"{self.element}__{grain}"


@dataclass(frozen=True, slots=True)
class Table:
    """A model as a table: its columns in a stable order (dimensions, measures, metrics, joined dimensions)."""

    name: str
    description: str
    columns: tuple[Column, ...]

    def column(self, name: str) -> Column | None:
        for col in self.columns:
            if col.name == name:
                return col
        folded = name.casefold()  # an unquoted identifier arrives lower-cased: channel, but orderdate for orderDate
        matches = [c for c in self.columns if c.name.casefold() == folded]
        return matches[0] if len(matches) == 1 else None

    def by_kind(self, *kinds: ColumnKind) -> list[Column]:
        return [c for c in self.columns if c.kind in kinds]


_CACHE: LruCache[tuple, Mapping[str, Table]] = LruCache(256)


def tables(layer: Layer, role: str | None) -> Mapping[str, Table]:
    """Model name -> its table as `role` sees it (cached per layer version and role)."""
    key = (id(layer), layer.version, role)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    hidden = layer.visibility(role).hidden  # declared and by lineage (engine/access/lineage.py)
    listing = layer.elements(role=role)["models"]
    out = {entry["name"]: _table(layer, entry, hidden) for entry in listing}
    _CACHE.put(key, out)
    return out


def _table(layer: Layer, entry: dict, hidden: frozenset[str]) -> Table:
    semantic = layer.semantic
    model = semantic.models[entry["name"]]
    columns: list[Column] = []
    seen: set[str] = set()

    def add(col: Column) -> None:
        if col.name not in seen:  # a metric named like a dimension: the dimension keeps the name
            seen.add(col.name)
            columns.append(col)

    for item in entry["dimensions"]:
        dim = model.dimensions[item["name"].split("__", 1)[1]]
        add(_dimension_column(dim.name, dim.qualified_name, dim))
    for item in entry["measures"]:
        measure = model.measures[item["name"].split("__", 1)[1]]
        add(Column(measure.name, measure.qualified_name, "measure", _measure_type(semantic, measure),
                   measure.description, agg=measure.agg))
    for item in entry["metrics"]:
        metric = semantic.metrics[item["name"]]
        add(_metric_column(semantic, metric))
    for target, path in _many_to_one_targets(layer, model.name):
        other = semantic.models[target]
        bare = layer.graph.shortest_paths(model.name, target) == [path]
        prefix = "" if bare else ".".join(step.key for step in path) + "."
        for dim in other.dimensions.values():
            if dim.qualified_name in hidden:
                continue
            add(_dimension_column(dim.qualified_name, prefix + dim.qualified_name, dim))
    return Table(model.name, model.description, tuple(columns))


def _dimension_column(name: str, element: str, dim: Dimension) -> Column:
    return Column(name, element, "dimension", DIMENSION_PG_TYPES.get(dim.type, "text"), dim.description,
                  is_time=dim.is_time)


def _measure_type(semantic: SemanticLayer, measure: Measure) -> str:
    if measure.agg in ("min", "max"):  # MIN/MAX keep their input's type: a date stays a date
        model = semantic.models[measure.model]
        for dim in model.dimensions.values():
            if measure.expr is not None and dim.expr.strip() == measure.expr.strip():
                return DIMENSION_PG_TYPES.get(dim.type, "numeric")
        return "numeric"
    return _AGG_PG_TYPES.get(measure.agg, "numeric")


def _metric_measure(semantic: SemanticLayer, metric: Metric) -> Measure | None:
    if metric.type not in ("simple", "cumulative") or not metric.measure:
        return None
    name = metric.measure
    if "__" in name:
        model_name, _, element = name.partition("__")
        model = semantic.models.get(model_name)
        return model.measures.get(element) if model else None
    inner = semantic.metrics.get(name)
    return _metric_measure(semantic, inner) if inner is not None else None


def _metric_column(semantic: SemanticLayer, metric: Metric) -> Column:
    measure = _metric_measure(semantic, metric)
    if measure is not None:
        pg_type = _measure_type(semantic, measure)
        if metric.type == "cumulative" and measure.agg in ("count", "count_distinct"):
            pg_type = "int8"
        return Column(metric.name, metric.name, "metric", pg_type, metric.description, agg=measure.agg)
    return Column(metric.name, metric.name, "metric", _METRIC_PG_TYPES.get(metric.type, "numeric"), metric.description)


def _many_to_one_targets(layer: Layer, start: str) -> list[tuple[str, Path]]:
    """Models reachable from `start` by exactly one path of many-to-one (or one-to-one) steps, with that path."""
    paths: dict[str, list[Path]] = {}

    def walk(model: str, path: Path, visited: frozenset[str]) -> None:
        for step in layer.graph.steps_from(model):
            if step.relationship not in ("many_to_one", "one_to_one") or step.target in visited:
                continue
            longer = (*path, step)
            paths.setdefault(step.target, []).append(longer)
            walk(step.target, longer, visited | {step.target})

    walk(start, (), frozenset({start}))
    return [(target, found[0]) for target, found in paths.items() if len(found) == 1]
