"""The engine's public face: `load_layers(models_dir)` and `Layer.compile(smq)`."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from .access.lineage import Visibility, visibility
from .dialects import SUPPORTED_DIALECTS, dialect as dialect_of
from .dialects.base import Dialect
from .errors import EngineError, InternalError, LayerError, LayerValidationError, Location, QueryError, nearest
from .layer.formats import element_format, is_additive
from .layer.joins import JoinGraph
from .layer.load import build_layer, display_path
from .layer.longlived import long_lived
from .layer.model import Model, Role, SemanticLayer
from .lru import LruCache
from .plan.nodes import Node
from .plan.planner import leaf, plan_query
from .render.sqltree import ident
from .render.visitor import QueryRenderer
from .resolve.layer_checks import check_layer_filters
from .resolve.mf_names import MFNames
from .resolve.names import Resolver
from .resolve.query import SMQ, parse_smq
from .resolve.query_resolver import QueryResolver
from .resolve.resolved import ResolvedQuery
from .resolve.saved import expand_saved_query
from .trees import release

if TYPE_CHECKING:  # the rollups, the access roles and explain are imported where used: most queries need none of them
    from .rollups.bind import BoundRollup, RollupState
    from .rollups.mix import Part
    from .rollups.route import Decision, RoleRows, Routed

DEFAULT_MODELS_DIR = "semantic_models"
EMBEDDED_DIALECT = "duckdb"  # the embedded rollup store is a DuckDB file
_DIALECTS: dict[str, Dialect] = {}  # a supported dialect's name -> its Dialect (Layer._dialect)


@dataclass(frozen=True)
class Compiled:
    """A compiled query and where it runs: on the warehouse, or (`store == "rollups"`) on the embedded rollup file,
    in DuckDB's dialect, or (`store == "mixed"`) on the warehouse once each of `parts` has run on the rollup file and
    its rows fill its placeholder table (engine/rollups/mix.py). `rollups`: which rollups answered; `decisions`: per
    aggregation, which one and why."""

    tree: exp.Query
    dialect: str
    store: str  # "warehouse" | "rollups" | "mixed"
    rollups: tuple[str, ...]
    decisions: tuple[Decision, ...]
    parts: tuple[Part, ...] = ()

    @property
    def sql(self) -> str:
        return self.tree.sql(dialect=self.dialect, pretty=True)


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
        self.rollups: tuple[BoundRollup, ...] = _bound_rollups(semantic, self.graph)  # checked at load
        self._routed_layer = replace(semantic, models={**semantic.models, **{r.table.name: r.table for r in self.rollups}}) \
            if self.rollups else semantic
        self._rollup_states: dict[str, RollupState] = {}

    # -- rollups ---------------------------------------------------------------------------------
    @property
    def rollups_embedded(self) -> bool:
        """Are the rollups in an embedded DuckDB file (not the warehouse)?"""
        return self.semantic.rollups is not None and not self.semantic.rollups.storage.warehouse

    def set_rollup_states(self, states: Mapping[str, RollupState]) -> None:
        """What the rollup store holds (smq_db/rollups.py): which rollups are built, until when they may answer."""
        with self._lock:
            self._rollup_states = dict(states)

    def rollup(self, name: str) -> BoundRollup:
        found = next((r for r in self.rollups if r.name == name), None)
        if found is None:
            raise QueryError(f"unknown rollup '{name}' in database '{self.name}'", code="unknown_element",
                             suggestions=nearest(name, [r.name for r in self.rollups]))
        return found

    def rollup_build_sql(self, name: str, since: str | None = None) -> str:
        """The SQL (the layer's dialect) whose rows a rollup stores: its SMQ compiled by the engine, with no role and
        no rollups; `since` (a day): only the periods from it on, for a partial rebuild."""
        from .rollups.build import build_query, build_smq

        rollup = self.rollup(name)
        target = self._dialect(None)
        try:
            resolved = QueryResolver(self.semantic, self.graph, Resolver(self.semantic), target).resolve(
                parse_smq(build_smq(rollup, since)))
            query = build_query(resolved, rollup)
            tree = target.finish(QueryRenderer(self.semantic, target, lambda m: m.source).render(plan_query(query, self.semantic)))
        except EngineError:
            raise
        except Exception as exc:
            raise InternalError(f"the compiler failed on rollup '{name}': {type(exc).__name__}: {exc}") from exc
        return tree.sql(dialect=target.name, pretty=True, copy=False)

    def rollup_build_routed(self, name: str, sources: Mapping[str, str | None], since: str | None = None) -> Compiled:
        """A rollup's build query answered from other rollups where provably the same (a monthly one from a daily one:
        rollups of rollups); `sources`: the rollups the store holds now (name -> None when usable). `store` says where
        it runs: on the rollup store (DuckDB) or, from the facts, on the warehouse (the layer's dialect)."""
        from .rollups.build import build_query, build_smq
        from .rollups.route import route

        rollup = self.rollup(name)
        target = self._dialect(None)
        others = tuple(r for r in self.rollups if r.name != name)
        try:
            resolved = QueryResolver(self.semantic, self.graph, Resolver(self.semantic), target).resolve(
                parse_smq(build_smq(rollup, since)))
            query = build_query(resolved, rollup)
            routed = route(query, others, dict(sources), None, all_or_none=self.rollups_embedded)
            if routed.used and self.rollups_embedded:
                target = dialect_of(EMBEDDED_DIALECT)
            layer = self._routed_layer if routed.used else self.semantic
            tree = target.finish(QueryRenderer(layer, target, lambda m: m.source).render(plan_query(routed.query, layer)))
        except EngineError:
            raise
        except Exception as exc:
            raise InternalError(f"the compiler failed on rollup '{name}': {type(exc).__name__}: {exc}") from exc
        store = "rollups" if routed.used and self.rollups_embedded else "warehouse"
        return Compiled(tree, target.name, store, routed.used, tuple(routed.decisions))

    def rollup_usable(self) -> dict[str, str | None]:
        """Rollup name -> None when it may answer now, else why not (not built, stale past its allowance)."""
        from .rollups.bind import usable

        with self._lock:
            states = dict(self._rollup_states)
        return usable(self.rollups, states, time.time())

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

    @property
    def saved_queries(self) -> Mapping[str, Any]:
        """name -> SavedQuery (saved_queries.yml; engine/layer/saved.py)."""
        return self.semantic.saved_queries

    def saved_query_list(self, role: str | None = None) -> list[dict[str, Any]]:
        """The saved queries as listings show them (name, label, description, the SMQ each stands for): those the
        role may run, as for any SMQ (one naming a hidden element is not listed to it)."""
        out = []
        for q in self.semantic.saved_queries.values():
            if role is not None:
                try:
                    self.compile({"saved_query": q.name}, role=role)
                except EngineError:
                    continue
            out.append({"name": q.name, "label": q.label or q.name, "description": q.description, "query": dict(q.query)})
        return out

    def parse(self, smq: Mapping[str, Any] | str | SMQ) -> SMQ:
        """An SMQ body checked for shape, a `{"saved_query": NAME}` body first expanded to the SMQ it names."""
        return parse_smq(expand_saved_query(smq, self.semantic.saved_queries))

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
                *, pretty: bool = True, use_cache: bool = True, shown: bool = False, rollups: bool = True) -> str:
        """SMQ -> SQL text in the layer's dialect (or `dialect`); raises QueryError for a bad query. `shown`: the SQL as
        it is shown to the role (its row filters' values named, not spelled out), not as it is run. `rollups`: answer
        from rollups stored in the warehouse where provably the same (embedded ones: `compile_routed`)."""
        spec = self.parse(smq)
        target = self._dialect(dialect)
        mode = self._mode(rollups, embedded_ok=False)
        key = None
        if use_cache:  # the key (the SMQ's canonical JSON) only for the cache: an uncached compile makes none
            key = (spec.canonical(), target.name, role, pretty, shown, mode)
            hit = self._cache.get(key)
            if hit is not None:
                return hit
        # the tree is this call's own (every layer node it holds is a copy): generate it in place, without
        # the deep copy sqlglot makes by default (a sixth of an uncached compile)
        tree = self._compile_tree(spec, target, role, shown, mode)
        sql = tree.sql(dialect=target.sqlglot, pretty=pretty, copy=False)
        release(tree)  # only the text leaves this call: freed now, not by the cyclic collector
        if key is not None:
            self._cache.put(key, sql)
        return sql

    def compile_expression(self, smq: Mapping[str, Any] | str | SMQ, dialect: str | None = None, role: str | None = None,
                           *, shown: bool = False, rollups: bool = True) -> exp.Query:
        """The compiled query as a sqlglot tree (for callers that rewrite or inspect it); it runs on the warehouse."""
        return self._compile_tree(self.parse(smq), self._dialect(dialect), role, shown, self._mode(rollups, embedded_ok=False))

    def compile_routed(self, smq: Mapping[str, Any] | str | SMQ, role: str | None = None, *, shown: bool = False,
                       rollups: bool = True) -> Compiled:
        """The query in the layer's dialect, or answered from the embedded rollup file (DuckDB's dialect) when every
        aggregation can be: the caller runs it where `store` says (smq_db/rollups.py does)."""
        spec, target = self.parse(smq), self._dialect(None)
        _, routed, _, tree, used, parts = self._stages(spec, target, role, shown, self._mode(rollups, embedded_ok=True))
        answered = routed.used if routed is not None else ()
        store = "mixed" if parts else \
            "rollups" if used.name != target.name or (answered and self.rollups_embedded) else "warehouse"
        return Compiled(tree, used.name, store, answered, tuple(routed.decisions) if routed is not None else (), parts)

    def explain(self, smq: Mapping[str, Any] | str | SMQ, dialect: str | None = None, role: str | None = None,
                *, rollups: bool = True) -> dict[str, Any]:
        """What each stage made of a query, as data: the resolved query, the plan, the SQL (engine/explain.py), and per
        aggregation the rollup that answers it or why none does."""
        spec, target = self.parse(smq), self._dialect(dialect)
        mode = self._mode(rollups, embedded_ok=dialect is None)
        from .explain import plan_data, resolved_data

        resolved, routed, plan, tree, used, parts = self._stages(spec, target, role, True, mode)
        if not rollups:
            decisions = [{"model": a.model, "rollup": None, "why": "rollups are off for this query"} for a in resolved.aggregations]
        elif mode == "off":
            decisions = [{"model": a.model, "rollup": None, "why": "no rollups declared" if not self.rollups else
                          "the rollups are in the embedded store; this SQL is for the warehouse"} for a in resolved.aggregations]
        else:
            decisions = [d.as_dict() for d in routed.decisions] if routed is not None else []
        return {"database": self.name, "dialect": used.name, "role": role, "smq": spec.as_dict(),
                "resolved": resolved_data(resolved, target.name), "plan": plan_data(plan), "rollups": decisions,
                **({"rollup_parts": [{"rollup": p.rollup, "table": p.table, "sql": p.sql} for p in parts]} if parts else {}),
                "sql": tree.sql(dialect=used.sqlglot, pretty=True, copy=False)}

    def _mode(self, rollups: bool, *, embedded_ok: bool) -> str:
        if not rollups or not self.rollups or (self.rollups_embedded and not embedded_ok):
            return "off"
        return "embedded" if self.rollups_embedded else "warehouse"

    def _compile_tree(self, spec: SMQ, target: Dialect, role: str | None, shown: bool = False, mode: str = "off") -> exp.Query:
        return self._stages(spec, target, role, shown, mode)[3]

    def _role_rows(self, role: str | None, dialect: str, shown: bool = False) -> RoleRows | None:
        """The role's row filters for routing; `shown`: as the role is shown them (values named), since a rollup
        applies them as WHERE conditions of its own and the SQL shown must not spell them out."""
        found = self.role(role)
        if found is None or not found.row_filters:
            return None
        from .access.roles import _n_to_one_paths, _named_values, row_filters
        from .rollups.route import RoleFilter, RoleRows

        restricted = frozenset(self.restricted_sources(role, dialect))
        named = shown and not found.show_filters
        filters = tuple(RoleFilter(f.text, f.model, _named_values(f.node.copy(), found.name, i) if named else f.node, f.refs)
                        for i, f in enumerate(row_filters(self.semantic, found)))
        return RoleRows(restricted, filters, lambda a, b: _n_to_one_paths(self.graph, a, b))

    def _stages(self, spec: SMQ, target: Dialect, role: str | None, shown: bool = False,
                mode: str = "off") -> tuple[ResolvedQuery, Routed | None, Node, exp.Query, Dialect, tuple[Part, ...]]:
        """resolve -> route to rollups -> plan -> render, each stage's result (no routing when `mode` is off: None), the
        dialect rendered in, and the parts a mixed query runs on the embedded store first (engine/rollups/mix.py)."""
        seen = self.visibility(role)
        try:
            names = Resolver(self.semantic, seen.hidden, seen.hidden_entities)
            resolved = QueryResolver(self.semantic, self.graph, names, target).resolve(spec)
            routed = self._route(resolved, target, role, shown, mode) if mode != "off" else None
            used, mixed = (routed.used, routed.mixed) if routed is not None else ((), False)
            layer = self._routed_layer if used else self.semantic
            given = {}
            if routed is not None and mixed:
                from .rollups.mix import part_table

                given = {d.aggregation: part_table(d.aggregation) for d in routed.decisions if d.rollup}
            if used and mode == "embedded" and not mixed:
                target = dialect_of(EMBEDDED_DIALECT)
            plan = plan_query(routed.query if routed is not None else resolved, layer, given)
            on_store = bool(used) and mode == "embedded" and not mixed
            sources = self.restricted_sources(role, target.name, shown=shown) if not on_store else {}
            renderer = QueryRenderer(layer, target, lambda m: sources.get(m.name, m.source))
            tree = target.finish(renderer.render(plan))
            return resolved, routed, plan, tree, target, self._parts(routed, layer, given)
        except EngineError:
            raise
        except Exception as exc:  # a bug: never leak a traceback to the user as their fault
            raise InternalError(f"the compiler failed on a valid-looking query: {type(exc).__name__}: {exc}") from exc

    def _route(self, resolved: ResolvedQuery, target: Dialect, role: str | None, shown: bool, mode: str) -> Routed:
        """The resolved query with the aggregations rollups answer reading them (engine/rollups/route.py)."""
        from .rollups.mix import mix_refusal
        from .rollups.route import route

        with self._lock:
            rows = {name: state.rows for name, state in self._rollup_states.items()}
        warehouse = target.name
        return route(resolved, self.rollups, self.rollup_usable(), self._role_rows(role, target.name, shown),
                     all_or_none=mode == "embedded", mixable=lambda name: mix_refusal(warehouse, name, rows.get(name)))

    def _parts(self, routed: Routed | None, layer: SemanticLayer, given: Mapping[str, str]) -> tuple[Part, ...]:
        """A mixed query's rollup-answered aggregations, each as its own query on the embedded store (role filters are
        in the aggregation's WHERE already: route.py put them there)."""
        if not given or routed is None:
            return ()
        from .rollups.mix import Part, part_select

        store = dialect_of(EMBEDDED_DIALECT)
        renderer = QueryRenderer(layer, store, lambda m: m.source)
        rollup_of = {d.aggregation: d.rollup for d in routed.decisions if d.rollup}
        out = []
        for agg in routed.query.aggregations:
            if agg.id not in given:
                continue
            columns = tuple([f"g{i}" for i in range(len(agg.keys))] + [c.id for c in agg.columns])
            query = part_select(columns, agg.id)
            for name, cte in renderer.ctes(leaf(agg)):
                query = query.with_(ident(name), as_=cte, copy=False)
            out.append(Part(given[agg.id], str(rollup_of[agg.id]), store.finish(query), columns))
        return tuple(out)

    def restricted_sources(self, role: str | None, dialect: str | None = None, *, shown: bool = False) -> dict[str, exp.Expression]:
        """Model name -> filtered subquery for a role's row filters (empty without filters), fenced for `dialect`;
        `shown`: as the role is shown them (its filters' values named, engine/access/roles.py)."""
        if role is None:
            return {}
        target = (dialect or self.dialect).lower()
        with self._lock:
            cached = self._sources.get((role, target, shown))
        if cached is None:
            from .access.roles import restricted_sources

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
        found = _DIALECTS.get(target)
        if found is None:  # asked by every compile: a dict hit, not the engine's lookup by name
            found = _DIALECTS[target] = dialect_of(target)
        return found

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
                    {"name": d.qualified_name, "type": d.type, "description": d.description, **_shown(d),
                     **({"grains": ["day", "week", "month", "quarter", "year"]} if d.is_time else {}),
                     **({"mf_name": mf_name} if mf is not None and (mf_name := mf.mf_name(d)) else {})}
                    for d in model.dimensions.values() if d.qualified_name not in hidden
                ],
                "measures": [
                    {"name": m.qualified_name, "agg": m.agg, "description": m.description, **_shown(m),
                     **self._format_entry(m.qualified_name)}
                    for m in model.measures.values() if m.qualified_name not in hidden
                ],
                "metrics": [
                    {"name": self.semantic.metrics[n].name, "type": self.semantic.metrics[n].type,
                     "description": self.semantic.metrics[n].description, **_shown(self.semantic.metrics[n]),
                     **self._format_entry(n)}
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

    def __contains__(self, name: object) -> bool:
        """A valid database (Mapping's default asks __getitem__, which raises QueryError for a broken one)."""
        return name in self._layers

    def __iter__(self) -> Iterator[str]:
        return iter(self._layers)

    def __len__(self) -> int:
        return len(self._layers)


def _shown(element: Any) -> dict[str, Any]:
    """An element's label and meta in listings, when it has them."""
    return {**({"label": element.label} if element.label else {}), **({"meta": dict(element.meta)} if element.meta else {})}


def database_dirs(root: Path) -> list[Path]:
    """Sub-folders holding a database.yml (or looking like a layer)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
                  and ((p / "database.yml").exists() or (p / "database.yaml").exists() or (p / "models").is_dir()))


def load_layer(directory: str | Path) -> Layer:
    """One database folder; raises LayerValidationError with every problem of it."""
    with long_lived():  # bulk creation of long-lived objects, out of the collector's way (engine/layer/longlived.py)
        return Layer(build_layer(Path(directory), (check_layer_filters, check_saved_queries, check_rollups)))


def _bound_rollups(semantic: SemanticLayer, graph: JoinGraph) -> tuple[BoundRollup, ...]:
    """The layer's rollups bound to its elements; engine/rollups is imported only for a layer that declares some."""
    if semantic.rollups is None:
        return ()
    from .rollups.bind import bind_rollups

    return bind_rollups(semantic, graph)[0]


def check_rollups(semantic: SemanticLayer) -> list[LayerError]:
    """The loader's check that every rollup binds to the layer (engine/rollups/bind.py), for a layer with rollups."""
    if semantic.rollups is None:
        return []
    from .rollups.bind import check_rollups as check

    return check(semantic)


def check_saved_queries(semantic: SemanticLayer) -> list[LayerError]:
    """Each saved query compiles as the SMQ it is (reported at its line in saved_queries.yml)."""
    if not semantic.saved_queries:
        return []
    layer, out = Layer(semantic), []
    for saved in semantic.saved_queries.values():
        try:
            layer.compile({"saved_query": saved.name}, use_cache=False)
        except EngineError as err:
            out.append(LayerError(f"{saved.location.field}: saved query '{saved.name}': {err.message}", location=saved.location,
                                  code="invalid_saved_query", suggestions=tuple(err.suggestions)))
    return out


def load_layers(models_dir: str | Path | None = None) -> Layers:
    """Every database under `models_dir`; one broken database never stops the others."""
    root = Path(models_dir) if models_dir is not None else default_models_dir()
    if not root.is_dir():
        raise LayerValidationError(str(root), [LayerError(
            "models folder not found (set --models-dir or SMQ_MODELS_DIR)", code="missing_file",
            location=Location(display_path(root), 1, 1))])
    with long_lived():  # one decision to freeze for every database, not one per database
        return _load_layers(root)


def _load_layers(root: Path) -> Layers:
    """`load_layers` once its folder is known to exist."""
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
