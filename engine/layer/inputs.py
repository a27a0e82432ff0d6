"""A metric's inputs written as mappings: ratio sides and a derived metric's `inputs:` list.

One entry model (`MetricInput`, in model.py) and one reader for both: `{name, filters}` on a ratio side;
`{name, alias, filters, offset_window | offset_to_grain}` in a derived metric's `inputs:` (MetricFlow's
`type_params.metrics`). The alias is the name the derived `expr` uses; the filters select the input's rows
before aggregating (ANDed with the metric's own); `offset_window: 1 year` reads each period's value from one
year earlier, `offset_to_grain: month` from the start of the period's month. Filters and an offset combine:
the input's rows are filtered, then read at the shifted period. Kept out of elements.py so the metric reader
only calls it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import Location, nearest
from .model import TIME_GRAINS, MetricInput, Offset, Window
from .reader import NAME_RULE
from .yamlpos import where

if TYPE_CHECKING:
    from .elements import ElementReader
    from .yamlpos import YMap

__all__ = ["INPUT_KEYS", "MetricInput", "Offset", "read_input", "input_named", "check_inputs"]

INPUT_KEYS = ("name", "alias", "filters", "offset_window", "offset_to_grain", "description")  # a derived input
SIDE_KEYS = ("name", "filters")  # a ratio side
# a unit is a grain (below a day too) or a custom granularity of the time spine (`1 fiscal_quarter`)
_WINDOW = re.compile(r"\s*(\d+)\s+([a-z][a-z0-9_]*?)s?\s*\Z", re.IGNORECASE)


def read_input(reader: ElementReader, role: str, item: Any, file: str, field: str, parent: Any, key: Any) -> MetricInput | None:
    """A ratio side (role numerator/denominator) or a derived input (role input), each key checked on its own."""
    node = reader.mapping(item, file, field, parent, key)
    if node is None:
        return None
    reader.known_keys(node, INPUT_KEYS if role == "input" else SIDE_KEYS, file, field)
    name = reader.text(node, "name", file, field, required=True)
    alias = reader.text(node, "alias", file, field) or None
    if alias and (not NAME_RULE.match(alias) or "__" in alias):
        reader.errors.add(f"{field}.alias: invalid alias '{alias}' (letters, digits, single underscores)",
                          where(file, node, "alias", field=f"{field}.alias"), code="invalid_name")
        alias = None
    texts, nodes, places = reader._filters(node, file, field)
    offset = _offset(reader, node, file, field) if role == "input" else None
    if not name:
        return None
    return MetricInput(role, name, alias, texts, nodes, where(file, node, "name", field=field), offset, places)


def _offset(reader: ElementReader, entry: YMap, file: str, ifield: str) -> Offset | None:
    """`offset_window` or `offset_to_grain` of a derived input (not both)."""
    window_text = reader.text(entry, "offset_window", file, ifield)
    grain = reader.text(entry, "offset_to_grain", file, ifield).lower()
    if window_text and grain:
        reader.errors.add(f"{ifield}: give 'offset_window' or 'offset_to_grain', not both",
                          where(file, entry, "offset_window", field=ifield), code="invalid_metric")
    elif window_text:
        m = _WINDOW.match(window_text)
        units = (*TIME_GRAINS, *reader.custom_grain_names)
        unit = m.group(2).lower() if m else ""
        if unit not in units and f"{unit}s" in units:  # a custom granularity whose name ends in s
            unit += "s"
        if not m or int(m.group(1)) < 1 or unit not in units:
            reader.errors.add(f"{ifield}.offset_window: '{window_text}' is not a window; write e.g. '1 year', '7 days' or '1 hour'"
                              + (f" (units: {', '.join(units)})" if m else ""),
                              where(file, entry, "offset_window", field=f"{ifield}.offset_window"), code="invalid_metric",
                              suggestions=nearest(unit, units, 1) if m else [])
        else:
            return Offset(window=Window(int(m.group(1)), unit))
    elif grain:
        known = (*TIME_GRAINS, *reader.custom_grain_names)
        if grain not in known:
            reader.errors.add(f"{ifield}.offset_to_grain: unknown grain '{grain}' (use {', '.join(known)})",
                              where(file, entry, "offset_to_grain", field=f"{ifield}.offset_to_grain"), code="invalid_metric",
                              suggestions=nearest(grain, known, 1))
        else:
            return Offset(to_grain=grain)
    return None


def input_named(inputs: tuple[MetricInput, ...], reference: str) -> MetricInput | None:
    """The listed input a derived expression means by `reference`: by alias first, then an unaliased name."""
    for item in inputs:
        if item.alias == reference:
            return item
    for item in inputs:
        if item.alias is None and item.name == reference:
            return item
    return None


def check_inputs(metric_name: str, inputs: tuple[MetricInput, ...], used: tuple[str, ...], has_spine: bool,
                 errors: Any) -> None:
    """Cross-file checks: aliases unique and used, offsets only on what can be shifted, a time spine for offsets
    (that each input exists is checked with the other metric inputs, in validate.py)."""
    seen: dict[str, Location] = {}
    for item in inputs:
        assert item.location is not None  # read from a file
        if item.reference in seen:
            errors.add(f"{item.location.field}: '{item.reference}' is listed twice in metric {metric_name}'s inputs "
                       f"(also at {seen[item.reference]}); give one of them an alias", item.location, code="duplicate_name")
        seen[item.reference] = item.location
        if item.reference not in used:
            errors.add(f"{item.location.field}: input '{item.reference}' is not used by the expr of metric {metric_name}",
                       item.location, code="invalid_metric", suggestions=nearest(item.reference, list(used)))
        if item.offset is not None and not has_spine:
            errors.add(f"{item.location.field}: an offset input needs a time spine: add time_spine (table, column) to database.yml",
                       item.location, code="missing_time_spine")
