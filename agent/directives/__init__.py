"""Directives: which models of a layer a question needs (relevant) and which it does not (irrelevant).

    from agent.directives import directives_for
    verdict = directives_for(layer, "How many orders per country?")
    verdict.to_json()  # {"relevant": ["OrdersModel", "CustomersModel", "NationsModel"], "irrelevant": [...]}

A hybrid index (index.py: BM25 over names, elements, descriptions and known values, optional
embeddings, reciprocal rank fusion) plus the join graph (graph.py: a model that bridges two
relevant ones is relevant). With a language model, the question's terms are extended by the
column names it infers (terms.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import Layer

from .index import Directive, DirectiveConfig, DirectiveIndex, Directives, clear_cache, index_for
from .terms import inferred_terms, split_identifier, terms

if TYPE_CHECKING:
    from smq_db.executors import Executor

__all__ = ["Directive", "DirectiveConfig", "DirectiveIndex", "Directives", "clear_cache", "directives_for", "index_for",
           "inferred_terms", "split_identifier", "terms"]


def directives_for(layer: Layer, question: str, *, role: str | None = None, executor: Executor | None = None, provider: Any = None,
                   embedder: Any = None, config: DirectiveConfig | None = None) -> Directives:
    """The directives for one question: cached index, question terms, and (with `provider`) inferred columns.

    `embedder` defaults to $SMQ_EMBEDDINGS (embeddings.py); unset, the index is BM25 and the join graph only.
    """
    if embedder is None:
        from .embeddings import load_embedder

        embedder = load_embedder()
    index = index_for(layer, role, executor=executor, embedder=embedder, config=config)
    extra: list[str] = []
    if provider is not None:
        extra = inferred_terms(question, provider, table_names=[str(getattr(m.source, "name", m.name))
                                                                for m in layer.models.values()])
    return index.directives(question, extra)
