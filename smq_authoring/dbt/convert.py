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

from engine.errors import Location
from engine.layer.templates import parse_reference, template_name
from engine.resolve.filters import PREDICATES

from ..layerdoc import LayerDoc, ModelEntry, model_identity
from .formats import dbt_format, label_and_meta
from .measure_params import non_additive, percentile_params
from .metrics import GRAINS, NOT_YET, MetricMapping  # noqa: F401 - GRAINS importable from here as before
from .report import unread_keys
from .source import DbtSources, Found
from .templates import Reference, TemplateError, references, translate

NAME_RULE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
AGGS = {"sum": "sum", "count": "count", "count_distinct": "count_distinct", "average": "avg", "avg": "avg",
        "min": "min", "max": "max", "sum_boolean": "sum", "median": "median", "percentile": "percentile"}
FINE_GRAINS = {"nanosecond", "microsecond", "millisecond", "second", "minute", "hour"}
OWNER_TYPES = ("primary", "unique")


@dataclass
class Refusal:
    location: Location
    message: str

    def formatted(self) -> str:
        """`file:line: message`; in JSON (a manifest is often one line) `file:line:column: message`."""
        column = f":{self.location.column}" if (self.location.file or "").endswith(".json") and self.location.column else ""
        return f"{self.location.file}:{self.location.line}{column}: {self.message}"


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
    notes: list[Refusal] = field(default_factory=list)  # what was not imported and changes no answer (report.py)


class Converter(MetricMapping):
    def __init__(self, sources: DbtSources, db_name: str, dialect: str, schema: str | None) -> None:
        self.sources, self.db_name, self.dialect, self.schema = sources, db_name, dialect, schema
        self.refusals: list[Refusal] = []
        self.models: dict[str, SemanticModel] = {}
        self.bodies: dict[str, dict[str, Any]] = {}
        self.measures: dict[str, tuple[str, dict[str, Any]]] = {}  # measure -> (model, its dbt body)
        self.refused_measures: set[str] = set()
        self.created: list[Found] = []  # simple metrics MetricFlow makes from measures with create_metric: true
        self.boolean_dimensions: set[str] = set()  # Model__dimension used as a bare condition: typed boolean
        self.numeric_dimensions: set[str] = set()  # a categorical compared with a number in a filter: typed number

    def refuse(self, location: Location, message: str) -> None:
        self.refusals.append(Refusal(location, message))

    # -- the whole conversion ------------------------------------------------------------------
    def run(self) -> Converted:
        for found in self.sources.semantic_models:
            self.semantic_model(found)
        joins = self.joins()
        explicit = {f.name for f in self.sources.metrics}
        self.created = [f for f in self.created if f.name not in explicit]
        mapped = [(found, metric) for found in [*self.sources.metrics, *self.created] if (metric := self.metric(found)) is not None]
        mapped = self.without_missing_inputs(mapped)
        for found, metric in mapped:
            self.bodies[self.metric_home(found, metric)].setdefault("metrics", []).append(metric)
        metrics = len(mapped)
        database: dict[str, Any] = {"name": self.db_name,
                                    "description": f"Imported from a {self.sources.origin} by smq import dbt.",
                                    "dialect": self.dialect,
                                    # MetricFlow's meaning where smq's differs on purpose (docs/dbt.md); `native` for smq's
                                    "semantics": "metricflow"}
        spine = self.time_spine()
        if spine:
            database["time_spine"] = spine
        models = {}
        for name, body in self.bodies.items():
            models[model_identity(body)] = ModelEntry(f"models/{name}.yml", body,
                                                      [f"imported from {self.models[name].found.file} (dbt semantic model {name})"])
        found_saved = sorted(self.sources.saved_queries, key=lambda f: f.name)  # one order, whichever form was read
        saved = [q for q in (self.saved_query(f) for f in found_saved) if q]  # their filters type dimensions too
        for qualified in self.boolean_dimensions:
            model, _, dim = qualified.partition("__")
            if model in self.models and dim in self.models[model].dimensions:
                self.models[model].dimensions[dim]["type"] = "boolean"
        for qualified in self.numeric_dimensions - self.boolean_dimensions:
            model, _, dim = qualified.partition("__")
            if model in self.models and self.models[model].dimensions.get(dim, {}).get("type") == "string":
                self.models[model].dimensions[dim]["type"] = "number"
        doc = LayerDoc(database, models, joins)
        notes: list[Refusal] = []
        unread_keys(self.sources, lambda where, message: notes.append(Refusal(where, message)))
        return Converted(doc, self.refusals, saved, metrics, notes)

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

    def is_condition(self, expr: Any) -> bool:
        """Whether a categorical dimension's expression is a predicate (MetricFlow lets such a dimension stand
        alone in a where filter; the engine does so for boolean dimensions)."""
        if expr is None:
            return False
        try:
            node = sqlglot.parse_one(str(expr), dialect=self.dialect)
        except (ParseError, TokenError):
            return False
        return isinstance(node.unnest() if isinstance(node, exp.Paren) else node, PREDICATES)

    def dimension(self, found: Found, model: str, item: Any) -> dict[str, Any] | None:
        name, kind = str(item.get("name")), str(item.get("type") or "").lower()
        out: dict[str, Any] = {"name": name}
        params = item.get("type_params") or {}
        if kind == "categorical":  # a condition (`shipped_at IS NOT NULL`) is a boolean: usable bare in a filter
            out["type"] = "boolean" if self.is_condition(item.get("expr")) else "string"
        elif kind == "time":
            grain = str(params.get("time_granularity") or "day").lower()
            if params.get("validity_params"):
                self.refuse(found.at(item, "type_params"), f"dimension '{name}' of {model}: validity_params (SCD type II) are {NOT_YET}")
                return None
            out["type"] = "timestamp" if grain in FINE_GRAINS else "date"
            if grain in ("week", "month", "quarter", "year"):  # a monthly snapshot: conversions compare at its grain
                out["time_granularity"] = grain
        else:
            self.refuse(found.at(item, "type"), f"dimension '{name}' of {model}: unknown type '{kind}' (categorical or time)")
            return None
        if item.get("description"):
            out["description"] = str(item["description"]).strip()
        out.update(label_and_meta(item))
        out["expr"] = str(item.get("expr")) if item.get("expr") is not None else name
        if item.get("is_partition") is True:  # joins between two models sharing it also join on it (the engine's)
            out["is_partition"] = True
        return out

    def measure(self, found: Found, model: str, item: Any) -> dict[str, Any] | None:
        name, agg = str(item.get("name")), str(item.get("agg") or "").lower()
        where = found.at(item, "agg")
        if name in self.measures:
            self.refuse(found.at(item, "name"), f"measure '{name}' is defined twice (also in {self.measures[name][0]})")
            return None
        if agg not in AGGS:
            self.refuse(where, f"measure '{name}' of {model}: unknown agg '{agg}' ({', '.join(AGGS)})")
            return None
        extra: dict[str, Any] = {}  # percentile parameters, semi-additive window (measure_params.py)
        if agg == "percentile":
            got = percentile_params(found, model, item, self.refuse)
            if got is None:
                self.refused_measures.add(name)
                return None
            extra.update(got)
        if item.get("non_additive_dimension"):
            window = non_additive(found, model, item, self.models[model].dimensions, self.refuse)
            if window is None:
                self.refused_measures.add(name)
                return None
            extra["non_additive_dimension"] = window
        expr = str(item.get("expr")) if item.get("expr") is not None else name
        if agg == "sum_boolean":
            as_int = self.boolean_to_int(found, item, expr)
            if as_int is None:
                return None
            expr = as_int
        self.measures[name] = (model, item)
        if item.get("create_metric"):
            body = {"name": name, "type": "simple", "type_params": {"measure": name}}
            for key in ("description", "label", "meta", "config"):
                if item.get(key):
                    body[key] = item[key]
            self.created.append(Found("metric", body, found.file, found.at(item).line or found.line))
        out: dict[str, Any] = {"name": name, "agg": AGGS[agg]}
        if item.get("description"):
            out["description"] = str(item["description"]).strip()
        out.update(label_and_meta(item))
        out["expr"] = expr
        out.update(extra)
        shown, problem = dbt_format(item)
        if problem:
            self.refuse(found.at(item, "meta"), f"measure '{name}': {problem}")
            self.refused_measures.add(name)
            return None
        if shown:
            out["format"] = shown
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
        if ref.kind == "Metric":  # METRIC(bookings, listing): the layer resolves MetricFlow's names at query time
            return template_name(ref)
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

    def filters(self, found: Found, container: Any, key: str, context: str | None) -> list[str] | None:
        """A `filter:` (one string or a list) translated to the layer's names, or None when refused.

        With a context (the one model a simple metric reads) the names become native names walked from it; without
        (a ratio's, derived metric's or input's filter, read from several models) they stay MetricFlow's names, which
        the layer binds to each measure's own model, as MetricFlow does."""
        raw = container.get(key)
        items = raw if isinstance(raw, list) else [raw]
        out = []
        for text in items:
            if text is None:
                continue
            try:
                owners: dict[str, str] = {}
                rename = (lambda ref: self.native(context, ref, found.at(container, key))) if context else \
                    (lambda ref: self.mf_name(ref, owners))
                translated = translate(str(text), rename).strip()
                out.append(self.explicit_booleans(translated))
                self.boolean_dimensions.update(owners[n] for n in list(self.boolean_dimensions) if n in owners)
                self.numeric_dimensions.update(owners[n] for n in list(self.numeric_dimensions) if n in owners)
            except TemplateError as err:
                self.refuse(found.at(container, key), f"metric '{found.name}': filter {str(text).strip()!r}: {err}")
                return None
        return out

    def mf_name(self, ref: Reference, owners: dict[str, str]) -> str:
        """A template as the MetricFlow name the layer resolves itself; `owners` learns the native dimension it names."""
        name = template_name(ref)
        parts = ref.parts
        if ref.kind == "Dimension" and len(parts) >= 2:
            entity, element = parts[-2], parts[-1]
            for model in sorted(self.models):
                if self.models[model].owns(entity) and element in self.models[model].dimensions:
                    owners[name] = f"{model}__{element}"
                    break
        return name

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
        # `{{ Dimension('order_id__customer_order_number') }} = 1`: MetricFlow's categorical holds numbers here
        for compare in tree.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE):
            sides = (compare.this, compare.expression)
            for one, other in (sides, sides[::-1]):
                if isinstance(one, exp.Column) and isinstance(other, exp.Literal) and not other.is_string:
                    self.numeric_dimensions.add(one.name)
                elif isinstance(one, exp.Column) and isinstance(other, exp.Boolean):  # `... = true`
                    self.boolean_dimensions.add(one.name)
        return predicate

    # -- time spine, saved queries -------------------------------------------------------------
    def time_spine(self) -> dict[str, str] | None:
        for spec, where in self.sources.time_spines:
            if spec.get("grain") in ("day", "") and spec.get("table") and spec.get("column"):
                table = str(spec["table"])
                if self.schema:  # as every model's table: a project's `time_spine: table: x` too, not only a manifest's s.x
                    table = f"{self.schema}.{table.split('.')[-1].strip(chr(34) + '`')}"
                spine = {"table": table, "column": str(spec["column"])}
                if spec.get("custom"):  # MetricFlow's custom_granularities: metric_time__<name> reads the spine's column
                    spine["custom_granularities"] = spec["custom"]
                return spine
        return None

    @staticmethod
    def query_name(text: Any) -> str:
        return _query_name(text)

    def saved_query(self, found: Found) -> dict[str, Any] | None:
        params = found.body.get("query_params") or {}
        try:  # `TimeDimension('metric_time', 'day')` -> metric_time__day: the names the layer resolves
            group_by = [self.query_name(g) for g in params.get("group_by") or []]
            order_by = [self.query_name(o) for o in params.get("order_by") or []]
        except TemplateError as err:
            self.refuse(found.at(found.body, "query_params"), f"saved query '{found.name}': {err}")
            return None
        smq: dict[str, Any] = {"metrics": [str(m) for m in params.get("metrics") or []]}
        if group_by:
            smq["group_by"] = group_by
        where = params.get("where")
        if isinstance(where, dict):  # a manifest's {where_filters: [{where_sql_template: ...}]}
            where = [w.get("where_sql_template") for w in where.get("where_filters") or [] if isinstance(w, dict)]
        if where:
            filters = self.filters(found, {"where": [str(w) for w in (where if isinstance(where, list) else [where]) if w]},
                                   "where", None)
            if filters is None:
                return None
            smq["filters"] = filters
        if order_by:
            smq["order_by"] = order_by
        if params.get("limit") is not None:
            smq["limit"] = params["limit"]
        out: dict[str, Any] = {"name": found.name}
        if found.body.get("description"):
            out["description"] = str(found.body["description"]).strip()
        if found.body.get("label"):
            out["label"] = str(found.body["label"]).strip()
        out["query"] = smq
        return out


def _query_name(text: Any) -> str:
    """A saved query's group_by or order_by entry as an SMQ name: `Dimension('customer__name')` -> customer__name,
    `TimeDimension('metric_time', 'week')` -> metric_time__week, `Entity('order_id')` -> order_id, `.descending(True)` -> '-'."""
    raw = str(text).strip()
    if not re.match(r"(Dimension|TimeDimension|Entity|Metric)\s*\(", raw):
        return raw
    ref = parse_reference(raw)
    name = ref.name if ref.kind == "Metric" else template_name(ref)
    return f"-{name}" if ref.descending else name


def convert(sources: DbtSources, db_name: str, dialect: str, schema: str | None = None) -> Converted:
    return Converter(sources, db_name, dialect, schema).run()


__all__ = ["Converted", "Refusal", "convert", "references"]
