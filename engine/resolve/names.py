"""Element names -> layer objects: `key.key.Model__element__grain` and bare metric names.

Also `metric_time` (each measure's own time dimension), `Model__date__extract_year` (date parts) and,
on layers whose models declare entities, MetricFlow's names (mf_names.py). Hidden elements (an access
role's `hidden`) are treated exactly as unknown ones.
"""

from __future__ import annotations

from typing import cast

from ..errors import Location, QueryError, nearest
from ..layer.model import SUB_DAILY_GRAINS, TIME_AXIS, TIME_GRAINS, Measure, Metric, SemanticLayer
from .mf_names import EXTRACT, MFNames, split_suffix
from .refs import DimRef, Element, MeasureRef

__all__ = ["DimRef", "Element", "MeasureRef", "Resolver"]


def custom_grains(layer: SemanticLayer) -> tuple[str, ...]:
    """The custom granularities of the layer's time spine (`fiscal_quarter`), lower case."""
    return tuple(layer.time_spine.custom_grains) if layer.time_spine is not None else ()


def check_sub_daily(text: str, grain: str | None, kind: str, qualified: str, field: str) -> None:
    """An hour, minute or second needs a timestamp: a date has no time of day."""
    if grain in SUB_DAILY_GRAINS and kind != "timestamp":
        raise QueryError(f"'{text}': grain '{grain}' needs a timestamp dimension, but {qualified} is a {kind} (no time of day); "
                         "use day or coarser", code="invalid_grain", location=Location(field=field),
                         suggestions=[text.rsplit("__", 1)[0] + "__day"])


class Resolver:
    """Looks up names in one layer, as one role sees it."""

    def __init__(self, layer: SemanticLayer, hidden: frozenset[str] = frozenset(), hidden_entities: frozenset[str] = frozenset()) -> None:
        self.layer = layer
        self.hidden = hidden  # names the role may not use: declared and by lineage (engine/access/lineage.py)
        self.hidden_entities = hidden_entities
        self._pool: list[str] | None = None
        self._mf: MFNames | None = None

    @property
    def mf(self) -> MFNames:
        if self._mf is None:
            self._mf = MFNames(self.layer, self.hidden, self.hidden_entities)
        return self._mf

    def has_entities(self) -> bool:
        return self.layer.has_entities

    def visible_names(self) -> list[str]:
        if self._pool is None:
            names = []
            for model in self.layer.models.values():
                names += [d.qualified_name for d in model.dimensions.values()]
                names += [m.qualified_name for m in model.measures.values()]
            names += list(self.layer.metrics)
            self._pool = [n for n in names if n not in self.hidden]
            if self.has_entities():
                self._pool += self.mf.names()
        return self._pool

    def unknown(self, text: str, field: str, what: str = "element") -> QueryError:
        base = text.split(".")[-1]
        return QueryError(f"unknown {what} '{text}'", code="unknown_element", location=Location(field=field),
                          suggestions=nearest(base, self.visible_names()))

    def resolve(self, text: str, field: str) -> Element:
        """The element `text` names, as this role sees the layer; looked up once per (text, role's view) and layer (every
        compile resolves its names anew otherwise). What it returns is immutable; a failure is never kept."""
        key = ("name", text, self.hidden, self.hidden_entities)
        memo = self.layer.memo
        found = memo.get(key)
        if found is None:
            found = self._resolve(text, field)
            memo.put(key, found)
        return cast(Element, found)

    def _resolve(self, text: str, field: str) -> Element:
        parts = text.split(".")
        keys, last = tuple(p.strip() for p in parts[:-1]), parts[-1].strip()
        if any(not k for k in keys) or not last:
            raise QueryError(f"'{text}' is not an element name (write Model__element, or edge.keys.Model__element)",
                             code="invalid_name", location=Location(field=field))
        segments = last.split("__")
        if not keys and (segments[0] == TIME_AXIS or (segments[0] not in self.layer.models and segments[0] not in self.layer.metrics
                                                      and self.has_entities() and self.mf.is_entity_name(segments[0]))):
            return self.mf.resolve(last, field)
        if len(segments) == 1:
            metric = self.layer.metrics.get(last)
            if metric is None or last in self.hidden:
                raise self.unknown(text, field)
            if keys:
                raise QueryError(f"'{text}': a metric takes no join path prefix", code="invalid_name", location=Location(field=field))
            return metric
        if len(segments) > 3:
            raise self.unknown(text, field)
        part = None
        if len(segments) == 3 and segments[2].lower().startswith(EXTRACT):
            segments, _, part = split_suffix(segments, text, field)
        model_name, element_name = segments[0], segments[1]
        grain = segments[2].lower() if len(segments) == 3 else None
        model = self.layer.models.get(model_name)
        if model is None:
            raise QueryError(f"unknown model '{model_name}' in '{text}'", code="unknown_element", location=Location(field=field),
                             suggestions=nearest(f"{model_name}__{element_name}", self.visible_names()) or nearest(model_name, self.layer.models))
        qualified = f"{model_name}__{element_name}"
        element = model.element(element_name)
        if element is None or qualified in self.hidden:
            raise self.unknown(text if grain is None else qualified, field)
        if isinstance(element, Measure):
            if keys or grain or part:
                raise QueryError(f"'{text}': a measure takes no join path or grain; it is aggregated at its own model's grain",
                                 code="invalid_name", location=Location(field=field))
            return MeasureRef(text, element)
        if grain is not None:
            grains = (*TIME_GRAINS, *custom_grains(self.layer))
            if grain not in grains:
                raise QueryError(f"unknown grain '{segments[2]}' in '{text}' (use {', '.join(grains)})", code="unknown_grain",
                                 location=Location(field=field), suggestions=[f"{qualified}__{g}" for g in nearest(grain, grains, 1)])
            if not element.is_time:
                raise QueryError(f"'{text}': grain '{grain}' needs a date or timestamp dimension, but {qualified} is {element.type}",
                                 code="invalid_grain", location=Location(field=field))
            check_sub_daily(text, grain, element.type, qualified, field)
        if part is not None and not element.is_time:
            raise QueryError(f"'{text}': date part '{part}' needs a date or timestamp dimension, but {qualified} is {element.type}",
                             code="invalid_grain", location=Location(field=field))
        return DimRef(text, element, keys, grain, date_part=part)

    def dimension(self, text: str, field: str) -> DimRef:
        ref = self.resolve(text, field)
        if not isinstance(ref, DimRef):
            kind = "metric" if isinstance(ref, Metric) else "measure"
            raise QueryError(f"'{text}' is a {kind}; group_by takes dimensions (put it in metrics)", code="not_a_dimension",
                             location=Location(field=field))
        return ref

    def metric(self, text: str, field: str) -> MeasureRef | Metric:
        ref = self.resolve(text, field)
        if isinstance(ref, DimRef):
            raise QueryError(f"'{text}' is a dimension; metrics takes measures and metrics (put it in group_by)",
                             code="not_a_metric", location=Location(field=field))
        return ref
