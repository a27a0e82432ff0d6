"""The engine's public face: `load_layers(models_dir)` and `Layer.compile(smq)`."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sqlglot import exp

from .access.lineage import Visibility, visibility
from .access.roles import restricted_sources
from .dialects import SUPPORTED_DIALECTS, dialect as dialect_of
from .dialects.base import Dialect
from .errors import EngineError, InternalError, LayerError, LayerValidationError, Location, QueryError, nearest
from .explain import plan_data, resolved_data
from .layer.formats import element_format, is_additive
from .layer.joins import JoinGraph
from .layer.load import build_layer, display_path
from .layer.model import Model, Role, SemanticLayer
from .lru import LruCache
from .plan.nodes import Node
from .plan.planner import plan_query
from .render.visitor import QueryRenderer
from .resolve.layer_checks import check_layer_filters
from .resolve.mf_names import MFNames
from .resolve.names import Resolver
from .resolve.query import SMQ, parse_smq
from .resolve.query_resolver import QueryResolver
from .resolve.resolved import ResolvedQuery

DEFAULT_MODELS_DIR = "semantic_models"


def default_models_dir() -> Path:
    """`$SMQ_MODELS_DIR`, else ./semantic_models."""
    return Path(os.environ.get("SMQ_MODELS_DIR") or DEFAULT_MODELS_DIR)


class Layer:
    """One database's semantic layer, ready to compile SMQs. Immutable; safe to share across threads."""

    def __init__(self, semantic: SemanticLayer, cache_size: int = 512) -> None:
        self.semantic = semantic
        self.graph = JoinGraph(semantic.models, semantic.joins)
        self._cache: LruCache[tuple, str] = LruCache(cache_size)
        self._lock = threading.Lock()
        self._sources: dict[tuple[str, str, bool], dict[str, exp.Expression]] = {}

    # -- facts -------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.semantic.name

    @property
    def dialect(self) -> str:
        return self.semantic.dialect

    @property
    def description(self) -> str:
        return self.semantic.description

    @property
    def models(self) -> Mapping[str, Model]:
        return self.semantic.models

    @property
    def version(self) -> str:
        return self.semantic.version

    def visibility(self, role: str | None) -> Visibility:
        """What a role may see: the element names it may not use (declared and by lineage), the entities whose key
        reads a hidden value, the columns holding hidden values (engine/access/lineage.py)."""
        return visibility(self.semantic, self.role(role))

    def role(self, name: str | None) -> Role | None:
        if name is None:
            return None
        role = self.semantic.roles.get(name)
        if role is None:
            raise QueryError(f"unknown role '{name}' for database '{self.name}'", code="unknown_role",
                             suggestions=nearest(name, self.semantic.roles))
        return role

    # -- compile -------------------------------------------------------------------------------
    def compile(self, smq: Mapping[str, Any] | str | SMQ, dialect: str | None = None, role: str | None = None,
                *, pretty: bool = True, use_cache: bool = True, shown: bool = False) -> str:
        """SMQ -> SQL text in the layer's dialect (or `dialect`); raises QueryError for a bad query. `shown`: the SQL as
        it is shown to the role (its row filters' values named, not spelled out), not as it is run."""
        spec = parse_smq(smq)
        target = self._dialect(dialect)
        key = (spec.canonical(), target.name, role, pretty, shown)
        if use_cache:
            hit = self._cache.get(key)
            if hit is not None:
                return hit
        # the tree is this call's own (every layer node it holds is a copy): generate it in place, without
        # the deep copy sqlglot makes by default (a sixth of an uncached compile)
        sql = self._compile_tree(spec, target, role, shown).sql(dialect=target.name, pretty=pretty, copy=False)
        if use_cache:
            self._cache.put(key, sql)
        return sql

    def compile_expression(self, smq: Mapping[str, Any] | str | SMQ, dialect: str | None = None, role: str | None = None,
                           *, shown: bool = False) -> exp.Query:
        """The compiled query as a sqlglot tree (for callers that rewrite or inspect it)."""
        return self._compile_tree(parse_smq(smq), self._dialect(dialect), role, shown)

    def explain(self, smq: Mapping[str, Any] | str | SMQ, dialect: str | None = None, role: str | None = None) -> dict[str, Any]:
        """What each stage made of a query, as data: the resolved query, the plan, the SQL (engine/explain.py)."""
        spec, target = parse_smq(smq), self._dialect(dialect)
        resolved, plan, tree = self._stages(spec, target, role, shown=True)
        return {"database": self.name, "dialect": target.name, "role": role, "smq": spec.as_dict(),
                "resolved": resolved_data(resolved, target.name), "plan": plan_data(plan),
                "sql": tree.sql(dialect=target.name, pretty=True, copy=False)}

    def _compile_tree(self, spec: SMQ, target: Dialect, role: str | None, shown: bool = False) -> exp.Query:
        return self._stages(spec, target, role, shown)[2]

    def _stages(self, spec: SMQ, target: Dialect, role: str | None, shown: bool = False) -> tuple[ResolvedQuery, Node, exp.Query]:
        """resolve -> plan -> render, each stage's result."""
        seen = self.visibility(role)
        try:
            names = Resolver(self.semantic, seen.hidden, seen.hidden_entities)
            resolved = QueryResolver(self.semantic, self.graph, names, target).resolve(spec)
            plan = plan_query(resolved, self.semantic)
            sources = self.restricted_sources(role, target.name, shown=shown)
            renderer = QueryRenderer(self.semantic, target, lambda m: sources.get(m.name, m.source))
            return resolved, plan, target.finish(renderer.render(plan))
        except EngineError:
            raise
        except Exception as exc:  # a bug: never leak a traceback to the user as their fault
            raise InternalError(f"the compiler failed on a valid-looking query: {type(exc).__name__}: {exc}") from exc

    def restricted_sources(self, role: str | None, dialect: str | None = None, *, shown: bool = False) -> dict[str, exp.Expression]:
        """Model name -> filtered subquery for a role's row filters (empty without filters), fenced for `dialect`;
        `shown`: as the role is shown them (its filters' values named, engine/access/roles.py)."""
        if role is None:
            return {}
        target = (dialect or self.dialect).lower()
        with self._lock:
            cached = self._sources.get((role, target, shown))
        if cached is None:
            cached = restricted_sources(self.semantic, self.graph, self.role(role), target, shown=shown)
            with self._lock:
                self._sources[(role, target, shown)] = cached
        return cached

    def shows_filters(self, role: str | None) -> bool:
        """Whether the SQL shown to this role differs from the SQL run: its row filters' values are named, not shown."""
        found = self.role(role)
        return found is not None and bool(found.row_filters) and not found.show_filters

    def _dialect(self, dialect: str | None) -> Dialect:
        target = (dialect or self.dialect).lower()
        if target not in SUPPORTED_DIALECTS:
            raise QueryError(f"unsupported dialect '{target}' (supported: {', '.join(SUPPORTED_DIALECTS)})",
                             code="unsupported_dialect", location=Location(field="dialect"),
                             suggestions=nearest(target, SUPPORTED_DIALECTS, 1))
        return dialect_of(target)

    # -- listings ------------------------------------------------------------------------------
    def elements(self, models: list[str] | None = None, role: str | None = None) -> dict[str, Any]:
        """getModelDataElements: dimensions, measures and metrics of the named models (all when empty)."""
        seen = self.visibility(role)
        hidden = seen.hidden
        names = list(models or self.models)
        mf = MFNames(self.semantic, hidden, seen.hidden_entities) if any(m.entities or m.primary_entity for m in self.models.values()) else None
        out = []
        for i, name in enumerate(names):
            model = self.models.get(name)
            if model is None:
                raise QueryError(f"unknown model '{name}'", code="unknown_model", location=Location(field=f"models[{i}]"),
                                 suggestions=nearest(name, self.models))
            out.append({
                "name": model.name,
                "description": model.description,
                "dimensions": [
                    {"name": d.qualified_name, "type": d.type, "description": d.description,
                     **({"grains": ["day", "week", "month", "quarter", "year"]} if d.is_time else {}),
                     **({"mf_name": mf_name} if mf is not None and (mf_name := mf.mf_name(d)) else {})}
                    for d in model.dimensions.values() if d.qualified_name not in hidden
                ],
                "measures": [
                    {"name": m.qualified_name, "agg": m.agg, "description": m.description,
                     **self._format_entry(m.qualified_name)}
                    for m in model.measures.values() if m.qualified_name not in hidden
                ],
                "metrics": [
                    {"name": self.semantic.metrics[n].name, "type": self.semantic.metrics[n].type,
                     "description": self.semantic.metrics[n].description, **self._format_entry(n)}
                    for n in model.metric_names if n not in hidden
                ],
            })
        return {"models": out}

    def element_format(self, name: str) -> dict[str, Any] | None:
        """How a front end shows a measure's or metric's numbers ({type, currency?, decimals?}), or None:
        its `format:`, else (a simple or cumulative metric) its measure's."""
        found = element_format(self.semantic, name)
        return found.as_dict() if found is not None else None

    def _format_entry(self, name: str) -> dict[str, Any]:
        """A measure's or metric's listing extras: `additive` (its groups add up: a chart may stack them), `format`."""
        found = self.element_format(name)
        return {"additive": is_additive(self.semantic, name), **({"format": found} if found is not None else {})}

    def model_list(self) -> list[dict[str, str]]:
        """Every model with its description: the agent's starting context."""
        return [{"name": m.name, "description": m.description} for m in self.models.values()]


class Layers(Mapping[str, Layer]):
    """Every database found under a models folder: the good ones, and the errors of the rest."""

    def __init__(self, root: Path, layers: dict[str, Layer], errors: dict[str, LayerValidationError]) -> None:
        self.root = root
        self._layers = layers
        self.errors = errors

    def __getitem__(self, name: str) -> Layer:
        try:
            return self._layers[name]
        except KeyError:
            if name in self.errors:
                raise QueryError(f"database '{name}' failed to load: {len(self.errors[name].errors)} error(s) in its layer "
                                 f"(run `smq validate --db {name}`)", code="database_invalid") from None
            raise QueryError(f"unknown database '{name}'", code="unknown_database",
                             suggestions=nearest(name, list(self._layers) + list(self.errors))) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._layers)

    def __len__(self) -> int:
        return len(self._layers)


def database_dirs(root: Path) -> list[Path]:
    """Sub-folders holding a database.yml (or looking like a layer)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
                  and ((p / "database.yml").exists() or (p / "database.yaml").exists() or (p / "models").is_dir()))


def load_layer(directory: str | Path) -> Layer:
    """One database folder; raises LayerValidationError with every problem of it."""
    enabled = gc.isenabled()
    gc.disable()  # see build_layer: bulk creation of long-lived objects
    try:
        return Layer(build_layer(Path(directory), (check_layer_filters,)))
    finally:
        if enabled:
            gc.enable()


def load_layers(models_dir: str | Path | None = None) -> Layers:
    """Every database under `models_dir`; one broken database never stops the others."""
    root = Path(models_dir) if models_dir is not None else default_models_dir()
    if not root.is_dir():
        raise LayerValidationError(str(root), [LayerError(
            "models folder not found (set --models-dir or SMQ_MODELS_DIR)", code="missing_file",
            location=Location(display_path(root), 1, 1))])
    layers: dict[str, Layer] = {}
    errors: dict[str, LayerValidationError] = {}
    for directory in database_dirs(root):
        try:
            layer = load_layer(directory)
        except LayerValidationError as err:
            errors[err.database] = err
            continue
        if layer.name in layers:
            first = layers[layer.name].semantic.directory
            errors[layer.name + f" ({directory.name})"] = LayerValidationError(layer.name, [LayerError(
                f"database name '{layer.name}' is already used by {display_path(first)}", code="duplicate_name",
                location=Location(display_path(directory / "database.yml"), 1, 1))])
            continue
        layers[layer.name] = layer
    return Layers(root, layers, errors)
