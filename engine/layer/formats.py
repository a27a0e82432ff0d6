"""Reading a measure's or metric's `format:` (how a front end shows its numbers), and the format a
listing shows for an element.

`format: percent` (or `number`, `currency`) or `format: {type: currency, currency: EUR, decimals: 2}`.
A format changes no SQL: it travels with the element to `Layer.elements`, the service's typed result
columns and Cube's `/meta`. Every problem is reported with its file:line into the reader's collector.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import nearest
from .model import FORMAT_TYPES, Metric, SemanticLayer, ValueFormat
from .reader import BaseReader
from .yamlpos import YMap, where

FORMAT_KEYS = ("type", "currency", "decimals")
MAX_DECIMALS = 10
CURRENCY_CODE = re.compile(r"[A-Z]{3}\Z")  # ISO 4217: three capital letters (EUR, USD, JPY)


def read_format(reader: BaseReader, node: YMap, file: str, field: str) -> ValueFormat | None:
    """The `format` key of a measure or metric node, or None (absent or wrong: then reported)."""
    raw = node.get("format")
    if raw is None:
        return None
    here = f"{field}.format"
    if isinstance(raw, str):
        return _typed(reader, raw, None, None, file, node, "format", here)
    spec = reader.mapping(raw, file, here, node, "format")
    if spec is None:
        return None
    reader.known_keys(spec, FORMAT_KEYS, file, here)
    kind = spec.get("type")
    if not isinstance(kind, str):
        reader.errors.add(f"{here}: missing 'type' (one of {', '.join(FORMAT_TYPES)})", where(file, node, "format", field=here),
                          code="invalid_format")
        return None
    return _typed(reader, kind, spec.get("currency"), spec.get("decimals"), file, spec, "type", here, spec)


def _typed(reader: BaseReader, kind: str, currency: Any, decimals: Any, file: str, node: YMap, key: str, here: str,
           spec: YMap | None = None) -> ValueFormat | None:
    ok = True
    kind_field = f"{here}.type" if spec is not None else here
    if kind.strip().lower() not in FORMAT_TYPES:
        reader.errors.add(f"{kind_field}: unknown format '{kind}' (use {', '.join(FORMAT_TYPES)})",
                          where(file, node, key, field=kind_field), code="invalid_format",
                          suggestions=nearest(kind.lower(), FORMAT_TYPES, 1))
        return None
    kind = kind.strip().lower()
    if kind == "currency":
        if currency is None:
            example = "{type: currency, currency: EUR}"
            reader.errors.add(f"{here}: a currency format needs 'currency', an ISO 4217 code: write {example}",
                              where(file, node, key, field=here), code="invalid_format")
            ok = False
        elif not isinstance(currency, str) or not CURRENCY_CODE.match(currency):
            upper = str(currency).strip().upper()
            reader.errors.add(f"{here}.currency: {currency!r} is not an ISO 4217 currency code (three capital letters, e.g. EUR, USD)",
                              where(file, spec, "currency", field=f"{here}.currency"), code="invalid_format",
                              suggestions=[upper] if CURRENCY_CODE.match(upper) else [])
            ok = False
    elif currency is not None:
        reader.errors.add(f"{here}.currency: only a currency format takes 'currency' (this one is {kind})",
                          where(file, spec, "currency", field=f"{here}.currency", at_key=True), code="invalid_format")
        ok = False
    if decimals is not None and (isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= MAX_DECIMALS):
        reader.errors.add(f"{here}.decimals: expected a whole number from 0 to {MAX_DECIMALS}, got {decimals!r}",
                          where(file, spec, "decimals", field=f"{here}.decimals"), code="invalid_format")
        ok = False
    return ValueFormat(kind, currency, decimals) if ok else None


def element_format(layer: SemanticLayer, name: str, seen: frozenset[str] = frozenset()) -> ValueFormat | None:
    """The format a listing shows: the element's own; a simple or cumulative metric without one shows its
    measure's (the same numbers, filtered or accumulated). A ratio or derived metric has only its own."""
    metric: Metric | None = layer.metrics.get(name)
    if metric is not None:
        if metric.format is not None or name in seen:
            return metric.format
        if metric.type in ("simple", "cumulative") and metric.measure:
            return element_format(layer, metric.measure, seen | {name})
        return None
    model, sep, element = name.partition("__")
    found: Mapping[str, Any] = layer.models[model].measures if sep and model in layer.models else {}
    measure = found.get(element)
    return measure.format if measure is not None else None


ADDITIVE_AGGS = ("sum", "count")


def is_additive(layer: SemanticLayer, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the values of groups add up to the value of their union (a sum or a count): a chart may stack
    them. An average, a distinct count, a min/max, a percentile, a ratio or a derived metric does not."""
    metric = layer.metrics.get(name)
    if metric is not None:
        if metric.type in ("simple", "cumulative") and metric.measure and name not in seen:
            return is_additive(layer, metric.measure, seen | {name})
        return False
    model, sep, element = name.partition("__")
    measure = layer.models[model].measures.get(element) if sep and model in layer.models else None
    return measure is not None and measure.agg in ADDITIVE_AGGS
