"""Reading one database folder into a SemanticLayer, collecting every error on the way.

The reader checks each file on its own (shapes, names, expressions); the elements of a model
(dimensions, measures, metrics) are read by `elements.py`; `validate.py` then checks what spans
files (join endpoints, metric inputs and cycles, primary keys).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import LayerError, LayerValidationError, Location, nearest
from .database_file import DatabaseReader
from .elements import DIMENSION_KEYS, MEASURE_KEYS, METRIC_KEYS, WINDOW_RULE, ElementReader  # noqa: F401 - importable from here as before
from .exprs import ExprError, parse_expression, parse_filter_expression, parse_query, parse_table
from .joins import with_partitions
from .longlived import long_lived
from .model import (
    JOIN_TYPES,
    RELATIONSHIPS,
    CachePolicy,
    Dimension,
    Entity,
    JoinEdge,
    Measure,
    Metric,
    Model,
    Role,
    SemanticLayer,
    SourceColumn,
    SourceTable,
)
from .reader import NAME_RULE, _kind, display_path
from .saved import read_saved_queries
from .semantics import with_metricflow_defaults
from .vocab import _flag, check_non_additive
from .yamlpos import YMap, YSeq, where

if TYPE_CHECKING:
    from .rollups import Rollups

MODEL_KEYS = (
    "name", "description", "table", "sql", "primary_key", "dimensions", "measures", "metrics", "default_time_dimension", "entities",
    "primary_entity",
)
JOIN_KEYS = ("from", "to", "key", "relationship", "type", "on", "preferred", "description")


class _Reader(DatabaseReader, ElementReader):
    """Reads one database folder: database.yml, models (their elements: elements.py), joins, sources and roles."""

    # -- models/*.yml ----------------------------------------------------------------------
    def model_files(self) -> list[Path]:
        folder = self.directory / "models"
        if not folder.is_dir():
            self.errors.add("missing models/ folder with one YAML file per semantic model", Location(display_path(folder), 1, 1), code="missing_file")
            return []
        return sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")])

    def model(self, path: Path) -> tuple[Model | None, list[Metric]]:
        raw, file = self.read(path)
        node = self.mapping(raw, file, "") if raw is not None else None
        if node is None:
            self._remember_broken(path)
            return None, []
        self.known_keys(node, MODEL_KEYS, file, "")
        name = self.name(node, file, "model", "model")
        table_text = self.text(node, "table", file, "model")
        sql_text = self.text(node, "sql", file, "model")
        source: exp.Expression | None = None
        if table_text and sql_text:
            self.errors.add("model: give either 'table' or 'sql', not both", where(file, node, "sql", field="sql"), code="invalid_model")
        elif table_text:
            try:
                source = parse_table(table_text, self.dialect)
            except ExprError as err:
                self.errors.add(f"table: {err}", where(file, node, "table", field="table"), code="invalid_expression")
        elif sql_text:
            try:
                source = exp.Subquery(this=parse_query(sql_text, self.dialect))
            except ExprError as err:
                self.errors.add(f"sql: {err}", where(file, node, "sql", field="sql"), code="invalid_expression")
        else:
            self.errors.add("model: missing 'table' (the physical table) or 'sql' (a derived model)", where(file, node, field="table"), code="missing_key")
        model_name = name or path.stem

        pk_texts: list[str] = []
        pk_nodes: list[exp.Expression] = []
        pk_locations: list[Location] = []
        pk = node.get("primary_key")
        if pk is not None:
            entries = [(pk, node, "primary_key", "primary_key")] if not isinstance(pk, YSeq) else [
                (item, pk, i, f"primary_key[{i}]") for i, item in enumerate(pk)
            ]
            for value, parent, key, field in entries:
                if not isinstance(value, str):
                    self.errors.add(f"{field}: expected an expression, got {_kind(value)}", where(file, parent, key, field=field), code="invalid_shape")
                    continue
                parsed = self._parse_at(value, file, parent, key, field)
                if parsed is not None:
                    pk_texts.append(value)
                    pk_nodes.append(parsed)
                    pk_locations.append(where(file, parent, key, field=field))

        dimensions: dict[str, Dimension] = {}
        measures: dict[str, Measure] = {}
        seen: dict[str, Location] = {}
        for i, item, seq in self.items(node, "dimensions", file, "model"):
            dim = self._dimension(model_name, item, file, seq, i)
            if dim and self._unique(dim.name, dim.location, seen, "element", model_name):
                dimensions[dim.name] = dim
        for i, item, seq in self.items(node, "measures", file, "model"):
            measure = self._measure(model_name, item, file, seq, i)
            if measure and self._unique(measure.name, measure.location, seen, "element", model_name):
                measures[measure.name] = measure
        metrics = [m for i, item, seq in self.items(node, "metrics", file, "model") if (m := self._metric(model_name, item, file, seq, i))]
        default_time = self.text(node, "default_time_dimension", file, "model") or None
        if default_time and not self.check_time_dimension(
                model_name, dimensions, default_time, where(file, node, "default_time_dimension", field="default_time_dimension"),
                "default_time_dimension"):
            default_time = None
        for owner, measure_name, td, loc in self.time_dimension_refs:
            if owner == model_name and measure_name in measures and not self.check_time_dimension(
                    model_name, dimensions, td, loc, f"measure {measure_name}: time_dimension"):
                measures[measure_name] = replace(measures[measure_name], time_dimension=None)
        self.time_dimension_refs = [r for r in self.time_dimension_refs if r[0] != model_name]
        for measure in list(measures.values()):  # a semi-additive measure's dimensions are its model's
            if not check_non_additive(self, model_name, measure, dimensions):
                measures[measure.name] = replace(measure, non_additive=None)
                self.broken.add(measure.qualified_name)
        entities: dict[str, Entity] = {}
        for i, item, seq in self.items(node, "entities", file, "model"):
            entity = self._entity(model_name, item, file, seq, i)
            if entity and self._unique(entity.name, entity.location, {e: x.location for e, x in entities.items()}, "entity", model_name):
                entities[entity.name] = entity
        if name is None or source is None:
            self.broken.add(name or path.stem)
            return None, metrics
        model = Model(
            name=name,
            description=self.text(node, "description", file, "model"),
            table=table_text or None,
            sql=sql_text or None,
            source=source,
            primary_key=tuple(pk_texts),
            primary_key_nodes=tuple(pk_nodes),
            primary_key_locations=tuple(pk_locations),
            dimensions=dimensions,
            measures=measures,
            metric_names=tuple(m.name for m in metrics),
            file=file,
            location=where(file, node, "name", field="name"),
            default_time_dimension=default_time,
            entities=entities,
            primary_entity=self.text(node, "primary_entity", file, "model") or None,
        )
        return model, metrics

    def _remember_broken(self, path: Path) -> None:
        """A model file that did not parse: remember its name so references to it are not reported too."""
        try:
            found = re.search(r"^name:\s*['\"]?([A-Za-z][A-Za-z0-9_]*)", path.read_text(encoding="utf-8"), re.MULTILINE)
        except (OSError, UnicodeDecodeError):
            found = None
        self.broken.add(found.group(1) if found else path.stem)

    def _parse_at(self, text: str, file: str, parent: Any, key: Any, field: str) -> exp.Expression | None:
        try:
            return parse_expression(text, self.dialect)
        except ExprError as err:
            self.errors.add(f"{field}: '{text}' {err}", where(file, parent, key, field=field), code="invalid_expression")
            return None

    def _unique(self, name: str, loc: Location, seen: dict[str, Location], what: str, scope: str) -> bool:
        if name in seen:
            first = seen[name]
            self.errors.add(f"duplicate {what} name '{name}' in {scope} (first defined at {first})", loc, code="duplicate_name")
            return False
        seen[name] = loc
        return True

    # -- joins.yml -------------------------------------------------------------------------
    def joins(self) -> list[JoinEdge]:
        path = self.directory / "joins.yml"
        if not path.exists():
            return []
        raw, file = self.read(path)
        if raw is None:
            return []
        node = self.mapping(raw, file, "")
        if node is None:
            return []
        self.known_keys(node, ("joins",), file, "")
        edges: list[JoinEdge] = []
        for i, item, seq in self.items(node, "joins", file, ""):
            field = f"joins[{i}]"
            edge = self.mapping(item, file, field, seq, i)
            if edge is None:
                continue
            self.known_keys(edge, JOIN_KEYS, file, field)
            src = self.text(edge, "from", file, field, required=True)
            dst = self.text(edge, "to", file, field, required=True)
            key = self.text(edge, "key", file, field, required=True)
            if key and (not NAME_RULE.match(key) or "__" in key):
                self.errors.add(f"{field}.key: invalid edge key '{key}' (letters, digits, single underscores)",
                                where(file, edge, "key", field=f"{field}.key"), code="invalid_name")
            rel = self.text(edge, "relationship", file, field, required=True, default="many_to_one").lower()
            if rel not in RELATIONSHIPS:
                self.errors.add(f"{field}.relationship: unknown relationship '{rel}' (use {', '.join(RELATIONSHIPS)})",
                                where(file, edge, "relationship", field=f"{field}.relationship"), code="invalid_join",
                                suggestions=nearest(rel, RELATIONSHIPS, 1))
            join_type = self.text(edge, "type", file, field, default="left").lower()
            if join_type not in JOIN_TYPES:
                self.errors.add(f"{field}.type: unknown join type '{join_type}' (use left or inner)",
                                where(file, edge, "type", field=f"{field}.type"), code="invalid_join", suggestions=nearest(join_type, JOIN_TYPES, 1))
            preferred = edge.get("preferred", False)
            if not isinstance(preferred, bool):
                self.errors.add(f"{field}.preferred: expected true or false", where(file, edge, "preferred", field=f"{field}.preferred"), code="invalid_shape")
                preferred = False
            on = edge.get("on")
            left_node = right_node = None
            left = right = ""
            pairs: list[tuple[str, str, exp.Expression, exp.Expression]] = []
            if on is None:
                self.errors.add(f"{field}: missing required key 'on' (with 'left' and 'right' expressions)", where(file, edge, field=field), code="missing_key")
            else:
                pairs = self.join_pairs(on, file, field, edge)  # one {left, right}, or a list of them (a composite key)
                if pairs:
                    left, right = ", ".join(p[0] for p in pairs), ", ".join(p[1] for p in pairs)
                    left_node, right_node = pairs[0][2], pairs[0][3]
            if src and dst and key and left_node is not None and right_node is not None and rel in RELATIONSHIPS:
                edges.append(JoinEdge(len(edges), src, dst, key, rel, join_type if join_type in JOIN_TYPES else "left",
                                      left, right, left_node, right_node, preferred, where(file, seq, i, field=field),
                                      tuple((p[2], p[3]) for p in pairs) if len(pairs) > 1 else ()))
        return edges

    def join_pairs(self, on: Any, file: str, field: str, edge: YMap) -> list[tuple[str, str, exp.Expression, exp.Expression]]:
        """`on: {left, right}` or `on: [{left, right}, ...]` (every pair must be equal): the pairs that parse, or []."""
        items = [(on, edge, "on", f"{field}.on")] if not isinstance(on, YSeq) else \
            [(item, on, j, f"{field}.on[{j}]") for j, item in enumerate(on)]
        if not items:
            self.errors.add(f"{field}.on: an empty list; give {{left, right}} or a list of them", where(file, edge, "on", field=f"{field}.on"),
                            code="invalid_join")
        out = []
        for value, parent, key, at in items:
            on_map = self.mapping(value, file, at, parent, key)
            if on_map is None:
                return []
            self.known_keys(on_map, ("left", "right"), file, at)
            left = self.text(on_map, "left", file, at, required=True)
            right = self.text(on_map, "right", file, at, required=True)
            left_node = self.expression(left, file, on_map, "left", f"{at}.left") if left else None
            right_node = self.expression(right, file, on_map, "right", f"{at}.right") if right else None
            if left_node is None or right_node is None:
                return []
            out.append((left, right, left_node, right_node))
        return out

    # -- sources.yml -----------------------------------------------------------------------
    def sources(self) -> dict[str, SourceTable]:
        path = self.directory / "sources.yml"
        if not path.exists():
            return {}
        raw, file = self.read(path)
        node = self.mapping(raw, file, "") if raw is not None else None
        if node is None:
            return {}
        self.known_keys(node, ("sources",), file, "")
        out: dict[str, SourceTable] = {}
        for i, item, seq in self.items(node, "sources", file, ""):
            field = f"sources[{i}]"
            table = self.mapping(item, file, field, seq, i)
            if table is None:
                continue
            self.known_keys(table, ("table", "description", "columns", "primary_key", "foreign_keys", "row_count"), file, field)
            name = self.text(table, "table", file, field, required=True)
            columns: dict[str, SourceColumn] = {}
            for j, col, cseq in self.items(table, "columns", file, field):
                cfield = f"{field}.columns[{j}]"
                cmap = self.mapping(col, file, cfield, cseq, j)
                if cmap is None:
                    continue
                cname = self.text(cmap, "name", file, cfield, required=True)
                if cname:
                    columns[cname.lower()] = SourceColumn(cname, self.text(cmap, "type", file, cfield) or None, self.text(cmap, "description", file, cfield))
            if name:
                out[name.lower()] = SourceTable(name, self.text(table, "description", file, field), columns)
        return out

    # -- access ----------------------------------------------------------------------------
    def roles(self, access: tuple[Any, str, YMap] | None) -> dict[str, Role]:
        if not access or access[0] is None:
            return {}
        raw, file, parent = access
        node = self.mapping(raw, file, "access", parent, "access")
        if node is None:
            return {}
        self.known_keys(node, ("roles",), file, "access")
        roles_node = node.get("roles")
        if roles_node is None:
            return {}
        roles_map = self.mapping(roles_node, file, "access.roles", node, "roles")
        if roles_map is None:
            return {}
        out: dict[str, Role] = {}
        for role_name, body in roles_map.items():
            field = f"access.roles.{role_name}"
            body_map = self.mapping(body, file, field, roles_map, role_name) if body is not None else YMap()
            if body_map is None:
                continue
            if not hasattr(body_map, "pos"):
                body_map.pos, body_map.key_pos, body_map.value_pos = roles_map.key_pos[role_name], {}, {}
            self.known_keys(body_map, ("row_filters", "hidden", "description", "show_filters"), file, field)
            filters = self.string_list(body_map, "row_filters", file, field)
            nodes = []
            for text, loc in filters:
                try:
                    nodes.append(parse_filter_expression(text, self.dialect))
                except ExprError as err:
                    self.errors.add(f"{loc.field}: '{text}' {err}", loc, code="invalid_filter")
            hidden = self.string_list(body_map, "hidden", file, field)
            out[role_name] = Role(role_name, tuple(t for t, _ in filters), tuple(nodes), tuple(h for h, _ in hidden),
                                  where(file, roles_map, role_name, field=field, at_key=True),
                                  show_filters=_flag(self, body_map, "show_filters", file, field))
        return out


def _read_rollups(reader: _Reader) -> Rollups | None:
    """rollups.yml, read by engine/layer/rollups.py, which (with its dataclasses) is imported only for a layer that
    has the file: most have none, and a one-shot `smq compile` pays every module it imports (start-up time)."""
    if not (reader.directory / "rollups.yml").exists():
        return None
    from .rollups import read_rollups

    return read_rollups(reader)


def read_layer(directory: Path) -> tuple[dict[str, Any], list[LayerError], set[str]]:
    """Everything of one folder, as objects plus the errors found file by file."""
    reader = _Reader(directory)
    db = reader.database()
    models: dict[str, Model] = {}
    metrics: dict[str, Metric] = {}
    model_locs: dict[str, Location] = {}
    metric_locs: dict[str, Location] = {}
    for path in reader.model_files():
        model, model_metrics = reader.model(path)
        if model is not None and reader._unique(model.name, model.location, model_locs, "model", f"database '{db['name']}'"):
            models[model.name] = model
        for metric in model_metrics:
            if reader._unique(metric.name, metric.location, metric_locs, "metric", f"database '{db['name']}'"):
                metrics[metric.name] = metric
    if db.get("semantics") == "metricflow":
        metrics = {name: with_metricflow_defaults(metric) for name, metric in metrics.items()}
    joins = with_partitions(reader.joins(), models)
    sources = reader.sources()
    roles = reader.roles(db.get("access"))
    rollups = _read_rollups(reader)
    saved = read_saved_queries(reader, directory)
    parts = {
        "name": db["name"],
        "description": db.get("description", ""),
        "dialect": db.get("dialect", reader.dialect),
        "connection": db.get("connection", {}),
        "connection_at": db.get("connection_at", {}),
        "time_spine": db.get("time_spine"),
        "cache": db.get("cache", CachePolicy()),
        "models": models,
        "metrics": metrics,
        "joins": tuple(joins),
        "roles": roles,
        "sources": sources,
        "rollups": rollups,
        "saved_queries": saved,
        "semantics": db.get("semantics", "native"),
        "directory": directory,
        "version": reader.hasher.hexdigest()[:16],
        "files": tuple(reader.files),
        **{key: value for key, value in db.items() if key.startswith("raw_sql_")},
    }
    return parts, reader.errors.errors, reader.broken


Check = Callable[[SemanticLayer], list[LayerError]]


def build_layer(directory: Path, checks: tuple[Check, ...] = ()) -> SemanticLayer:
    """Read and validate one database folder; raises LayerValidationError with every problem.

    `checks` run after the layer's own validation, on the layer as read (the facade passes the later stages'
    checks: its filters resolved as queries are, its roles), and their errors are reported with the loader's."""
    # loading makes ~11 objects per element and frees none of them: the cyclic garbage collector's
    # scans would cost a third of the time of a large layer, for nothing (longlived.py)
    with long_lived():
        return _build_layer(directory, checks)


def _build_layer(directory: Path, checks: tuple[Check, ...]) -> SemanticLayer:
    from .validate import validate_layer

    parts, errors, broken = read_layer(directory)
    layer = SemanticLayer(**parts)
    # references to a model whose file is broken would only repeat that file's error
    found = validate_layer(layer)
    for check in checks:
        found += check(layer)
    errors.extend(e for e in found if not _mentions_any(e.message, broken))
    if errors:
        raise LayerValidationError(layer.name, _dedupe(errors))
    return layer


def _mentions_any(message: str, names: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(n)}(__|\b)", message) for n in names)


def _dedupe(errors: list[LayerError]) -> list[LayerError]:
    seen: set[str] = set()
    out = []
    for e in errors:
        key = e.formatted()
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
