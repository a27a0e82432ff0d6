"""`smq import dbt`: read MetricFlow definitions, map them, merge with hand edits, validate, write.

As with `smq init`, nothing is written unless the layer validates, and a re-import merges field by field
with what is on disk (hand edits are kept; the snapshot of the last import is `.smq/scaffold.json`).
A construct that cannot be mapped stops the import (nothing written) unless `partial` is set, in which
case everything else is written and the refusals are still reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine import Layer, load_layer
from engine.dialects import DEFAULT_ENGINE, SUPPORTED_DIALECTS
from engine.errors import EngineError, LayerError, Location
from engine.layer.load import display_path

from ..init import NAME_RULE, MergeError, ScaffoldError, validate_doc
from ..layerdoc import SNAPSHOT, read_layer_doc, read_snapshot, render_files, write_files
from ..merge import merge_layers
from .convert import Converted, Refusal, convert
from .source import read_dbt

SAVED_QUERIES_FILE = "saved_queries.yml"


class ImportRefused(ScaffoldError):
    """Some constructs cannot be mapped; nothing was written (use partial to write the rest)."""


@dataclass
class ImportResult:
    layer_dir: Path
    db_name: str = ""
    layer: Layer | None = None
    refusals: list[Refusal] = field(default_factory=list)
    notes: list[Refusal] = field(default_factory=list)  # keys not imported that change no answer (report.py)
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    models: int = 0
    metrics: int = 0
    joins: int = 0
    saved_queries: int = 0
    origin: str = ""

    def summary(self) -> str:
        tail = f"; {len(self.refusals)} construct(s) left out" if self.refusals else ""
        tail += f"; {len(self.notes)} note(s) on what was not imported" if self.notes else ""
        return (f"{self.db_name}: imported {self.models} model(s), {self.metrics} metric(s), {self.joins} join(s), "
                f"{self.saved_queries} saved quer{'y' if self.saved_queries == 1 else 'ies'} from a {self.origin}{tail}")


def import_dbt(source: Path, db_name: str, layer_dir: Path, *, dialect: str = DEFAULT_ENGINE.value, schema: str | None = None,
               partial: bool = False, display: Callable[[Path], str] = display_path) -> ImportResult:
    """Import the dbt/MetricFlow definitions under `source` as the layer `db_name` in `layer_dir`."""
    if not NAME_RULE.match(db_name) or "__" in db_name:
        raise LayerError(f"invalid database name '{db_name}': use letters, digits and single underscores, starting with a letter",
                         code="bad_arguments")
    if dialect.lower() not in SUPPORTED_DIALECTS:
        raise LayerError(f"unknown dialect '{dialect}' (use {', '.join(sorted(SUPPORTED_DIALECTS))})", code="unknown_dialect")
    sources = read_dbt(Path(source), display)
    if not sources.semantic_models:
        raise LayerError(f"{display(Path(source))}: no semantic_models found in {sources.files} YAML file(s) "
                         "(a dbt project, a folder of MetricFlow YAML, or a semantic_manifest.json)", code="dbt_unreadable")
    converted = convert(sources, db_name, dialect.lower(), schema)
    result = ImportResult(Path(layer_dir), db_name, refusals=converted.refusals, notes=converted.notes, origin=sources.origin,
                          models=len(converted.doc.models), metrics=converted.metrics, joins=len(converted.doc.joins),
                          saved_queries=len(converted.saved_queries))
    layer = validate_doc(converted.doc, ScaffoldError, "the imported layer does not validate (a bug: please report it)")
    _check_saved_queries(converted, sources, layer)
    result.saved_queries = len(converted.saved_queries)
    if converted.refusals and not partial:
        raise ImportRefused(f"{len(converted.refusals)} construct(s) cannot be imported; nothing was written "
                            "(--partial writes the rest)", [r.formatted() for r in converted.refusals])
    _write(converted, result)
    return result


def _check_saved_queries(converted: Converted, sources: Any, layer: Layer) -> None:
    """A saved query the layer cannot answer is refused at its line (the layer refuses to load a broken one)."""
    found = {f.name: f for f in sources.saved_queries}
    kept = []
    for saved in converted.saved_queries:
        try:
            layer.compile(saved["query"], use_cache=False)
        except EngineError as err:
            where = found[saved["name"]].at() if saved["name"] in found else Location()
            converted.refusals.append(Refusal(where, f"saved query '{saved['name']}': {err.message}"))
            continue
        kept.append(saved)
    converted.saved_queries = kept


def _write(converted: Converted, result: ImportResult) -> None:
    layer_dir, doc = result.layer_dir, converted.doc
    current = read_layer_doc(layer_dir)
    if current is None:
        merged = doc
        result.changes = [f"created {len(doc.models)} model(s) and {len(doc.joins)} join(s)"]
    else:
        merged, result.changes, result.kept = merge_layers(read_snapshot(layer_dir), current, doc)
        validate_doc(merged, MergeError, "your edits and the imported definitions do not make a valid layer; nothing was written")
    files = render_files(merged)
    if converted.saved_queries:
        files[SAVED_QUERIES_FILE] = ("# MetricFlow saved queries, as written in dbt (MetricFlow's names)\n"
                                     + yaml.safe_dump({"saved_queries": converted.saved_queries}, sort_keys=False,
                                                      allow_unicode=True))
    result.written = write_files(layer_dir, files)
    (layer_dir / "models").mkdir(parents=True, exist_ok=True)
    if current is not None:
        for entry in current.models.values():
            if entry.file not in files and (layer_dir / entry.file).exists():
                (layer_dir / entry.file).unlink()
    snapshot = layer_dir / SNAPSHOT
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    snapshot.write_text(doc.to_json(), encoding="utf-8")
    result.layer = load_layer(layer_dir)


def saved_queries(layer_dir: Path) -> list[dict[str, Any]]:
    path = Path(layer_dir) / SAVED_QUERIES_FILE
    if not path.exists():
        return []
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("saved_queries") or []
