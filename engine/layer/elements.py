"""Reading the elements of a model file: dimensions, measures and metrics, each checked on its own.

Split from load.py (which reads the folder, its database.yml, model files, joins, sources and roles):
one element in, a Dimension / Measure / Metric (or None) out, every problem reported with its
file:line:col into the reader's error collector.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from sqlglot import exp

from ..errors import nearest
from .exprs import ExprError, parse_expression
from .model import AGGREGATIONS, GRAINS, METRIC_TYPES, SQL_TYPE_ALIASES, Dimension, Measure, Metric, Window
from .reader import BaseReader
from .yamlpos import YSeq, where

WINDOW_RULE = re.compile(r"\s*(\d+)\s+(day|week|month|quarter|year)s?\s*\Z", re.IGNORECASE)

DIMENSION_KEYS = ("name", "type", "description", "expr")
MEASURE_KEYS = ("name", "agg", "expr", "description")
METRIC_KEYS = (
    "name", "type", "description", "measure", "filters", "numerator", "denominator", "expr",
    "time_dimension", "window", "grain_to_date",
)


class ElementReader(BaseReader):
    """The per-element readers of a model file (used by load._Reader.model)."""

    def _dimension(self, model: str, item: Any, file: str, seq: YSeq, i: int) -> Dimension | None:
        field = f"dimensions[{i}]"
        node = self.mapping(item, file, field, seq, i)
        if node is None:
            return None
        self.known_keys(node, DIMENSION_KEYS, file, field)
        name = self.name(node, file, field, "dimension")
        raw_type = self.text(node, "type", file, field, required=True, default="string")
        kind = SQL_TYPE_ALIASES.get(re.sub(r"\s*\(.*\)\s*$", "", raw_type.strip().lower()))
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
        return Dimension(model, name, kind, self.text(node, "description", file, field), expr_text, parsed, where(file, node, "name", field=field))

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
            parsed = self.expression(expr_text, file, node, "expr", f"{field}.expr")
            if parsed is None:
                if name:
                    self.broken.add(f"{model}__{name}")
                return None
            if parsed.find(exp.AggFunc):
                self.errors.add(
                    f"{field}.expr: '{expr_text}' contains an aggregate; write the row-level expression and set agg",
                    where(file, node, "expr", field=f"{field}.expr"), code="invalid_expression",
                )
                return None
        elif agg != "count":
            self.errors.add(f"{field}: missing 'expr' (only agg: count may omit it, meaning COUNT(*))", where(file, node, field=field), code="missing_key")
            return None
        if name is None:
            return None
        return Measure(model, name, agg, self.text(node, "description", file, field), expr_text or None, parsed, where(file, node, "name", field=field))

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
        allowed = {"simple": {"measure", "filters"}, "ratio": {"numerator", "denominator"}, "derived": {"expr"},
                   "cumulative": {"measure", "time_dimension", "window", "grain_to_date"}}[kind]
        for key in ("measure", "filters", "numerator", "denominator", "expr", "time_dimension", "window", "grain_to_date"):
            if key in node and key not in allowed:
                self.errors.add(f"{field}.{key}: not used by a {kind} metric (it takes {', '.join(sorted(allowed))})",
                                where(file, node, key, field=f"{field}.{key}", at_key=True), code="invalid_metric")
        if kind == "simple":
            fields["measure"] = need("measure")
            filters = self.string_list(node, "filters", file, field)
            nodes = []
            for text, floc in filters:
                try:
                    nodes.append(parse_expression(text, self.dialect))
                except ExprError as err:
                    self.errors.add(f"{floc.field}: '{text}' {err}", floc, code="invalid_filter")
            fields["filters"] = tuple(t for t, _ in filters)
            fields["filter_nodes"] = tuple(nodes)
        elif kind == "ratio":
            fields["numerator"] = need("numerator")
            fields["denominator"] = need("denominator")
        elif kind == "derived":
            text = need("expr")
            fields["expr"] = text
            fields["expr_node"] = self.expression(text, file, node, "expr", f"{field}.expr") if text else None
        else:
            fields["measure"] = need("measure")
            fields["time_dimension"] = need("time_dimension")
            window_text = self.text(node, "window", file, field)
            grain = self.text(node, "grain_to_date", file, field).lower()
            if window_text and grain:
                self.errors.add(f"{field}: give 'window' or 'grain_to_date', not both", loc, code="invalid_metric")
            if window_text:
                m = WINDOW_RULE.match(window_text)
                if not m or int(m.group(1)) < 1:
                    self.errors.add(f"{field}.window: '{window_text}' is not a window; write e.g. '7 days' or '3 months'",
                                    where(file, node, "window", field=f"{field}.window"), code="invalid_metric")
                else:
                    fields["window"] = Window(int(m.group(1)), m.group(2).lower())
            if grain:
                if grain not in GRAINS:
                    self.errors.add(f"{field}.grain_to_date: unknown grain '{grain}' (use {', '.join(GRAINS)})",
                                    where(file, node, "grain_to_date", field=f"{field}.grain_to_date"), code="invalid_metric",
                                    suggestions=nearest(grain, GRAINS, 1))
                else:
                    fields["grain_to_date"] = grain
        if name is None:
            return None
        return Metric(name=name, type=kind, description=self.text(node, "description", file, field), model=model, location=loc, **fields)
