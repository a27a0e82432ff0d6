"""A derived metric's listed inputs (MetricFlow's `type_params.metrics`): an alias, and a time offset.

`inputs:` names the measures/metrics a derived `expr` reads under another name, shifted in time:
`offset_window: 1 year` reads each period's value from one year earlier, `offset_to_grain: month`
from the start of the period's month. Kept out of elements.py so the metric reader only calls it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import Location, nearest
from .model import GRAINS, Window

if TYPE_CHECKING:
    from .reader import BaseReader
    from .yamlpos import YMap

INPUT_KEYS = ("name", "alias", "offset_window", "offset_to_grain", "description")
_WINDOW = re.compile(r"\s*(\d+)\s+(day|week|month|quarter|year)s?\s*\Z", re.IGNORECASE)
_ALIAS = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


@dataclass(frozen=True, slots=True)
class Offset:
    """Where an input reads its value on the time axis: `window` earlier, or the start of `to_grain`."""

    window: Window | None = None
    to_grain: str | None = None

    @property
    def grain(self) -> str:
        """The grain the offset is counted in (MetricFlow joins after aggregating when the query uses it)."""
        return self.window.unit if self.window is not None else str(self.to_grain)

    def __str__(self) -> str:
        return f"-{self.window}" if self.window is not None else f"to start of {self.to_grain}"


@dataclass(frozen=True, slots=True)
class MetricInput:
    name: str  # a measure (Model__measure) or a metric
    alias: str | None
    offset: Offset | None
    location: Location

    @property
    def reference(self) -> str:
        """The name the derived expression uses for it."""
        return self.alias or self.name


def read_inputs(reader: BaseReader, node: YMap, file: str, field: str) -> tuple[MetricInput, ...]:
    """`inputs: [{name, alias, offset_window | offset_to_grain}]` of a derived metric, each checked on its own."""
    from .yamlpos import where

    out: list[MetricInput] = []
    for i, item, seq in reader.items(node, "inputs", file, field):
        ifield = f"{field}.inputs[{i}]"
        entry = reader.mapping(item, file, ifield, seq, i)
        if entry is None:
            continue
        reader.known_keys(entry, INPUT_KEYS, file, ifield)
        name = reader.text(entry, "name", file, ifield, required=True)
        alias = reader.text(entry, "alias", file, ifield) or None
        window_text = reader.text(entry, "offset_window", file, ifield)
        grain = reader.text(entry, "offset_to_grain", file, ifield).lower()
        loc = where(file, seq, i, field=ifield)
        if alias is not None and (not _ALIAS.match(alias) or "__" in alias):
            reader.errors.add(f"{ifield}.alias: '{alias}' is not a name (letters, digits, single underscores)",
                              where(file, entry, "alias", field=f"{ifield}.alias"), code="invalid_name")
            alias = None
        offset = None
        if window_text and grain:
            reader.errors.add(f"{ifield}: give 'offset_window' or 'offset_to_grain', not both", loc, code="invalid_metric")
        elif window_text:
            m = _WINDOW.match(window_text)
            if not m or int(m.group(1)) < 1:
                reader.errors.add(f"{ifield}.offset_window: '{window_text}' is not a window; write e.g. '1 year' or '7 days'",
                                  where(file, entry, "offset_window", field=f"{ifield}.offset_window"), code="invalid_metric")
            else:
                offset = Offset(window=Window(int(m.group(1)), m.group(2).lower()))
        elif grain:
            if grain not in GRAINS:
                reader.errors.add(f"{ifield}.offset_to_grain: unknown grain '{grain}' (use {', '.join(GRAINS)})",
                                  where(file, entry, "offset_to_grain", field=f"{ifield}.offset_to_grain"), code="invalid_metric",
                                  suggestions=nearest(grain, GRAINS, 1))
            else:
                offset = Offset(to_grain=grain)
        if name:
            out.append(MetricInput(name, alias, offset, loc))
    return tuple(out)


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
                 errors: Any, cumulative: dict[str, str]) -> None:
    """Cross-file checks: aliases unique and used, offsets only on what can be shifted, a time spine for offsets
    (that each input exists is checked with the other metric inputs, in validate.py)."""
    seen: dict[str, Location] = {}
    for item in inputs:
        if item.reference in seen:
            errors.add(f"{item.location.field}: '{item.reference}' is listed twice in metric {metric_name}'s inputs "
                       f"(also at {seen[item.reference]}); give one of them an alias", item.location, code="duplicate_name")
        seen[item.reference] = item.location
        if item.reference not in used:
            errors.add(f"{item.location.field}: input '{item.reference}' is not used by the expr of metric {metric_name}",
                       item.location, code="invalid_metric", suggestions=nearest(item.reference, list(used)))
        if item.offset is not None and item.name in cumulative:
            errors.add(f"{item.location.field}: '{item.name}' is a {cumulative[item.name]} metric; an offset on it is not supported "
                       "yet", item.location, code="invalid_metric")
        if item.offset is not None and not has_spine:
            errors.add(f"{item.location.field}: an offset input needs a time spine: add time_spine (table, column) to database.yml",
                       item.location, code="missing_time_spine")
