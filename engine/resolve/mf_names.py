"""MetricFlow's names on a layer whose models declare entities, and the common time axis `metric_time`.

`listing__country` is dimension `country` of a model owning the entity `listing` (primary or unique),
reached from the measure's model through the entity's join; local when the measure's own model owns
`listing` and has `country`. Multi-hop paths (`listing__user__state`), bare entities (`listing`: the
entity's key), grains (`booking__ds__month`) and date parts (`booking__ds__extract_year`) follow the
same rule. A name is resolved once per query (is it valid anywhere?) and bound per aggregation (which
join path from this measure's model?), because the same name may be local to one measure's model and
a join away from another's. `metric_time` is bound the same way, to each measure's own time dimension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dialects import DEFAULT_ENGINE
from ..errors import Location, QueryError, nearest
from ..layer.exprs import parse_expression
from ..layer.model import DATE_PARTS, TIME_AXIS, TIME_GRAINS, Dimension, SemanticLayer
from ..layer.templates import TemplateError, template_name, translate
from .refs import DimRef

if TYPE_CHECKING:
    from ..layer.joins import JoinGraph

EXTRACT = "extract_"


def split_suffix(segments: list[str], text: str, field: str, custom: tuple[str, ...] = ()) -> tuple[list[str], str | None, str | None]:
    """(segments without the suffix, grain, date part) of `x__month` / `x__extract_year` / `x__fiscal_quarter` (a custom
    granularity of the time spine)."""
    last = segments[-1].lower()
    if len(segments) > 1 and (last in TIME_GRAINS or last in custom):
        return segments[:-1], last, None
    if len(segments) > 1 and last.startswith(EXTRACT):
        part = last[len(EXTRACT):]
        if part not in DATE_PARTS:
            raise QueryError(f"unknown date part '{part}' in '{text}' (use {', '.join(EXTRACT + p for p in DATE_PARTS)})",
                             code="unknown_grain", location=Location(field=field),
                             suggestions=["__".join(segments[:-1] + [EXTRACT + p]) for p in nearest(part, DATE_PARTS, 1)])
        return segments[:-1], None, part
    return segments, None, None


def axis_dimension() -> Dimension:
    """The placeholder of `metric_time` until it is bound to a measure's own time dimension."""
    return Dimension("", TIME_AXIS, "date", "The common time axis: each measure's own time dimension.", TIME_AXIS,
                     parse_expression(TIME_AXIS, DEFAULT_ENGINE.value), Location())


def expand_templates(text: str, field: str) -> str:
    """MetricFlow's where-filter templates as names: `{{ Dimension('listing__x') }}` -> `listing__x`."""
    if "{{" not in text:
        return text
    try:
        return translate(text, template_name)
    except TemplateError as err:
        raise QueryError(f"filter '{text}': {err}", code="invalid_filter", location=Location(field=field)) from None


class MFNames:
    """One layer's entities, for resolving and binding MetricFlow's names (built on first use)."""

    def __init__(self, layer: SemanticLayer, hidden: frozenset[str], hidden_entities: frozenset[str] = frozenset()) -> None:
        self.layer = layer
        self.hidden = hidden
        self.hidden_entities = hidden_entities  # entities whose key reads a hidden value (engine/access/lineage.py)
        self.entities: dict[str, list[str]] = {}  # entity -> models declaring it (owners first)
        for model in layer.models.values():
            names = list(model.entities)
            if model.primary_entity and model.primary_entity not in model.entities:
                names.append(model.primary_entity)
            for name in names:
                self.entities.setdefault(name, []).append(model.name)
        for name, models in self.entities.items():
            models.sort(key=lambda m: not layer.models[m].owns(name))
        self._entity_dims: dict[tuple[str, str], Dimension | None] = {}
        self._pool: list[str] | None = None

    # -- names -----------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Every MetricFlow name of the layer (for nearest-name suggestions)."""
        if self._pool is None:
            custom = tuple(self.layer.time_spine.custom_grains) if self.layer.time_spine is not None else ()
            pool = [TIME_AXIS, *(f"{TIME_AXIS}__{g}" for g in (*TIME_GRAINS, *custom))]
            for entity, models in self.entities.items():
                if any(entity in self.layer.models[m].entities for m in models) and not self.hidden_entity(entity):
                    pool.append(entity)
                for m in models:
                    if self.layer.models[m].owns(entity):
                        pool += [f"{entity}__{d.name}" for d in self.layer.models[m].dimensions.values() if d.qualified_name not in self.hidden]
            self._pool = list(dict.fromkeys(pool))
        return self._pool

    def mf_name(self, dimension: Dimension) -> str | None:
        """The name a MetricFlow user writes for a dimension: through its model's primary (else unique) entity."""
        model = self.layer.models[dimension.model]
        owned = [e.name for e in sorted((e for e in model.entities.values() if e.owner), key=lambda e: e.type != "primary")]
        if model.primary_entity:
            owned.insert(0, model.primary_entity)
        if not owned:
            return None
        if dimension.name == owned[0] or dimension.name in model.entities:
            return dimension.name
        return f"{owned[0]}__{dimension.name}"

    def element_dim(self, model: str, name: str) -> Dimension | None:
        """A dimension of a model, or its entity's key as a dimension (`listing`: the listing key)."""
        found = self.layer.models[model].dimensions.get(name)
        if found is not None:
            return found if found.qualified_name not in self.hidden else None
        entity = self.layer.models[model].entities.get(name)
        if entity is None:
            return None
        key = (model, name)
        if key not in self._entity_dims:
            self._entity_dims[key] = None if self.hidden_entity(name) else Dimension(
                model, name, "string", f"The {name} entity's key.", entity.expr, parse_expression(entity.expr, self.layer.dialect),
                entity.location)
        return self._entity_dims[key]

    def hidden_entity(self, name: str) -> bool:
        """An entity's key is hidden from the role where, in any model declaring it, it reads a column holding a hidden
        value (its own, or a key joined to one: engine/access/lineage.py); raw SQL leaves the same columns out."""
        return name in self.hidden_entities

    def is_entity_name(self, first: str) -> bool:
        return first in self.entities

    # -- resolving (once per query) --------------------------------------------------------
    def resolve(self, text: str, field: str) -> DimRef:

        custom = tuple(self.layer.time_spine.custom_grains) if self.layer.time_spine is not None else ()
        segments, grain, part = split_suffix(text.split("__"), text, field, custom)
        if segments[0] == TIME_AXIS:
            if len(segments) > 1:
                raise QueryError(f"'{text}': write {TIME_AXIS} or {TIME_AXIS}__<grain> ({', '.join((*TIME_GRAINS, *custom))})",
                                 code="unknown_grain", location=Location(field=field),
                                 suggestions=nearest(text, [f"{TIME_AXIS}__{g}" for g in (*TIME_GRAINS, *custom)], 2))
            return DimRef(text, axis_dimension(), (), grain, axis=True, date_part=part)
        path, element = tuple(segments[:-1]), segments[-1]
        for entity in path:
            if entity not in self.entities:
                raise self.unknown(text, field, f"unknown entity '{entity}' in '{text}'")
        if not path:  # a bare entity: its key, wherever the measure's model declares it
            if element not in self.entities or self.hidden_entity(element):
                raise self.unknown(text, field)
            dim = self.element_dim(self.entities[element][0], element)
        else:
            owners = [m for m in self.entities[path[-1]] if self.layer.models[m].owns(path[-1]) and self.element_dim(m, element)]
            if not owners:
                raise self.unknown(text, field)
            dim = self.element_dim(owners[0], element)
        if dim is None:
            raise self.unknown(text, field, f"'{text}': entity '{element}' names rows of {self.entities[element][0]} "
                                            "but has no key column (a primary_entity); group by one of its dimensions")
        if grain or part:
            if not dim.is_time:
                raise QueryError(f"'{text}': {'grain' if grain else 'date part'} '{grain or part}' needs a date or timestamp dimension, "
                                 f"but {dim.qualified_name} is {dim.type}", code="invalid_grain", location=Location(field=field))
        return DimRef(text, dim, (), grain, date_part=part, entity_path=path)

    def unknown(self, text: str, field: str, message: str | None = None) -> QueryError:
        return QueryError(message or f"unknown element '{text}'", code="unknown_element", location=Location(field=field),
                          suggestions=nearest(text, self.names()))

    # -- binding (once per aggregation) ----------------------------------------------------
    def local_entity_key(self, ref: DimRef, start: str) -> DimRef | None:
        """`bookings_source__listing` (an entity's key) read from another model that declares the same entity: that
        model's own key, as MetricFlow groups each input of a metric by its own model's entity (not through a join
        between two fact models, which would be ambiguous or fan out)."""

        name = ref.dimension.name
        if ref.keys or ref.route is not None or start == ref.model or name not in self.layer.models[ref.model].entities:
            return None
        if name not in self.layer.models[start].entities:
            return None
        dim = self.element_dim(start, name)
        return DimRef(ref.text, dim, (), ref.grain, date_part=ref.date_part) if dim is not None else None

    def bind(self, ref: DimRef, start: str, graph: JoinGraph, field: str) -> DimRef:
        """The reference as walked from `start` (the measure's model): its dimension and edge keys."""

        assert ref.entity_path is not None
        element = ref.dimension.name
        current, keys = start, []  # the steps walked
        path = ref.entity_path
        if not path:  # a bare entity: local where the model declares it, else one join to an owner
            if element in self.layer.models[start].entities:
                return DimRef(ref.text, self.element_dim(start, element), (), ref.grain, date_part=ref.date_part)  # type: ignore[arg-type]
            path = (element,)
        for i, entity in enumerate(path):
            last = i == len(path) - 1
            if self.layer.models[current].owns(entity) and (not last or self.element_dim(current, element) is not None):
                continue
            options = [s for s in graph.steps_from(current)
                       if self.layer.models[s.target].owns(entity) and (s.key == entity or entity in self.layer.models[current].entities)
                       and (self.element_dim(s.target, element) is not None if last else path[i + 1] in self.layer.models[s.target].entities)]
            if not options:
                raise QueryError(f"'{ref.text}': no join from {current} through entity '{entity}' reaches a model with '{element}'"
                                 f" (needed from {start})", code="unreachable_model", location=Location(field=field))
            targets = sorted({s.target for s in options})
            if len(targets) > 1:
                raise QueryError(f"'{ref.text}' is ambiguous from {current}: entity '{entity}' leads to {', '.join(targets)}; "
                                 f"use a native name ({', '.join(f'{t}__{element}' for t in targets)})",
                                 code="ambiguous_path", location=Location(field=field),
                                 suggestions=[f"{t}__{element}" for t in targets])
            keys.append(options[0])
            current = options[0].target
        dim = self.element_dim(current, element)
        assert dim is not None
        return DimRef(ref.text, dim, tuple(s.key for s in keys), ref.grain, date_part=ref.date_part, route=tuple(keys))
