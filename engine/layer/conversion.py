"""A conversion metric's parameters (MetricFlow's `conversion_type_params`): base event -> conversion event.

How often a base event (a measure's row: a visit, a signup) of an entity (a customer) is followed by a
conversion event (another measure's row: a purchase) of the same entity within a window, with optional
properties that must be equal on both events. Read here; checked across files by `check_conversion`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import Location, nearest
from .exprs import ExprError, parse_filter_expression
from .model import Window

if TYPE_CHECKING:
    from .elements import ElementReader
    from .model import SemanticLayer
    from .yamlpos import YMap

CONVERSION_KEYS = ("base_measure", "conversion_measure", "entity", "calculation", "constant_properties")
CALCULATIONS = ("conversion_rate", "conversions")
# `base_measure: {name, filters, fill_nulls_with, join_to_timespine}` (MetricFlow's MetricInputMeasure)
MEASURE_INPUT_KEYS = ("name", "filters", "fill_nulls_with", "join_to_timespine")


@dataclass(frozen=True, slots=True)
class InputFill:
    """`fill_nulls_with` / `join_to_timespine` of a conversion metric's measure input: as MetricFlow applies them, the
    input's aggregate is COALESCEd to the value where its group has no rows, and grouped by metric_time every spine
    period gets a row (resolve/conversions.py, render/timespine_fill.py)."""
    fill_nulls_with: int | float | None = None
    join_to_timespine: bool = False


@dataclass(frozen=True, slots=True)
class Conversion:
    base_measure: str  # Model__measure: one row per base event
    conversion_measure: str  # Model__measure: one row per conversion event
    entity: str  # an entity both models declare (`entities:`)
    calculation: str  # conversion_rate | conversions
    window: Window | None  # None: any time after the base event
    constant_properties: tuple[tuple[str, str], ...]  # (base dimension, conversion dimension) pairs that must be equal
    location: Location
    # `base_measure: {name, filters}`: restrict the base events (as the metric's own `filters` do);
    # `conversion_measure: {name, filters}`: restrict the conversion events (each with the field that names it)
    base_filters: tuple[tuple[str, exp.Expression, Location], ...] = ()
    conversion_filters: tuple[tuple[str, exp.Expression, Location], ...] = ()
    # where each key is written (for cross-file messages): base_measure, conversion_measure, entity,
    # constant_properties[i].base_property / .conversion_property
    places: tuple[tuple[str, Location], ...] = ()
    base_fill: InputFill = InputFill()
    conversion_fill: InputFill = InputFill()

    @property
    def joins_spine(self) -> bool:
        """Does either measure input ask for join_to_timespine?"""
        return self.base_fill.join_to_timespine or self.conversion_fill.join_to_timespine

    def place(self, key: str) -> Location:
        """Where `key` (a field below the metric, e.g. 'entity') is written; the metric's base_measure line if unknown."""
        for name, loc in self.places:
            if name == key:
                return loc
        loc = self.location
        return Location(loc.file, loc.line, loc.column, f"{loc.field}.{key}")


def _input_fill(reader: ElementReader, value: YMap, file: str, field: str) -> InputFill | None:
    """`fill_nulls_with` (a number) and `join_to_timespine` (true/false) of a measure input; None if either is wrong."""
    from .yamlpos import where

    fill = value.get("fill_nulls_with")
    ok = True
    if fill is not None and (isinstance(fill, bool) or not isinstance(fill, (int, float))):
        reader.errors.add(f"{field}.fill_nulls_with: expected a number (e.g. 0), got {fill!r}",
                          where(file, value, "fill_nulls_with", field=f"{field}.fill_nulls_with"), code="invalid_metric")
        ok = False
    spine = value.get("join_to_timespine", False)
    if not isinstance(spine, bool):
        reader.errors.add(f"{field}.join_to_timespine: expected true or false, got {spine!r}",
                          where(file, value, "join_to_timespine", field=f"{field}.join_to_timespine"), code="invalid_shape")
        ok = False
    return InputFill(fill, spine) if ok else None


def _measure_input(reader: ElementReader, node: YMap, key: str, file: str, field: str
                   ) -> tuple[str, tuple[tuple[str, exp.Expression, Location], ...], InputFill]:
    """`base_measure` / `conversion_measure`: a measure's name, or `{name, filters, fill_nulls_with, join_to_timespine}`."""
    from .yamlpos import YMap

    value = node.get(key)
    if not isinstance(value, YMap):
        return reader.text(node, key, file, field, required=True), (), InputFill()
    ifield = f"{field}.{key}"
    reader.known_keys(value, MEASURE_INPUT_KEYS, file, ifield)
    name = reader.text(value, "name", file, ifield, required=True)
    filters = []
    for text, loc in reader.string_list(value, "filters", file, ifield):
        try:
            filters.append((text, parse_filter_expression(text, reader.dialect), loc))
        except ExprError as err:  # reported; the metric is not built
            reader.errors.add(f"{loc.field}: '{text}' {err}", loc, code="invalid_filter")
            name = ""
    fill = _input_fill(reader, value, file, ifield)
    if fill is None:  # reported; the metric is not built
        return "", tuple(filters), InputFill()
    return name, tuple(filters), fill


def read_conversion(reader: ElementReader, node: YMap, file: str, field: str, window_rule: re.Pattern[str]) -> Conversion | None:
    """The keys of a `type: conversion` metric, each checked on its own."""
    from .yamlpos import where

    base, base_filters, base_fill = _measure_input(reader, node, "base_measure", file, field)
    conversion, conversion_filters, conversion_fill = _measure_input(reader, node, "conversion_measure", file, field)
    entity = reader.text(node, "entity", file, field, required=True)
    calculation = reader.text(node, "calculation", file, field, default="conversion_rate").lower()
    ok = bool(base and conversion and entity)
    if calculation not in CALCULATIONS:
        reader.errors.add(f"{field}.calculation: unknown calculation '{calculation}' (use {' or '.join(CALCULATIONS)})",
                          where(file, node, "calculation", field=f"{field}.calculation"), code="invalid_metric",
                          suggestions=nearest(calculation, CALCULATIONS, 1))
        ok = False
    window = None
    window_text = reader.text(node, "window", file, field)
    if window_text:
        m = window_rule.match(window_text)
        if not m or int(m.group(1)) < 1:
            reader.errors.add(f"{field}.window: '{window_text}' is not a window; write e.g. '7 days' or '1 month'",
                              where(file, node, "window", field=f"{field}.window"), code="invalid_metric")
            ok = False
        else:
            window = Window(int(m.group(1)), m.group(2).lower())
    places = [(key, where(file, node, key, field=f"{field}.{key}")) for key in ("base_measure", "conversion_measure", "entity")
              if key in node]
    pairs: list[tuple[str, str]] = []
    for i, item, seq in reader.items(node, "constant_properties", file, field):
        pfield = f"{field}.constant_properties[{i}]"
        entry = reader.mapping(item, file, pfield, seq, i)
        if entry is None:
            ok = False
            continue
        reader.known_keys(entry, ("base_property", "conversion_property"), file, pfield)
        left = reader.text(entry, "base_property", file, pfield, required=True)
        right = reader.text(entry, "conversion_property", file, pfield, required=True)
        places += [(f"constant_properties[{i}].{key}", where(file, entry, key, field=f"{pfield}.{key}"))
                   for key in ("base_property", "conversion_property") if key in entry]
        if left and right:
            pairs.append((left, right))
        else:
            ok = False
    if not ok:
        return None
    return Conversion(base, conversion, entity, calculation, window, tuple(pairs), where(file, node, "base_measure", field=field),
                      base_filters, conversion_filters, tuple(places), base_fill, conversion_fill)


def check_conversion(layer: SemanticLayer, metric_name: str, params: Conversion, errors: Any) -> None:
    """Cross-file checks: both measures exist and sit on a time axis, the entity is declared by both models,
    the constant properties are dimensions of the base and the conversion model, join_to_timespine has a spine."""
    loc = params.location
    measures = [m.qualified_name for model in layer.models.values() for m in model.measures.values()]
    found = {}
    for role, name in (("base_measure", params.base_measure), ("conversion_measure", params.conversion_measure)):
        model_name, _, element = name.partition("__")
        model = layer.models.get(model_name)
        measure = model.measures.get(element) if model else None
        if model is None or measure is None:
            errors.add(f"{loc.field}.{role}: '{name}' is not a measure of this layer", params.place(role), code="unknown_element",
                       suggestions=nearest(name, measures))
            continue
        if model.time_dimension_of(measure) is None:
            errors.add(f"{loc.field}.{role}: measure {name} has no time dimension; declare default_time_dimension on model "
                       f"{model_name} (or time_dimension on the measure)", params.place(role), code="missing_time_dimension")
            continue
        found[role] = model
    for role, fill in (("base_measure", params.base_fill), ("conversion_measure", params.conversion_fill)):
        if fill.join_to_timespine and layer.time_spine is None:
            errors.add(f"{loc.field}.{role}.join_to_timespine: metric '{metric_name}' needs a time spine: add time_spine "
                       "(table, column) to database.yml", params.place(role), code="missing_time_spine")
    for role, model in found.items():
        if params.entity not in model.entities:
            errors.add(f"{loc.field}.entity: '{params.entity}' is not an entity of {model.name} (the model of the {role}); "
                       "declare it under the model's entities", params.place("entity"), code="unknown_element",
                       suggestions=nearest(params.entity, list(model.entities)))
    for i, pair in enumerate(params.constant_properties):
        for (role, model_role), name in zip((("base_property", "base_measure"), ("conversion_property", "conversion_measure")), pair):
            model = found.get(model_role)
            if model is None:
                continue
            prefix, _, element = name.partition("__")
            if prefix != model.name or element not in model.dimensions:
                errors.add(f"{loc.field}.constant_properties[{i}].{role}: '{name}' is not a dimension of {model.name}",
                           params.place(f"constant_properties[{i}].{role}"),
                           code="unknown_element", suggestions=nearest(name, [d.qualified_name for d in model.dimensions.values()]))
