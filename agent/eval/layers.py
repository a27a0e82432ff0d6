"""The semantic layer of each benchmark database, loaded once and shared by every worker.

A database NAME's layer is the folder `<models-dir>/NAME` (matched case-insensitively as well:
Spider 2.0-snow names databases in capitals, `GA4`, where a folder is likely `ga4`). Layers load
lazily, only for databases a run touches, and a broken or missing layer fails only the instances
of that database, with the loader's own message.
"""

from __future__ import annotations

import threading
from pathlib import Path

from engine import Layer, load_layer
from engine.errors import LayerValidationError

from .tasks import EvalInputError


class LayerStore:
    def __init__(self, models_dir: Path | None) -> None:
        self.models_dir = models_dir
        self._cache: dict[str, Layer | Exception] = {}
        self._lock = threading.Lock()

    def folder(self, db: str) -> Path | None:
        """The layer folder of a database, or None."""
        if self.models_dir is None:
            return None
        exact = self.models_dir / db
        if (exact / "database.yml").is_file():
            return exact
        lowered = db.lower()
        try:
            for child in sorted(self.models_dir.iterdir()):
                if child.name.lower() == lowered and (child / "database.yml").is_file():
                    return child
        except OSError:
            return None
        return None

    def get(self, db: str) -> Layer:
        """The layer of `db`; raises EvalInputError (no folder) or LayerValidationError (a broken one)."""
        with self._lock:
            cached = self._cache.get(db)
            if cached is None:
                cached = self._load(db)
                self._cache[db] = cached
        if isinstance(cached, Exception):
            raise cached
        return cached

    def find(self, db: str) -> Layer | None:
        """The layer of `db` if it exists and loads, else None (oracle runs do not need one)."""
        try:
            return self.get(db)
        except (EvalInputError, LayerValidationError):
            return None

    def _load(self, db: str) -> Layer | Exception:
        folder = self.folder(db)
        if folder is None:
            where = f"{self.models_dir}/{db}" if self.models_dir is not None else f"<models-dir>/{db}"
            return EvalInputError(f"no semantic layer for database '{db}': expected the folder {where} "
                                  "(the agent explores a database only through its layer; see docs/evaluation.md)")
        try:
            return load_layer(folder)
        except LayerValidationError as err:
            return err
