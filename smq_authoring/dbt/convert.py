"""MetricFlow's definitions mapped onto a layer: semantic models → models, entities → joins, metrics → metrics.

Every construct is either mapped exactly or refused with `file:line: what, and why` — never approximated.
Joins come from entities, as MetricFlow joins: a foreign entity reaches each model that owns it (primary,
unique), many_to_one, keyed by the entity's name; two owners of one entity meet one_to_one. A
`{{ Dimension('listing__is_lux') }}` in a metric filter becomes the native name with the same join path
(`listing.listings_latest__is_lux`), resolved from the metric's own model the way MetricFlow resolves it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from engine.errors import Location, nearest

from ..layerdoc import LayerDoc, ModelEntry, model_identity
from .source import DbtSources, Found
from .templates import Reference, TemplateError, references, translate

NAME_RULE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
AGGS = {"sum": "sum", "count": "count", "count_distinct": "count_distinct", "average": "avg", "avg": "avg",
        "min": "min", "max": "max", "sum_boolean": "sum"}
NOT_YET = "not supported yet (the metric vocabulary issue adds it); it was left out"
FINE_GRAINS = {"nanosecond", "microsecond", "millisecond", "second", "minute", "hour"}
OWNER_TYPES = ("primary", "unique")
GRAINS = ("day", "week", "month", "quarter", "year")


@dataclass
class Refusal:
    location: Location
    message: str

    def formatted(self) -> str:
        return f"{self.location.file}:{self.location.line}: {self.message}"


@dataclass
class SemanticModel:
    found: Found
    name: str
    entities: dict[str, tuple[str, str]]  # entity -> (type, expr)
    primary_entity: str | None
    dimensions: dict[str, dict[str, Any]]
    agg_time_dimension: str | None

    def owns(self, entity: str) -> bool:
        kind = self.entities.get(entity, ("", ""))[0]
        return kind in OWNER_TYPES or self.primary_entity == entity


@dataclass
class Converted:
    doc: LayerDoc
    refusals: list[Refusal] = field(default_factory=list)
    saved_queries: list[dict[str, Any]] = field(default_factory=list)
    metrics: int = 0


class Converter:
    def __init__(self, sources: DbtSources, db_name: str, dialect: str, schema: str | None) -> None:
        self.sources, self.db_name, self.dialect, self.schema = sources, db_name, dialect, schema
        self.refusals: list[Refusal] = []
        self.models: dict[str, SemanticModel] = {}
        self.bodies: dict[str, dict[str, Any]] = {}
        self.measures: dict[str, tuple[str, dict[str, Any]]] = {}  # measure -> (model, its dbt body)
        self.refused_measures: set[str] = set()
        self.boolean_dimensions: set[str] = set()  # Model__dimension used as a bare condition: typed boolean

    def refuse(self, location: Location, message: str) -> None:
        self.refusals.append(Refusal(location, message))

    # -- the whole conversion ------------------------------------------------------------------
    def run(self) -> Converted:
        for found in self.sources.semantic_models:
            self.semantic_model(found)
        joins = self.joins()
        mapped = [(found, metric) for found in self.sources.metrics if (metric := self.metric(found)) is not None]
        mapped = self.without_missing_inputs(mapped)
        for found, metric in mapped:
            self.bodies[self.metric_home(found, metric)].setdefault("metrics", []).append(metric)
        metrics = len(mapped)
        database: dict[str, Any] = {"name": self.db_name,
                                    "description": f"Imported from a {self.sources.origin} by smq import dbt.",
                                    "dialect": self.dialect}
        spine = self.time_spine()
        if spine:
            database["time_spine"] = spine
        models = {}
        for name, body in self.bodies.items():
            models[model_identity(body)] = ModelEntry(f"models/{name}.yml", body,
                                                      [f"imported from {self.models[name].found.file} (dbt semantic model {name})"])
        for qualified in self.boolean_dimensions:
            model, _, dim = qualified.partition("__")
            if model in self.models and dim in self.models[model].dimensions:
                self.models[model].dimensions[dim]["type"] = "boolean"
        doc = LayerDoc(database, models, joins)
        saved = [q for q in (self.saved_query(f) for f in self.sources.saved_queries) if q]
        return Converted(doc, self.refusals, saved, metrics)

    # -- semantic models -----------------------------------------------------------------------
    def semantic_model(self, found: Found) -> None:
        body, name = found.body, found.name
        if not NAME_RULE.match(name) or "__" in name:
            self.refuse(found.at(body, "name"), f"semantic model '{name}': not a valid model name "
                        "(letters, digits and single underscores, starting with a letter)")
            return
        if name in self.models:
            self.refuse(found.at(body, "name"), f"semantic model '{name}' is defined twice (first in {self.models[name].found.file})")
            return
        table = self.table_of(found)
        if table is None:
            return
        entities: dict[str, tuple[str, str]] = {}
        for item in body.get("entities") or []:
            ename, etype = str(item.get("name")), str(item.get("type") or "").lower()
            if etype not in ("primary", "unique", "foreign", "natural"):
                self.refuse(found.at(item, "type"), f"entity '{ename}' of {name}: unknown type '{etype}' (primary, unique, foreign, natural)")
                continue
            if etype == "natural":
                self.refuse(found.at(item, "type"), f"entity '{ename}' of {name}: natural entities (SCD type II joins "
                            f"with validity windows) are {NOT_YET}")
                continue
            entities[ename] = (etype, str(item.get("expr") if item.get("expr") is not None else ename))
        defaults = body.get("defaults") or {}
        model_body: dict[str, Any] = {"name": name}
        if body.get("description"):
            model_body["description"] = str(body["description"]).strip()
        model_body["table"] = table
        primary = [e for e, (t, _) in entities.items() if t == "primary"]
        if primary:
            model_body["primary_key"] = entities[primary[0]][1]
        dimensions: dict[str, dict[str, Any]] = {}
        for item in body.get("dimensions") or []:
            dim = self.dimension(found, name, item)
            if dim is not None:
                dimensions[dim["name"]] = dim
        for ename, (_, expr) in entities.items():  # an entity is a group-by too: `listing` is the listing's key
            if ename not in dimensions:
                dimensions[ename] = {"name": ename, "type": "string", "description": f"The {ename} entity's key.", "expr": expr}
        if dimensions:
            model_body["dimensions"] = list(dimensions.values())
        default_time = defaults.get("agg_time_dimension")
        if default_time and (dimensions.get(default_time) or {}).get("type") in ("date", "timestamp"):
            model_body["default_time_dimension"] = default_time
        if entities:  # MetricFlow's names (listing__country) resolve through them
            model_body["entities"] = [{"name": e, "type": t, "expr": x} for e, (t, x) in entities.items()]
        if body.get("primary_entity") and body["primary_entity"] not in entities:
            model_body["primary_entity"] = str(body["primary_entity"])
        self.models[name] = SemanticModel(found, name, entities, body.get("primary_entity"), dimensions, default_time)
        measures = [m for m in (self.measure(found, name, item) for item in body.get("measures") or []) if m]
        if measures:
            model_body["measures"] = measures
        self.bodies[name] = model_body

    def table_of(self, found: Found) -> str | None:
        body = found.body
        relation = body.get("node_relation")
        if isinstance(relation, dict) and relation.get("alias"):
            schema = self.schema or relation.get("schema_name")
            return ".".join(str(p) for p in (schema, relation["alias"]) if p)
        ref = re.fullmatch(r"\s*ref\(\s*['\"]([^'\"]+)['\"]\s*\)\s*", str(body.get("model") or ""))
        if ref:
            return f"{self.schema}.{ref.group(1)}" if self.schema else ref.group(1)
        self.refuse(found.at(body, "name"), f"semantic model '{found.name}': no table (give node_relation or model: ref('...'))")
        return None

    def dimension(self, found: Found, model: str, item: Any) -> dict[str, Any] | None:
        name, kind = str(item.get("name")), str(item.get("type") or "").lower()
        out: dict[str, Any] = {"name": name}
        params = item.get("type_params") or {}
        if kind == "categorical":
            out["type"] = "string"
        elif kind == "time":
            grain = str(params.get("time_granularity") or "day").lower()
            if params.get("validity_params"):
                self.refuse(found.at(item, "type_params"), f"dimension '{name}' of {model}: validity_params (SCD type II) are {NOT_YET}")
                return None
            out["type"] = "timestamp" if grain in FINE_GRAINS else "date"
        else:
            self.refuse(found.at(item, "type"), f"dimension '{name}' of {model}: unknown type '{kind}' (categorical or time)")
            return None
        description = item.get("description") or item.get("label")
        if description:
            out["description"] = str(description).strip()
        out["expr"] = str(item.get("expr")) if item.get("expr") is not None else name
        return out

    def measure(self, found: Found, model: str, item: Any) -> dict[str, Any] | None:
        name, agg = str(item.get("name")), str(item.get("agg") or "").lower()
        where = found.at(item, "agg")
        if name in self.measures:
            self.refuse(found.at(item, "name"), f"measure '{name}' is defined twice (also in {self.measures[name][0]})")
            return None
        if agg in ("median", "percentile"):
            self.refuse(where, f"measure '{name}' of {model}: {agg} aggregation is {NOT_YET}")
            self.refused_measures.add(name)
            return None
        if agg not in AGGS:
            self.refuse(where, f"measure '{name}' of {model}: unknown agg '{agg}' ({', '.join(AGGS)}, median, percentile)")
            return None
        if item.get("non_additive_dimension"):
            self.refuse(found.at(item, "non_additive_dimension"),
                        f"measure '{name}' of {model}: non_additive_dimension (semi-additive balances) is {NOT_YET}")
            self.refused_measures.add(name)
            return None
        expr = str(item.get("expr")) if item.get("expr") is not None else name
        if agg == "sum_boolean":
            expr = self.boolean_to_int(found, item, expr)
            if expr is None:
                return None
        self.measures[name] = (model, item)
        out: dict[str, Any] = {"name": name, "agg": AGGS[agg]}
        description = item.get("description") or item.get("label")
        if description:
            out["description"] = str(description).strip()
        out["expr"] = expr
        own_time = item.get("agg_time_dimension")
        if own_time and own_time != self.models[model].agg_time_dimension:
            if (self.models[model].dimensions.get(own_time) or {}).get("type") not in ("date", "timestamp"):
                self.refuse(found.at(item, "agg_time_dimension"), f"measure '{name}' of {model}: agg_time_dimension "
                            f"'{own_time}' is not a time dimension of {model}")
                self.refused_measures.add(name)
                return None
            out["time_dimension"] = str(own_time)
        return out

    def boolean_to_int(self, found: Found, item: Any, expr: str) -> str | None:
        """sum_boolean counts the rows where the expression is true: SUM(CASE WHEN x THEN 1 ELSE 0 END)."""
        try:
            node = sqlglot.parse_one(expr, read=self.dialect)
        except (ParseError, TokenError) as err:
            self.refuse(found.at(item, "expr"), f"measure '{item.get('name')}': expr is not SQL: {err}")
            return None
        case = exp.Case(ifs=[exp.If(this=node, true=exp.Literal.number(1))], default=exp.Literal.number(0))
        return case.sql(dialect=self.dialect)

    # -- joins ---------------------------------------------------------------------------------
    def joins(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        names = sorted(self.models)
        for a in names:
            for entity, (etype, expr) in self.models[a].entities.items():
                for b in names:
                    if b == a or entity not in self.models[b].entities or not self.models[b].owns(entity):
                        continue
                    if etype == "foreign":
                        relationship = "many_to_one"
                    elif etype in OWNER_TYPES and a < b:
                        relationship = "one_to_one"
                    else:
                        continue
                    out.append({"from": a, "to": b, "key": entity, "relationship": relationship,
                                "on": {"left": expr, "right": self.models[b].entities[entity][1]}})
        return out

    # -- names ----------------------------------------------------------------------------------
    def native(self, context: str, ref: Reference, where: Location) -> str:
        """A MetricFlow reference as the layer's name, walked from `context` (the metric's model)."""
        if ref.kind == "Metric":
            raise TemplateError(f"{{{{ Metric('{ref.name}') }}}} filters (a metric grouped by an entity) are {NOT_YET}")
        parts = ref.parts
        suffix = f"__extract_{ref.date_part}" if ref.date_part else (f"__{ref.grain}" if ref.grain else "")
        if parts[0] == "metric_time":  # the measure's own time dimension, as the layer's metric_time
            if len(parts) > 1 or ref.entity_path:
                raise TemplateError(f"'{ref.name}': write metric_time with the grain as a second argument")
            return "metric_time" + suffix
        if ref.kind == "Entity":
            path, element = list(parts[:-1]), parts[-1]
        else:
            if len(parts) < 2:
                raise TemplateError(f"'{ref.name}': write entity__dimension (MetricFlow names a dimension through its entity)")
            path, element = list(parts[:-1]), parts[-1]
        if ref.entity_path:
            path = list(ref.entity_path) + path
        keys, current = self.walk(context, path, element, ref)
        name = f"{current}__{element}"
        if suffix:
            dim = self.models[current].dimensions.get(element) or {}
            if dim.get("type") not in ("date", "timestamp"):
                raise TemplateError(f"'{ref.name}' is not a time dimension; it takes no grain or date part")
            name += suffix
        return ".".join([*keys, name])

    def walk(self, context: str, path: list[str], element: str, ref: Reference) -> tuple[list[str], str]:
        current, keys = context, []
        for i, entity in enumerate(path):
            last = i == len(path) - 1
            model = self.models[current]
            if model.owns(entity) and (not last or element in model.dimensions):
                continue
            owners = [m for m in sorted(self.models) if m != current and self.models[m].owns(entity)
                      and entity in model.entities and (not last or element in self.models[m].dimensions)]
            if not owners:
                raise TemplateError(f"'{ref.name}': no model keyed by entity '{entity}' with '{element}' can be reached from {current}")
            if len(owners) > 1 and not last:
                raise TemplateError(f"'{ref.name}': entity '{entity}' leads to several models ({', '.join(owners)}); name a longer path")
            keys.append(entity)
            current = owners[0]
        if element not in self.models[current].dimensions:
            raise TemplateError(f"'{ref.name}': {current} has no dimension or entity '{element}'")
        return keys, current

    def filters(self, found: Found, container: Any, key: str, context: str) -> list[str] | None:
        """A `filter:` (one string or a list) translated to the layer's names, or None when refused."""
        raw = container.get(key)
        items = raw if isinstance(raw, list) else [raw]
        out = []
        for text in items:
            if text is None:
                continue
            try:
                translated = translate(str(text), lambda ref: self.native(context, ref, found.at(container, key))).strip()
                out.append(self.explicit_booleans(translated))
            except TemplateError as err:
                self.refuse(found.at(container, key), f"metric '{found.name}': filter {str(text).strip()!r}: {err}")
                return None
        return out

    def explicit_booleans(self, predicate: str) -> str:
        """`{{ Dimension('booking__is_instant') }}` alone is a condition in MetricFlow, so the column is boolean:
        an element used bare under AND/OR/NOT is typed boolean in the layer (whose filters accept such)."""
        try:
            tree = sqlglot.parse_one(predicate, read=self.dialect)
        except (ParseError, TokenError) as err:
            raise TemplateError(f"not a SQL condition: {err}") from None

        def bare(node: exp.Expression) -> bool:
            while isinstance(node.parent, exp.Paren):
                node = node.parent
            return node.parent is None or isinstance(node.parent, (exp.And, exp.Or, exp.Not))

        for column in tree.find_all(exp.Column):
            if bare(column):
                self.boolean_dimensions.add(column.name)
        return predicate

    # -- metrics --------------------------------------------------------------------------------
    def metric(self, found: Found) -> dict[str, Any] | None:
        body, name = found.body, found.name
        kind = str(body.get("type") or "").lower()
        params = body.get("type_params") or {}
        if not NAME_RULE.match(name) or "__" in name:
            self.refuse(found.at(body, "name"), f"metric '{name}': not a valid metric name")
            return None
        grain = str(body.get("time_granularity") or "").lower()
        if grain and grain not in GRAINS:
            self.refuse(found.at(body, "time_granularity"), f"metric '{name}': time_granularity '{grain}': grains below a day "
                        f"are {NOT_YET}")
            return None
        out: dict[str, Any] = {"name": name, "type": kind}
        if body.get("description") or body.get("label"):
            out["description"] = str(body.get("description") or body.get("label")).strip()
        if kind == "simple":
            mapped = self.simple(found, params)
        elif kind == "ratio":
            mapped = self.ratio(found, params)
        elif kind == "derived":
            mapped = self.derived(found, params)
        elif kind == "cumulative":
            mapped = self.cumulative(found, params)
        elif kind == "conversion":
            self.refuse(found.at(body, "type"), f"metric '{name}': conversion metrics are {NOT_YET}")
            return None
        else:
            self.refuse(found.at(body, "type"), f"metric '{name}': unknown type '{kind}' (simple, ratio, derived, cumulative, conversion)")
            return None
        if mapped is None:
            return None
        if body.get("filter") and kind != "simple":
            self.refuse(found.at(body, "filter"), f"metric '{name}': a filter on a {kind} metric is {NOT_YET}")
            return None
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
        return {f.name for f in self.sources.metrics}

    def metric_inputs(self, metric: dict[str, Any]) -> list[str]:
        if metric["type"] == "ratio":
            return [metric["numerator"], metric["denominator"]]
        if metric["type"] == "derived":
            return sorted({c.name for c in sqlglot.parse_one(metric["expr"], read=self.dialect).find_all(exp.Column)})
        return []

    def measure_input(self, found: Found, params: Any) -> tuple[str, str, Any] | None:
        """(model, measure, its dbt reference) of `type_params.measure`, refusing what is not yet mapped."""
        raw = params.get("measure")
        ref = raw if isinstance(raw, dict) else {"name": raw}
        measure = str(ref.get("name"))
        if measure in self.refused_measures:
            self.refuse(found.at(params, "measure"), f"metric '{found.name}': its measure '{measure}' was left out (see its own message)")
            return None
        if measure not in self.measures:
            self.refuse(found.at(params, "measure"), f"metric '{found.name}': unknown measure '{measure}'"
                        + (f"; did you mean '{nearest(measure, list(self.measures))[0]}'?" if nearest(measure, list(self.measures)) else ""))
            return None
        for key in ("fill_nulls_with", "join_to_timespine"):
            if ref.get(key) not in (None, False):
                self.refuse(found.at(params, "measure"), f"metric '{found.name}': {key} is {NOT_YET}")
                return None
        if ref.get("filter"):
            self.refuse(found.at(params, "measure"), f"metric '{found.name}': a filter on the measure input is {NOT_YET}")
            return None
        return self.measures[measure][0], measure, ref

    def simple(self, found: Found, params: Any) -> dict[str, Any] | None:
        got = self.measure_input(found, params)
        if got is None:
            return None
        model, measure, _ = got
        out: dict[str, Any] = {"measure": f"{model}__{measure}"}
        if found.body.get("filter"):
            filters = self.filters(found, found.body, "filter", model)
            if filters is None:
                return None
            out["filters"] = filters
        return out

    def ratio(self, found: Found, params: Any) -> dict[str, Any] | None:
        out = {}
        for side in ("numerator", "denominator"):
            raw = params.get(side)
            ref = raw if isinstance(raw, dict) else {"name": raw}
            if ref.get("filter") or ref.get("alias") or ref.get("offset_window") or ref.get("offset_to_grain"):
                self.refuse(found.at(params, side), f"metric '{found.name}': a filter, alias or offset on the {side} is {NOT_YET}")
                return None
            out[side] = str(ref.get("name"))
        return out

    def derived(self, found: Found, params: Any) -> dict[str, Any] | None:
        expr_text = str(params.get("expr") or "")
        renames = {}
        for item in params.get("metrics") or []:
            ref = item if isinstance(item, dict) else {"name": item}
            for key in ("filter", "offset_window", "offset_to_grain"):
                if ref.get(key):
                    self.refuse(found.at(params, "metrics"), f"metric '{found.name}': {key} on input '{ref.get('name')}' is {NOT_YET}")
                    return None
            if ref.get("alias"):
                renames[str(ref["alias"]).lower()] = str(ref["name"])
        try:
            tree = sqlglot.parse_one(expr_text, read=self.dialect)
        except (ParseError, TokenError) as err:
            self.refuse(found.at(params, "expr"), f"metric '{found.name}': expr is not SQL: {err}")
            return None
        for column in tree.find_all(exp.Column):
            if not column.table and column.name.lower() in renames:
                column.replace(exp.column(renames[column.name.lower()]))
        return {"expr": tree.sql(dialect=self.dialect)}

    def cumulative(self, found: Found, params: Any) -> dict[str, Any] | None:
        got = self.measure_input(found, params)
        if got is None:
            return None
        model, measure, _ = got
        nested = params.get("cumulative_type_params") or {}
        window = nested.get("window") or params.get("window")
        grain = nested.get("grain_to_date") or params.get("grain_to_date")
        time_dim = self.measures[measure][1].get("agg_time_dimension") or self.models[model].agg_time_dimension
        if not time_dim or time_dim not in self.models[model].dimensions:
            self.refuse(found.at(params, "measure"), f"metric '{found.name}': measure '{measure}' has no agg_time_dimension "
                        f"(set defaults.agg_time_dimension on {model})")
            return None
        window_unit = re.fullmatch(r"\s*\d+\s+([a-z_]+?)s?\s*", str(window or "1 day").lower())
        for what, unit in (("window", window_unit.group(1) if window_unit else str(window)), ("grain_to_date", grain)):
            if unit and str(unit).lower() not in GRAINS:
                self.refuse(found.at(nested if what in nested else params, what),
                            f"metric '{found.name}': a {what} in {unit}s: grains below a day are {NOT_YET}")
                return None
        if nested.get("period_agg") not in (None, "first"):
            self.refuse(found.at(nested, "period_agg"), f"metric '{found.name}': period_agg '{nested.get('period_agg')}' "
                        f"(a period's last or average daily value) is {NOT_YET}")
            return None
        if self.time_spine() is None:
            self.refuse(found.at(found.body, "type"), f"metric '{found.name}': a cumulative metric needs a time spine, and "
                        "none was found (project_configuration time_spines, a dbt model with time_spine:, or metricflow_time_spine.sql)")
            return None
        out: dict[str, Any] = {"measure": f"{model}__{measure}", "time_dimension": f"{model}__{time_dim}"}
        if window:
            out["window"] = str(window)
        if grain:
            out["grain_to_date"] = str(grain)
        return out

    def metric_home(self, found: Found, metric: dict[str, Any]) -> str:
        """Metrics are global; each is written in the file of the model its (first) measure belongs to."""
        measure = metric.get("measure")
        if measure:
            return measure.split("__")[0]
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

    # -- time spine, saved queries -------------------------------------------------------------
    def time_spine(self) -> dict[str, str] | None:
        for spec, where in self.sources.time_spines:
            if spec.get("grain") in ("day", "") and spec.get("table") and spec.get("column"):
                table = str(spec["table"])
                if self.schema and "." in table:
                    table = f"{self.schema}.{table.split('.')[-1]}"
                return {"table": table, "column": str(spec["column"])}
        return None

    def saved_query(self, found: Found) -> dict[str, Any] | None:
        params = found.body.get("query_params") or {}
        smq: dict[str, Any] = {"metrics": [str(m) for m in params.get("metrics") or []]}
        group_by = [str(g) for g in params.get("group_by") or []]
        if group_by:
            smq["group_by"] = group_by
        where = params.get("where")
        if where:
            smq["filters"] = [str(w) for w in (where if isinstance(where, list) else [where])]
        if params.get("order_by"):
            smq["order_by"] = [str(o) for o in params["order_by"]]
        if params.get("limit") is not None:
            smq["limit"] = params["limit"]
        out: dict[str, Any] = {"name": found.name}
        if found.body.get("description"):
            out["description"] = str(found.body["description"]).strip()
        out["query"] = smq
        return out


def convert(sources: DbtSources, db_name: str, dialect: str, schema: str | None = None) -> Converted:
    return Converter(sources, db_name, dialect, schema).run()


__all__ = ["Converted", "Refusal", "convert", "references"]
