"""Reading the elements of a model file: dimensions, measures and metrics, each checked on its own.

Split from load.py (which reads the folder, its database.yml, model files, joins, sources and roles):
one element in, a Dimension / Measure / Metric (or None) out, every problem reported with its
file:line:col into the reader's error collector.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlglot import exp

from ..errors import Location, nearest
from .conversion import CONVERSION_KEYS, read_conversion
from .exprs import ExprError, parse_filter_expression
from .formats import read_format
from .inputs import read_input
from .model import (
    AGGREGATIONS,
    ENTITY_TYPES,
    GRAINS,
    METRIC_TYPES,
    SQL_TYPE_ALIASES,
    TIME_AXIS,
    TIME_GRAINS,
    TIME_TYPES,
    Dimension,
    Entity,
    Measure,
    Metric,
    MetricInput,
    Window,
)
from .reader import BaseReader
from .vocab import FILLED_KINDS, MEASURE_VOCAB_KEYS, METRIC_VOCAB_KEYS, measure_params, metric_params
from .yamlpos import YMap, YSeq, where

WINDOW_RULE = re.compile(r"\s*(\d+)\s+(day|week|month|quarter|year)s?\s*\Z", re.IGNORECASE)
# a cumulative window may count hours, minutes or seconds too (periods of a generated finer spine: render/spine_periods.py)
TIME_WINDOW_RULE = re.compile(r"\s*(\d+)\s+(second|minute|hour|day|week|month|quarter|year)s?\s*\Z", re.IGNORECASE)

DIMENSION_KEYS = ("name", "type", "description", "label", "meta", "expr", "time_granularity", "is_partition")
MEASURE_KEYS = ("name", "agg", "expr", "description", "label", "meta", "time_dimension", "format", *MEASURE_VOCAB_KEYS)
METRIC_KEYS = (
    "name", "type", "description", "label", "meta", "format", "measure", "filters", "numerator", "denominator", "expr",
    "time_dimension", "window", "grain_to_date", "time_grain", "inputs", *METRIC_VOCAB_KEYS, *CONVERSION_KEYS, "period_agg", "periods",
)
ENTITY_KEYS = ("name", "type", "expr", "description")
PERIOD_AGGS = ("first", "last", "average")  # a cumulative metric above day grain: the period's first or last day (the default), or the mean
PERIODS = ("data_range", "nonempty_window")  # a cumulative metric's periods: first to last with rows (the default), or MetricFlow's


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class ElementReader(BaseReader):
    """The per-element readers of a model file (used by load._Reader.model)."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory)
        # (model, measure, its time_dimension, where it is written): checked once the model's dimensions are read
        self.time_dimension_refs: list[tuple[str, str, str, Location]] = []
        self.custom_grain_names: tuple[str, ...] = ()  # the time spine's custom granularities (database.yml, read first)

    def label_meta(self, node: YMap, file: str, field: str) -> dict[str, Any]:
        """`label` (text) and `meta` (any mapping, kept as written) of an element: for listings, no effect on SQL."""
        out: dict[str, Any] = {"label": self.text(node, "label", file, field)}
        meta = node.get("meta")
        if meta is not None and not isinstance(meta, dict):
            self.errors.add(f"{field}.meta: expected a mapping of keys to values", where(file, node, "meta", field=f"{field}.meta"),
                            code="invalid_shape")
        elif meta:
            out["meta"] = _plain(meta)
        return out

    def _dimension(self, model: str, item: Any, file: str, seq: YSeq, i: int) -> Dimension | None:
        field = f"dimensions[{i}]"
        node = self.mapping(item, file, field, seq, i)
        if node is None:
            return None
        self.known_keys(node, DIMENSION_KEYS, file, field)
        name = self.name(node, file, field, "dimension")
        raw_type = self.text(node, "type", file, field, required=True, default="string")
        kind = SQL_TYPE_ALIASES.get(raw_type) or SQL_TYPE_ALIASES.get(re.sub(r"\s*\(.*\)\s*$", "", raw_type.strip().lower()))
        if kind is None:
            self.errors.add(
                f"{field}.type: unknown type '{raw_type}' (use string, number, boolean, date or timestamp)",
                where(file, node, "type", field=f"{field}.type"), code="invalid_type",
                suggestions=nearest(raw_type, ("string", "number", "boolean", "date", "timestamp"), 1),
            )
            if name:
                self.broken.add(f"{model}__{name}")  # its uses would only repeat this error
            kind = "string"
        expr_text = self.text(node, "expr", file, field) or (name or "")
        parsed = self.expression(expr_text, file, node, "expr" if "expr" in node else "name", f"{field}.expr") if expr_text else None
        if name is None or parsed is None:
            if name:
                self.broken.add(f"{model}__{name}")
            return None
        grain = self.text(node, "time_granularity", file, field).lower() or None
        if grain and (kind not in TIME_TYPES or grain not in GRAINS):
            self.errors.add(f"{field}.time_granularity: " + (f"unknown grain '{grain}' (use {', '.join(GRAINS)})" if kind in TIME_TYPES
                            else f"only a date or timestamp dimension has a grain (this one is {kind})"),
                            where(file, node, "time_granularity", field=f"{field}.time_granularity"), code="invalid_type",
                            suggestions=nearest(grain, GRAINS, 1) if kind in TIME_TYPES else [])
            grain = None
        partition = node.get("is_partition", False)
        if not isinstance(partition, bool):
            self.errors.add(f"{field}.is_partition: expected true or false, not '{partition}'",
                            where(file, node, "is_partition", field=f"{field}.is_partition"), code="invalid_shape")
            partition = False
        return Dimension(model, name, kind, self.text(node, "description", file, field), expr_text, parsed,
                         where(file, node, "name", field=field), grain if grain != "day" else None, partition,
                         **self.label_meta(node, file, field))

    def _measure(self, model: str, item: Any, file: str, seq: YSeq, i: int) -> Measure | None:
        field = f"measures[{i}]"
        node = self.mapping(item, file, field, seq, i)
        if node is None:
            return None
        self.known_keys(node, MEASURE_KEYS, file, field)
        name = self.name(node, file, field, "measure")
        agg = self.text(node, "agg", file, field, default="sum").lower()
        if agg not in AGGREGATIONS:
            self.errors.add(
                f"{field}.agg: unknown aggregation '{agg}' (use {', '.join(AGGREGATIONS)})",
                where(file, node, "agg", field=f"{field}.agg"), code="invalid_aggregation", suggestions=nearest(agg, AGGREGATIONS, 1),
            )
            agg = "sum"
        expr_text = self.text(node, "expr", file, field)
        parsed = None
        if expr_text:
            parsed, aggregate = self.row_expression(expr_text, file, node, "expr", f"{field}.expr")
            if parsed is None:
                if name:
                    self.broken.add(f"{model}__{name}")
                return None
            if aggregate:
                self.errors.add(
                    f"{field}.expr: '{expr_text}' contains an aggregate; write the row-level expression and set agg",
                    where(file, node, "expr", field=f"{field}.expr"), code="invalid_expression",
                )
                return None
        elif agg != "count":
            self.errors.add(f"{field}: missing 'expr' (only agg: count may omit it, meaning COUNT(*))", where(file, node, field=field), code="missing_key")
            return None
        params = measure_params(self, node, agg, file, field)
        params["format"] = read_format(self, node, file, field)
        if name is None:
            return None
        time_dimension = self.text(node, "time_dimension", file, field) or None
        if time_dimension:  # checked against the model's dimensions once they are all read
            self.time_dimension_refs.append((model, name, time_dimension, where(file, node, "time_dimension", field=f"{field}.time_dimension")))
        return Measure(model, name, agg, self.text(node, "description", file, field), expr_text or None, parsed,
                       where(file, node, "name", field=field), time_dimension, **params, **self.label_meta(node, file, field))

    def _entity(self, model: str, item: Any, file: str, seq: YSeq, i: int) -> Entity | None:
        field = f"entities[{i}]"
        node = self.mapping(item, file, field, seq, i)
        if node is None:
            return None
        self.known_keys(node, ENTITY_KEYS, file, field)
        name = self.name(node, file, field, "entity")
        kind = self.text(node, "type", file, field, required=True, default="foreign").lower()
        if kind not in ENTITY_TYPES:
            self.errors.add(f"{field}.type: unknown entity type '{kind}' (use {', '.join(ENTITY_TYPES)})",
                            where(file, node, "type", field=f"{field}.type"), code="invalid_model",
                            suggestions=nearest(kind, ENTITY_TYPES, 1))
            return None
        if name == TIME_AXIS:
            self.errors.add(f"{field}.name: '{TIME_AXIS}' is reserved for the common time axis; name the entity otherwise",
                            where(file, node, "name", field=f"{field}.name"), code="invalid_name")
            return None
        expr_text = self.text(node, "expr", file, field) or (name or "")
        if expr_text and self.expression(expr_text, file, node, "expr" if "expr" in node else "name", f"{field}.expr") is None:
            return None
        if name is None:
            return None
        return Entity(name, kind, expr_text, where(file, node, "name", field=field))

    def check_time_dimension(self, model: str, dimensions: dict[str, Dimension], name: str, loc: Location, what: str) -> bool:
        """A `default_time_dimension` / measure `time_dimension`: a date or timestamp dimension of the same model."""
        dim = dimensions.get(name)
        if dim is None:
            self.errors.add(f"{loc.field}: {what} '{name}' is not a dimension of {model}", loc, code="unknown_element",
                            suggestions=nearest(name, [d.name for d in dimensions.values() if d.is_time] or list(dimensions)))
            return False
        if not dim.is_time:
            self.errors.add(f"{loc.field}: {what} '{name}' has type {dim.type}; it must be a date or timestamp dimension of {model}",
                            loc, code="invalid_time_dimension",
                            suggestions=nearest(name, [d.name for d in dimensions.values() if d.is_time]))
            return False
        return True

    def _filters(self, node: Any, file: str, field: str
                 ) -> tuple[tuple[str, ...], tuple[exp.Expression, ...], tuple[Location, ...]]:
        """`filters:` (a string or a list): the texts, their parsed trees (checked across files by validate.py) and
        where each is written; one that does not parse is reported here (and the layer is not built)."""
        texts, nodes, places = [], [], []
        for text, floc in self.string_list(node, "filters", file, field):
            try:
                nodes.append(parse_filter_expression(text, self.dialect))
            except ExprError as err:
                self.errors.add(f"{floc.field}: '{text}' {err}", floc, code="invalid_filter")
                continue
            texts.append(text)
            places.append(floc)
        return tuple(texts), tuple(nodes), tuple(places)

    def _metric(self, model: str, item: Any, file: str, seq: YSeq, i: int) -> Metric | None:
        field = f"metrics[{i}]"
        node = self.mapping(item, file, field, seq, i)
        if node is None:
            return None
        self.known_keys(node, METRIC_KEYS, file, field)
        name = self.name(node, file, field, "metric")
        kind = self.text(node, "type", file, field, default="simple").lower()
        if kind not in METRIC_TYPES:
            self.errors.add(
                f"{field}.type: unknown metric type '{kind}' (use {', '.join(METRIC_TYPES)})",
                where(file, node, "type", field=f"{field}.type"), code="invalid_metric", suggestions=nearest(kind, METRIC_TYPES, 1),
            )
            return None
        loc = where(file, node, "name", field=field)
        need: Callable[[str], str] = lambda key: self.text(node, key, file, field, required=True)  # noqa: E731
        fields: dict[str, Any] = {}
        allowed = {"simple": {"measure", "filters"}, "ratio": {"numerator", "denominator", "filters"},
                   "derived": {"expr", "inputs", "filters"},
                   "cumulative": {"measure", "time_dimension", "window", "grain_to_date", "period_agg", "periods", "filters"},
                   "conversion": {*CONVERSION_KEYS, "window", "filters"}}[kind]
        for key in ("measure", "filters", "numerator", "denominator", "expr", "time_dimension", "window", "grain_to_date", "inputs",
                    *CONVERSION_KEYS, "period_agg", "periods"):
            if key in node and key not in allowed:
                takes = sorted(allowed | {"time_grain"} | (set(METRIC_VOCAB_KEYS) if kind in FILLED_KINDS else set()))
                self.errors.add(f"{field}.{key}: not used by a {kind} metric (it takes name, type, description, {', '.join(takes)})",
                                where(file, node, key, field=f"{field}.{key}", at_key=True), code="invalid_metric")
        fields["filters"], fields["filter_nodes"], fields["filter_locations"] = self._filters(node, file, field)
        specs: list[MetricInput] = []
        if kind == "simple":
            fields["measure"] = need("measure")
        elif kind == "ratio":
            for side in ("numerator", "denominator"):
                if isinstance(node.get(side), YMap):  # {name, filters}: this side's own filters
                    spec = read_input(self, side, node[side], file, f"{field}.{side}", node, side)
                    fields[side] = spec.name if spec else ""
                    if spec:
                        specs.append(spec)
                else:
                    fields[side] = need(side)
        elif kind == "derived":
            text = need("expr")
            fields["expr"] = text
            fields["expr_node"] = self.expression(text, file, node, "expr", f"{field}.expr") if text else None
            # [{name, alias, filters, offset_window | offset_to_grain}]: the expr names the alias, else the name
            for j, item, seq in self.items(node, "inputs", file, field):
                spec = read_input(self, "input", item, file, f"{field}.inputs[{j}]", seq, j)
                if spec:
                    specs.append(spec)
        elif kind == "conversion":
            fields["conversion"] = read_conversion(self, node, file, field, WINDOW_RULE)
        fields["input_specs"] = tuple(specs)
        if kind == "cumulative":
            fields["measure"] = need("measure")
            fields["time_dimension"] = need("time_dimension")
            window_text = self.text(node, "window", file, field)
            grain = self.text(node, "grain_to_date", file, field).lower()
            if window_text and grain:
                self.errors.add(f"{field}: give 'window' or 'grain_to_date', not both", loc, code="invalid_metric")
            if window_text:
                m = TIME_WINDOW_RULE.match(window_text)
                if not m or int(m.group(1)) < 1:
                    self.errors.add(f"{field}.window: '{window_text}' is not a window; write e.g. '7 days', '3 months' or '2 hours'",
                                    where(file, node, "window", field=f"{field}.window"), code="invalid_metric")
                else:
                    fields["window"] = Window(int(m.group(1)), m.group(2).lower())
            period_agg = self.text(node, "period_agg", file, field).lower()
            if period_agg in PERIOD_AGGS:
                fields["period_agg"] = period_agg
            elif period_agg:
                self.errors.add(f"{field}.period_agg: '{period_agg}' is not a period aggregation (use {', '.join(PERIOD_AGGS)})",
                                where(file, node, "period_agg", field=f"{field}.period_agg"),
                                code="invalid_metric", suggestions=nearest(period_agg, PERIOD_AGGS, 1))
            periods = self.text(node, "periods", file, field).lower()
            if periods in PERIODS:
                fields["periods"] = periods
            elif periods:
                self.errors.add(f"{field}.periods: '{periods}' is not a choice of periods (use {' or '.join(PERIODS)})",
                                where(file, node, "periods", field=f"{field}.periods"),
                                code="invalid_metric", suggestions=nearest(periods, PERIODS, 1))
            if grain:
                known = (*TIME_GRAINS, *self.custom_grain_names)  # a custom granularity: since its period's first day
                if grain not in known:
                    self.errors.add(f"{field}.grain_to_date: unknown grain '{grain}' (use {', '.join(known)})",
                                    where(file, node, "grain_to_date", field=f"{field}.grain_to_date"), code="invalid_metric",
                                    suggestions=nearest(grain, known, 1))
                else:
                    fields["grain_to_date"] = grain
        fields.update(metric_params(self, node, kind, file, field))
        fields["format"] = read_format(self, node, file, field)
        grain_text = self.text(node, "time_grain", file, field).lower()
        if grain_text:
            if grain_text not in TIME_GRAINS:  # below a day too: a bare metric_time by the hour (on a timestamp)
                self.errors.add(f"{field}.time_grain: unknown grain '{grain_text}' (use {', '.join(TIME_GRAINS)})",
                                where(file, node, "time_grain", field=f"{field}.time_grain"), code="invalid_metric",
                                suggestions=nearest(grain_text, TIME_GRAINS, 1))
            else:
                fields["time_grain"] = grain_text
        if name is None:
            return None
        return Metric(name=name, type=kind, description=self.text(node, "description", file, field), model=model, location=loc, **fields,
                      **self.label_meta(node, file, field))
