"""MetricFlow's metrics mapped onto the layer's: simple, ratio, derived (aliases renamed), cumulative.

A mixin of the Converter (convert.py), kept apart so each file reads as one concern: what a metric
needs from the rest of the conversion is declared below (its measures, models, refusals, filters).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from engine.errors import Location, nearest

from .formats import dbt_format, label_and_meta
from .source import DbtSources, Found

if TYPE_CHECKING:
    from .convert import SemanticModel

NOT_YET = "not supported yet; it was left out (docs/dbt.md, Not mapped yet)"
NAME_RULE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
GRAINS = ("day", "week", "month", "quarter", "year")
SUB_DAILY_GRAINS = ("second", "minute", "hour")  # a metric's time_granularity below a day (engine/layer/model.py)


class MetricMapping:
    """The metric half of the conversion."""

    sources: DbtSources
    dialect: str
    models: dict[str, SemanticModel]
    bodies: dict[str, dict[str, Any]]
    measures: dict[str, tuple[str, dict[str, Any]]]
    refused_measures: set[str]
    created: list[Found]

    if TYPE_CHECKING:  # provided by the Converter this is mixed into (convert.py)
        def refuse(self, location: Location, message: str) -> None: ...

        def filters(self, found: Found, container: Any, key: str, context: str | None) -> list[str] | None: ...

        def time_spine(self) -> dict[str, str] | None: ...

    def metric(self, found: Found) -> dict[str, Any] | None:
        body, name = found.body, found.name
        kind = str(body.get("type") or "").lower()
        params = body.get("type_params") or {}
        if not NAME_RULE.match(name) or "__" in name:
            self.refuse(found.at(body, "name"), f"metric '{name}': not a valid metric name")
            return None
        grain = str(body.get("time_granularity") or "").lower()
        if grain and grain not in (*SUB_DAILY_GRAINS, *GRAINS):  # the engine's grains: down to the second
            self.refuse(found.at(body, "time_granularity"), f"metric '{name}': time_granularity '{grain}': grains below a "
                        f"second are {NOT_YET}")
            return None
        out: dict[str, Any] = {"name": name, "type": kind}
        if body.get("description"):
            out["description"] = str(body["description"]).strip()
        out.update(label_and_meta(body))
        if kind == "simple":
            mapped = self.simple(found, params)
        elif kind == "ratio":
            mapped = self.ratio(found, params)
        elif kind == "derived":
            mapped = self.derived(found, params)
        elif kind == "cumulative":
            mapped = self.cumulative(found, params)
        elif kind == "conversion":
            mapped = self.conversion(found, params)
        else:
            self.refuse(found.at(body, "type"), f"metric '{name}': unknown type '{kind}' (simple, ratio, derived, cumulative, conversion)")
            return None
        if mapped is None:
            return None
        shown, problem = dbt_format(body)
        if problem:
            self.refuse(found.at(body, "meta"), f"metric '{name}': {problem}")
            return None
        if shown:
            mapped["format"] = shown
        if body.get("filter") and kind != "simple":  # applies to every measure below it, in MetricFlow's names
            filters = self.filters(found, body, "filter", None)
            if filters is None:
                return None
            mapped["filters"] = mapped.get("filters", []) + filters
        out.update(mapped)
        if grain:
            out["time_grain"] = grain
        return out

    def without_missing_inputs(self, mapped: list[tuple[Found, dict[str, Any]]]) -> list[tuple[Found, dict[str, Any]]]:
        """A metric over a metric that was left out is left out too, saying which input is missing."""
        while True:
            names = {metric["name"] for _, metric in mapped}
            kept = []
            for found, metric in mapped:
                missing = [n for n in self.metric_inputs(metric) if n not in names and "__" not in n]
                if missing:
                    self.refuse(found.at(found.body, "name"), f"metric '{found.name}': its input metric '{missing[0]}' "
                                "was left out (see its own message)" if missing[0] in self.all_metric_names()
                                else f"metric '{found.name}': unknown input metric '{missing[0]}'")
                else:
                    kept.append((found, metric))
            if len(kept) == len(mapped):
                return kept
            mapped = kept

    def all_metric_names(self) -> set[str]:
        return {f.name for f in self.sources.metrics} | {f.name for f in self.created}

    def metric_inputs(self, metric: dict[str, Any]) -> list[str]:
        if metric["type"] == "ratio":
            return [m["name"] if isinstance(m, dict) else m for m in (metric["numerator"], metric["denominator"])]
        if metric["type"] == "derived":
            aliases = {i["alias"]: i["name"] for i in metric.get("inputs") or [] if i.get("alias")}
            names = {c.name for c in sqlglot.parse_one(metric["expr"], read=self.dialect).find_all(exp.Column)}
            return sorted({aliases.get(n, n) for n in names} | {i["name"] for i in metric.get("inputs") or []})
        return []

    def measure_input(self, found: Found, params: Any, key_name: str = "measure") -> tuple[str, str, Any] | None:
        """(model, measure, its dbt reference) of `type_params.measure` (or `key_name`), refusing what is not yet mapped."""
        raw = params.get(key_name)
        ref = raw if isinstance(raw, dict) else {"name": raw}
        measure = str(ref.get("name"))
        if measure in self.refused_measures:
            self.refuse(found.at(params, key_name), f"metric '{found.name}': its measure '{measure}' was left out (see its own message)")
            return None
        if measure not in self.measures:
            self.refuse(found.at(params, key_name), f"metric '{found.name}': unknown measure '{measure}'"
                        + (f"; did you mean '{nearest(measure, list(self.measures))[0]}'?" if nearest(measure, list(self.measures)) else ""))
            return None
        # a simple metric's own keys (simple() maps them); `is not None`: fill_nulls_with: 0 is given (0 == False)
        given = {"fill_nulls_with": ref.get("fill_nulls_with") is not None, "join_to_timespine": bool(ref.get("join_to_timespine"))}
        for key, present in given.items():
            if present and str(found.body.get("type") or "").lower() not in ("simple", "cumulative", "conversion"):
                self.refuse(found.at(params, key_name), f"metric '{found.name}': {key} on a measure input of a "
                            f"{found.body.get('type')} metric is {NOT_YET}")
                return None
        return self.measures[measure][0], measure, ref

    def simple(self, found: Found, params: Any) -> dict[str, Any] | None:
        got = self.measure_input(found, params)
        if got is None:
            return None
        model, measure, ref = got
        out: dict[str, Any] = {"measure": f"{model}__{measure}"}
        if ref.get("fill_nulls_with") is not None:
            out["fill_nulls_with"] = ref["fill_nulls_with"]
        if ref.get("join_to_timespine"):
            if self.time_spine() is None:
                self.refuse(found.at(params, "measure"), f"metric '{found.name}': join_to_timespine needs a time spine "
                            "(the project declares none)")
                return None
            out["join_to_timespine"] = True
        filters: list[str] = []
        for container, key in ((found.body, "filter"), (ref, "filter")):  # the metric's and its measure input's, ANDed
            if container.get(key):
                more = self.filters(found, container, key, model)
                if more is None:
                    return None
                filters += more
        if filters:
            out["filters"] = filters
        return out

    def ratio(self, found: Found, params: Any) -> dict[str, Any] | None:
        out: dict[str, Any] = {}
        for side in ("numerator", "denominator"):
            raw = params.get(side)
            ref = raw if isinstance(raw, dict) else {"name": raw}
            if ref.get("offset_window") or ref.get("offset_to_grain"):
                self.refuse(found.at(params, side), f"metric '{found.name}': an offset on the {side} is {NOT_YET}")
                return None
            out[side] = str(ref.get("name"))
            if ref.get("filter"):  # this side's own filter (an alias only names the side: nothing to map)
                filters = self.filters(found, ref, "filter", None)
                if filters is None:
                    return None
                out[side] = {"name": str(ref.get("name")), "filters": filters}
        return out

    def derived(self, found: Found, params: Any) -> dict[str, Any] | None:
        expr_text = str(params.get("expr") or "")
        renames = {}
        inputs: list[dict[str, Any]] = []
        for item in params.get("metrics") or []:
            ref = item if isinstance(item, dict) else {"name": item}
            offset = self.offset_input(found, params, ref)
            if offset is None:
                return None
            filters: list[str] = []
            if ref.get("filter"):  # the input's own filter: its rows before aggregating (and before an offset shifts them)
                got = self.filters(found, ref, "filter", None)
                if got is None:
                    return None
                filters = got
            if offset or filters:  # such an input keeps its alias (or its name) in the expression: `inputs:` says how it reads
                inputs.append({"name": str(ref["name"]), **({"alias": str(ref["alias"])} if ref.get("alias") else {}),
                               **({"filters": filters} if filters else {}), **offset})
            elif ref.get("alias"):
                renames[str(ref["alias"]).lower()] = str(ref["name"])
        try:
            tree = sqlglot.parse_one(expr_text, read=self.dialect)
        except (ParseError, TokenError) as err:
            self.refuse(found.at(params, "expr"), f"metric '{found.name}': expr is not SQL: {err}")
            return None
        for column in tree.find_all(exp.Column):
            if not column.table and column.name.lower() in renames:
                column.replace(exp.column(renames[column.name.lower()]))
        return {"expr": tree.sql(dialect=self.dialect), **({"inputs": inputs} if inputs else {})}

    def offset_units(self) -> tuple[str, ...]:
        """What an offset counts in: a grain down to the second, or a custom granularity of the time spine."""
        spine: dict[str, Any] = dict(self.time_spine() or {})
        custom = [str(g["name"]).lower() for g in spine.get("custom_granularities") or []]
        return (*SUB_DAILY_GRAINS, *GRAINS, *custom)

    def offset_input(self, found: Found, params: Any, ref: dict[str, Any]) -> dict[str, str] | None:
        """`offset_window` / `offset_to_grain` of a derived metric's input ({} without; None when refused)."""
        window, grain = _window_text(ref.get("offset_window")) if isinstance(ref.get("offset_window"), dict) else ref.get("offset_window"), \
            ref.get("offset_to_grain")
        if window:
            unit = re.fullmatch(r"\s*\d+\s+([a-z_]+?)s?\s*", str(window).lower())
            if unit is None or unit.group(1) not in self.offset_units():
                self.refuse(found.at(params, "metrics"), f"metric '{found.name}': offset_window '{window}' on input '{ref.get('name')}': "
                            f"the unit is not a grain (second to year) nor a custom granularity of the time spine")
                return None
            return {"offset_window": _spelled(str(window))}
        if grain:
            if str(grain).lower() not in self.offset_units():
                self.refuse(found.at(params, "metrics"), f"metric '{found.name}': offset_to_grain '{grain}' on input "
                            f"'{ref.get('name')}': not a grain (second to year) nor a custom granularity of the time spine")
                return None
            return {"offset_to_grain": str(grain).lower()}
        return {}

    def conversion(self, found: Found, params: Any) -> dict[str, Any] | None:
        """`conversion_type_params` -> a conversion metric: both measures qualified, properties as dimensions."""
        nested = params.get("conversion_type_params") or {}
        out: dict[str, Any] = {}
        models = {}
        for side in ("base_measure", "conversion_measure"):
            got = self.measure_input(found, nested, side)
            if got is None:
                return None
            model, measure, ref = got
            given: dict[str, Any] = {"name": f"{model}__{measure}"}
            if ref.get("filter"):  # base: on the base events; conversion: on the conversion events (MetricFlow ignores it)
                filters = self.filters(found, ref, "filter", model)
                if filters is None:
                    return None
                given["filters"] = filters
            if ref.get("fill_nulls_with") is not None:  # the input's aggregate COALESCEd (engine/resolve/conversions.py)
                given["fill_nulls_with"] = ref["fill_nulls_with"]
            if ref.get("join_to_timespine"):
                if self.time_spine() is None:
                    self.refuse(found.at(nested, side), f"metric '{found.name}': join_to_timespine needs a time spine "
                                "(the project declares none)")
                    return None
                given["join_to_timespine"] = True
            out[side] = given if len(given) > 1 else given["name"]
            models[side] = model
        entity = str(nested.get("entity") or "")
        for side, model in models.items():
            if entity not in self.models[model].entities:
                self.refuse(found.at(nested, "entity"), f"metric '{found.name}': entity '{entity}' is not an entity of {model} "
                            f"(the model of its {side})")
                return None
        out["entity"] = entity
        out["calculation"] = str(nested.get("calculation") or "conversion_rate").lower()
        window = _window_text(nested.get("window")) if isinstance(nested.get("window"), dict) else nested.get("window")
        if window:
            unit = re.fullmatch(r"\s*\d+\s+([a-z_]+?)s?\s*", str(window).lower())
            if unit is None or unit.group(1) not in GRAINS:
                self.refuse(found.at(nested, "window"), f"metric '{found.name}': window '{window}': only whole days, weeks, "
                            "months, quarters and years are supported")
                return None
            out["window"] = _spelled(str(window))
        properties = []
        for item in nested.get("constant_properties") or []:
            pair = {}
            for key, side in (("base_property", "base_measure"), ("conversion_property", "conversion_measure")):
                name = str(item.get(key) or "")
                if name not in self.models[models[side]].dimensions:
                    self.refuse(found.at(nested, "constant_properties"), f"metric '{found.name}': {key} '{name}' is not a "
                                f"dimension or entity of {models[side]}")
                    return None
                pair[key] = f"{models[side]}__{name}"
            properties.append(pair)
        if properties:
            out["constant_properties"] = properties
        return out

    def cumulative(self, found: Found, params: Any) -> dict[str, Any] | None:
        got = self.measure_input(found, params)
        if got is None:
            return None
        model, measure, ref = got
        nested = params.get("cumulative_type_params") or {}
        window = _window_text(nested.get("window") or params.get("window"))
        grain = nested.get("grain_to_date") or params.get("grain_to_date")
        time_dim = self.measures[measure][1].get("agg_time_dimension") or self.models[model].agg_time_dimension
        if not time_dim or time_dim not in self.models[model].dimensions:
            self.refuse(found.at(params, "measure"), f"metric '{found.name}': measure '{measure}' has no agg_time_dimension "
                        f"(set defaults.agg_time_dimension on {model})")
            return None
        window_unit = re.fullmatch(r"\s*\d+\s+([a-z_]+?)s?\s*", str(window or "1 day").lower())
        if window_unit is None:
            self.refuse(found.at(nested if "window" in nested else params, "window"),
                        f"metric '{found.name}': window '{window}' is not a window (write e.g. '7 days' or '3 months')")
            return None
        for what, unit in (("window", window_unit.group(1)), ("grain_to_date", grain)):
            if unit and str(unit).lower() not in (*SUB_DAILY_GRAINS, *GRAINS):  # below a day: a generated finer spine
                self.refuse(found.at(nested if what in nested else params, what),
                            f"metric '{found.name}': a {what} in {unit}s: grains below a second are {NOT_YET}")
                return None
        period_agg = str(nested.get("period_agg") or "first").lower()  # MetricFlow's default: the period's first day
        if period_agg not in ("first", "last", "average"):
            self.refuse(found.at(nested, "period_agg"), f"metric '{found.name}': period_agg '{period_agg}' is not one of "
                        "MetricFlow's (first, last, average)")
            return None
        if self.time_spine() is None:
            self.refuse(found.at(found.body, "type"), f"metric '{found.name}': a cumulative metric needs a time spine, and "
                        "none was found (project_configuration time_spines, a dbt model with time_spine:, or metricflow_time_spine.sql)")
            return None
        out: dict[str, Any] = {"measure": f"{model}__{measure}", "time_dimension": f"{model}__{time_dim}"}
        if ref.get("filter"):  # the measure input's filter
            filters = self.filters(found, ref, "filter", model)
            if filters is None:
                return None
            out["filters"] = filters
        if window:
            out["window"] = str(window)
        if grain:
            out["grain_to_date"] = str(grain)
        out["period_agg"] = period_agg
        out["periods"] = "nonempty_window"  # MetricFlow's: every spine period whose window holds a row
        if ref.get("fill_nulls_with") is not None:  # on the measure input: the cumulative metric's own (the engine's)
            out["fill_nulls_with"] = ref["fill_nulls_with"]
        if ref.get("join_to_timespine"):
            out["join_to_timespine"] = True
        return out

    def metric_home(self, found: Found, metric: dict[str, Any]) -> str:
        """Metrics are global; each is written in the file of the model its (first) measure belongs to."""
        measure = metric.get("measure") or metric.get("base_measure")
        if isinstance(measure, dict):  # `base_measure: {name, filters, fill_nulls_with, ...}`
            measure = measure.get("name")
        if measure:
            return str(measure).split("__")[0]
        for name in self.sources_measure_models(found):
            return name
        return sorted(self.bodies)[0]

    def sources_measure_models(self, found: Found) -> list[str]:
        params = found.body.get("type_params") or {}
        wanted = [params.get("numerator"), params.get("denominator"), *(params.get("metrics") or [])]
        names = [str(w.get("name") if isinstance(w, dict) else w) for w in wanted if w]
        by_metric = {f.name: f for f in self.sources.metrics}
        out = []
        for name in names:
            inner = by_metric.get(name)
            raw = (inner.body.get("type_params") or {}).get("measure") if inner is not None else None
            measure = str(raw.get("name") if isinstance(raw, dict) else raw) if raw else None
            if measure in self.measures:
                out.append(self.measures[measure][0])
        return out


def _spelled(window: str) -> str:
    """'14 day' (a manifest's {count, granularity}) and '14 days' (YAML) written alike: '14 days'."""
    found = re.fullmatch(r"\s*(\d+)\s+([a-z_]+?)s?\s*", window.lower())
    if found is None:
        return window
    return f"{found.group(1)} {found.group(2)}{'' if found.group(1) == '1' else 's'}"


def _window_text(window: Any) -> str | None:
    """A window as YAML writes it ('7 days') or as semantic_manifest.json does ({"count": 7, "granularity": "day"})."""
    if isinstance(window, dict):
        return f"{window.get('count')} {str(window.get('granularity') or '').lower()}"
    return None if window in (None, "") else str(window)
