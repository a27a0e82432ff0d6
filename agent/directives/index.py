"""A hybrid index per database: which models a question needs (relevant) and which it does not.

Each model is a document with fields: its names (model, table, split into words), its elements'
names, its descriptions, and known values (from descriptions, or sampled from the database when
an executor is given). Each field is a BM25 index (`bm25s`); their scores, each scaled by the
field's best score for the question, are summed with weights. Optionally an embedding index
(`embeddings.py`) ranks models by meaning, fused with the lexical ranking by reciprocal rank
fusion. The top models are relevant, and so is any model that bridges two of them in the join
graph (`graph.py`); the rest are irrelevant.

Built once per layer version and role (`index_for` caches it), then a question costs a few BM25
look-ups: fast enough to run on every request.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from engine import Layer
from engine.lru import LruCache

from .graph import adjacency, shortest_path
from .terms import implied_terms, quoted_values, split_identifier, stem, terms, words as words_of

if TYPE_CHECKING:
    from smq_db.executors import Executor

FIELDS = ("names", "elements", "descriptions", "values")


@dataclass(frozen=True)
class DirectiveConfig:
    """How the fused ranking becomes relevant/irrelevant (tuned on Spider 1.0 dev, see docs/directives.md)."""

    field_weights: Mapping[str, float] = field(default_factory=lambda: {
        "names": 1.0, "elements": 1.0, "descriptions": 0.5, "values": 0.5, "embedding": 1.0})
    rrf_k: float = 10.0  # reciprocal rank fusion of the lexical and the embedding rankings
    budget: float = 0.5  # at most this share of the models is relevant, in databases with >= min_models models
    min_models: int = 6  # smaller databases: no budget, only the threshold below
    relative_threshold: float = 0.1  # a model is a seed when its fused score is >= this share of the best
    bridge_hops: int = 2  # join paths of at most this many edges between relevant models are walked
    unbridged: bool = True  # a candidate whose bridge does not fit is still taken alone


@dataclass(frozen=True)
class Directive:
    model: str
    relevant: bool
    reason: str
    score: float


@dataclass(frozen=True)
class Directives:
    """The verdict for one question: every model, relevant ones first (best first)."""

    items: tuple[Directive, ...]
    terms: tuple[str, ...]
    elapsed_ms: float

    @property
    def relevant(self) -> list[str]:
        return [d.model for d in self.items if d.relevant]

    @property
    def irrelevant(self) -> list[str]:
        return [d.model for d in self.items if not d.relevant]

    def to_json(self) -> dict[str, list[str]]:
        return {"relevant": self.relevant, "irrelevant": self.irrelevant}

    def by_model(self) -> dict[str, Directive]:
        return {d.model: d for d in self.items}


class _Field:
    """One BM25 index over one field of every model (models with an empty field never match it)."""

    def __init__(self, docs: Sequence[list[str]]) -> None:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every build at DEBUG
        self.vocab = {t for doc in docs for t in doc}
        self.empty = not self.vocab
        if not self.empty:
            self.bm25 = bm25s.BM25(k1=1.2, b=0.5)
            self.bm25.index([doc or ["\x00"] for doc in docs], show_progress=False)
        self.n = len(docs)

    def scores(self, query: list[str]) -> np.ndarray:
        known = [t for t in query if t in self.vocab]
        if self.empty or not known:
            return np.zeros(self.n, dtype=np.float32)
        return np.asarray(self.bm25.get_scores(known), dtype=np.float32)


def _rrf(scores: np.ndarray, weight: float, k: float) -> np.ndarray:
    """Weighted reciprocal-rank contribution of one ranking; models scoring 0 get nothing."""
    out = np.zeros_like(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    rank = 0
    previous = None
    for position, i in enumerate(order):
        if scores[i] <= 0:
            break
        if previous is None or scores[i] < previous:
            rank = position + 1  # ties share a rank
            previous = scores[i]
        out[i] = weight / (k + rank)
    return out


class DirectiveIndex:
    """The index of one layer as one role sees it (hidden elements are not indexed: no leaks via reasons)."""

    def __init__(self, layer: Layer, *, role: str | None = None, values: Mapping[str, Iterable[str]] | None = None,
                 embedder: Any = None, config: DirectiveConfig | None = None) -> None:
        started = time.perf_counter()
        self.layer = layer
        self.role = role
        self.config = config or DirectiveConfig()
        role_obj = layer.role(role)
        hidden = layer.visibility(role_obj.name if role_obj else None).hidden
        self.models = list(layer.models)
        self.adj = adjacency(layer)
        docs: dict[str, list[list[str]]] = {f: [] for f in FIELDS}
        self.texts: list[str] = []
        self.name_words: list[set[str]] = []
        self.vocab: list[set[str]] = []
        for name in self.models:
            model = layer.models[name]
            table = getattr(model.source, "name", "") if model.table else ""
            names = terms(" ".join([name.removesuffix("Model"), table]), keep_stop_words=True)
            elements: list[str] = []
            descriptions: list[str] = terms(model.description)
            value_text: list[str] = []
            for d in model.dimensions.values():
                if d.qualified_name in hidden:
                    continue
                elements += terms(d.name, keep_stop_words=True) + terms(_expr_words(d.expr), keep_stop_words=True)
                descriptions += terms(d.description)
                value_text += quoted_values(d.description)
            for m in model.measures.values():
                if m.qualified_name not in hidden:
                    elements += terms(m.name, keep_stop_words=True)
                    descriptions += terms(m.description)
            for metric in model.metric_names:
                if metric not in hidden and metric in layer.semantic.metrics:
                    elements += terms(metric, keep_stop_words=True)
                    descriptions += terms(layer.semantic.metrics[metric].description)
            value_text += list((values or {}).get(name, ()))
            docs["names"].append(names)
            docs["elements"].append(elements)
            docs["descriptions"].append(descriptions)
            docs["values"].append([t for v in value_text for t in terms(v, keep_stop_words=True)])
            self.name_words.append(set(names))
            self.vocab.append(set(names) | set(elements) | set(descriptions) | set(docs["values"][-1]))
            self.texts.append(f"{' '.join(split_identifier(name.removesuffix('Model')))}: {model.description} "
                              f"Columns: {', '.join(' '.join(split_identifier(d)) for d in model.dimensions)}")
        self.fields = {f: _Field(docs[f]) for f in FIELDS}
        self.embedder = embedder
        self.vectors = embedder.embed(self.texts) if embedder is not None else None
        self.build_ms = round((time.perf_counter() - started) * 1000, 2)

    # -- ranking ------------------------------------------------------------------------------
    def rank(self, question: str, extra_terms: Sequence[str] = ()) -> tuple[np.ndarray, dict[str, np.ndarray], list[str]]:
        """Fused scores per model, each field's raw scores, and the query terms used.

        The lexical score is a weighted sum of the fields' BM25 scores, each divided by its best score
        for this question (fields have different scales; a rank alone would give a weak generic match,
        such as `id`, as much credit as a strong one). With an embedder, the lexical and the embedding
        rankings are fused by reciprocal rank fusion.
        """
        query = terms(question) + implied_terms(question) + list(extra_terms)
        query += [stem(w) for v in quoted_values(question) for w in split_identifier(v)]
        cfg = self.config
        per_field = {f: index.scores(query) for f, index in self.fields.items()}
        lexical = np.zeros(len(self.models), dtype=np.float64)
        for f, scores in per_field.items():
            top = float(scores.max()) if len(scores) else 0.0
            if top > 0:
                lexical += cfg.field_weights.get(f, 0.0) * scores / top
        if self.vectors is None:
            return lexical, per_field, query
        sims = self.vectors @ self.embedder.embed([question])[0]
        per_field["embedding"] = sims
        fused = _rrf(lexical, 1.0, cfg.rrf_k) + _rrf(np.maximum(sims, 1e-6), cfg.field_weights.get("embedding", 1.0), cfg.rrf_k)
        return fused, per_field, query

    def directives(self, question: str, extra_terms: Sequence[str] = ()) -> Directives:
        """Relevant and irrelevant models for a question, each with a short reason."""
        started = time.perf_counter()
        fused, per_field, query = self.rank(question, extra_terms)
        cfg = self.config
        n = len(self.models)
        cap = max(1, math.floor(n * cfg.budget)) if n >= cfg.min_models else n
        order = [int(i) for i in np.argsort(-fused, kind="stable")]
        best = float(fused[order[0]]) if n else 0.0
        candidates = [i for i in order if best > 0 and fused[i] >= cfg.relative_threshold * best]
        if not candidates and n:
            candidates = order[:1] if n >= cfg.min_models else list(range(n))
        relevant, links = self._select([self.models[i] for i in candidates], cap)
        reasons = self._reasons(question, query, per_field, relevant, links)
        index = {m: i for i, m in enumerate(self.models)}
        items = [Directive(m, True, reasons[m], round(float(fused[index[m]]), 6)) for m in relevant]
        items += [Directive(self.models[i], False, reasons[self.models[i]], round(float(fused[i]), 6))
                  for i in order if self.models[i] not in relevant]
        return Directives(tuple(items), tuple(dict.fromkeys(query)), round((time.perf_counter() - started) * 1000, 3))

    def _select(self, candidates: list[str], cap: int) -> tuple[list[str], dict[str, tuple[str, str]]]:
        """Greedy, best first: each candidate comes with the bridge that joins it to those already chosen.

        A candidate not adjacent to any chosen model brings the models on its shortest join path (at
        most `bridge_hops` edges) to the nearest chosen one. When both do not fit in the budget, the
        candidate is still taken alone (`unbridged`), since a strong match is worth more than its bridge.
        """
        relevant: list[str] = []
        links: dict[str, tuple[str, str]] = {}
        for model in candidates:
            if model in relevant:
                continue
            if len(relevant) >= cap:
                break
            need = [model]
            if relevant and not any(r in self.adj.get(model, ()) for r in relevant):
                path = self._nearest_path(model, relevant)
                if path is not None:
                    middle = [m for m in path[1:-1] if m not in relevant]
                    for m in middle:
                        links.setdefault(m, (model, path[-1]))
                    need = [model] + middle
            if len(relevant) + len(need) <= cap:
                relevant += need
            elif len(need) > 1 and len(relevant) + 1 <= cap and self.config.unbridged:
                relevant.append(model)
        return relevant, links

    def _nearest_path(self, model: str, chosen: list[str]) -> list[str] | None:
        paths = [p for c in chosen if (p := shortest_path(self.adj, model, c, self.config.bridge_hops)) is not None]
        return min(paths, key=len) if paths else None

    def _reasons(self, question: str, query: list[str], per_field: Mapping[str, np.ndarray], relevant: list[str],
                 links: Mapping[str, tuple[str, str]]) -> dict[str, str]:
        """A short reason per model: the question's words it matches and where, or the pair it joins."""
        shown = {stem(w): w for w in reversed(words_of(question))}  # stem -> the word as the question wrote it
        qset = set(query)
        out: dict[str, str] = {}
        for i, name in enumerate(self.models):
            hits = [f for f in FIELDS if per_field[f][i] > 0]
            matched = [shown.get(t, t) for t in sorted(qset & self.vocab[i])][:5]
            words = f" ({', '.join(matched)})" if matched else ""
            if name in links and name in relevant and "names" not in hits:
                a, b = links[name]
                out[name] = f"joins {a} and {b}"
            elif hits and name in relevant:
                out[name] = f"matches the question's terms{words} in its {', '.join(hits)}"
            elif name in relevant:
                out[name] = "close in meaning to the question" if "embedding" in per_field else "best available match"
            elif hits:
                out[name] = f"weaker match{words}, below the cut"
            else:
                out[name] = "no term of the question matches it"
        return out


def _expr_words(expr: str) -> str:
    """The column names inside a dimension's SQL expression (`TRIM(customer_ref)` -> customer_ref)."""
    import re

    return " ".join(w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expr or "")
                    if w.upper() not in {"CAST", "AS", "TRIM", "UPPER", "LOWER", "CASE", "WHEN", "THEN", "ELSE", "END",
                                         "NULL", "AND", "OR", "NOT", "COALESCE", "DATE", "VARCHAR", "INTEGER"})


# -- the cache: one index per (database, layer version, role, values, embedder) ---------------------------
_CACHE: LruCache[tuple, DirectiveIndex] = LruCache(64)


def index_for(layer: Layer, role: str | None = None, *, executor: Executor | None = None, embedder: Any = None,
              config: DirectiveConfig | None = None) -> DirectiveIndex:
    """The index of a layer version for a role, built on first use and cached (LRU).

    With an executor, known values are sampled from the database (as the role sees it) once per
    layer version: a question naming 'France' then finds the model whose column holds it.
    """
    key = (layer.name, layer.version, role, executor is not None, getattr(embedder, "name", None), repr(config))
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    values = None
    if executor is not None:
        from .values import sample_values

        values = sample_values(layer, executor, role)
    built = DirectiveIndex(layer, role=role, values=values, embedder=embedder, config=config)
    _CACHE.put(key, built)
    return built


def clear_cache() -> None:
    _CACHE.clear()
