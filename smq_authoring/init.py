"""`smq init`: introspect, profile, infer joins, scaffold, test, merge with hand edits, validate, write.

Nothing is written unless the resulting layer validates with the engine: the layer is rendered to a
temporary folder and loaded with `load_layer` first. A generated layer that does not validate is a
bug of the scaffolder (ScaffoldError); a merged layer that does not is caused by hand edits
(MergeError), and the files on disk are left as they were.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine import Layer, LayerValidationError, load_layer

from .catalog import Catalog
from .infer import Link, Skipped, infer_links
from .introspect import introspect, open_source
from .layerdoc import SNAPSHOT, LayerDoc, read_layer_doc, read_snapshot, render_files, write_files
from .merge import merge_layers
from .names import tokens
from .profile import profile_tables
from .scaffold import build_layer_doc
from .starter import starter_tests
from .urls import ConnectionSpec, UrlError, parse_url

NAME_RULE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


class ScaffoldError(RuntimeError):
    """The generated layer does not validate: a bug to report, with the engine's errors."""

    def __init__(self, message: str, errors: list[str]) -> None:
        super().__init__(message)
        self.errors = errors


class MergeError(ScaffoldError):
    """Hand edits and the new draft do not make a valid layer together; nothing was written."""


@dataclass
class InitResult:
    layer_dir: Path
    catalog: Catalog
    links: list[Link]
    skipped: list[Skipped]
    layer: Layer
    changes: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # hand edits the merge respected
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    tests_passed: int = 0
    tests_failed: list[str] = field(default_factory=list)
    created: bool = True
    skipped_tables: list[str] = field(default_factory=list)  # catalog names no model can be made of, with the reason


def unusable_name(name: str) -> str | None:
    """Why a catalog name cannot become a model (None: it can): a name is data, never a path or a line of YAML."""
    if any(unicodedata.category(c)[0] in "CZ" and c != " " for c in name):
        return "its name holds a control character or a line break"
    if "/" in name or "\\" in name:
        return "its name holds a path separator (/ or \\)"
    if not tokens(name):
        return "its name has no letter or digit to name a model after"
    return None


def init_layer(url: str, db_name: str, layer_dir: Path, *, sample_rows: int | None = None, read_values: bool = True,
               use_declared_fks: bool = True, write_tests: bool = True, progress: Callable[[str], None] | None = None) -> InitResult:
    """Scaffold (or re-scaffold and merge) the layer of one database into `layer_dir`."""
    if not NAME_RULE.match(db_name) or "__" in db_name:
        raise UrlError(f"invalid database name '{db_name}': use letters, digits and single underscores, starting with a letter")
    spec = parse_url(url)
    say = progress or (lambda _: None)
    layer_dir = Path(layer_dir)
    with open_source(spec) as source:
        say(f"reading the catalog of the {spec.describe()}")
        tables, skipped_tables = [], []
        for table in introspect(source):
            reason = unusable_name(table.name) or (unusable_name(table.schema) if table.schema else None)
            if reason is None:
                tables.append(table)
            else:
                skipped_tables.append(f"{table.name!r}: {reason}")
                say(f"skipped table {table.name!r}: {reason}")
        say(f"profiling {len(tables)} table(s)")
        profile_tables(source, tables, sample_rows=sample_rows, read_values=read_values, progress=progress if len(tables) > 1 else None)
        say("inferring joins")
        links, skipped = infer_links(source, tables, use_declared=use_declared_fks, sample_rows=sample_rows)
        catalog = Catalog(spec.backend, spec.dialect, tables, database=spec.database or str(spec.path), schema=spec.schema)
        doc = build_layer_doc(catalog, links, skipped, db_name=db_name, layer_dir=layer_dir, spec=spec)
        layer = validate_doc(doc, ScaffoldError, "the generated layer does not validate (a bug: please report it)")
        passed = 0
        failed: list[str] = []
        if write_tests:
            say("running the starter tests")
            doc.tests, passed, failed = starter_tests(layer, source.run, db_name)
    result = InitResult(layer_dir, catalog, links, skipped, layer, tests_passed=passed, tests_failed=failed,
                        skipped_tables=skipped_tables)
    write_merged(doc, layer_dir, result)
    return result


def validate_doc(doc: LayerDoc, error: type[ScaffoldError], message: str) -> Layer:
    """Load the layer from a temporary folder; raise `error` with the engine's messages if invalid."""
    with tempfile.TemporaryDirectory(prefix="smq-init-") as tmp:
        folder = Path(tmp) / str(doc.database.get("name") or "layer")
        write_files(folder, render_files(doc), only_changed=False)
        (folder / "models").mkdir(exist_ok=True)
        try:
            return load_layer(folder)
        except LayerValidationError as err:
            errors = [e.formatted().replace(str(folder) + "/", "") for e in err.errors]
            raise error(message, errors) from None


def write_merged(doc: LayerDoc, layer_dir: Path, result: InitResult) -> None:
    """Merge with what is on disk (if anything), validate, then write only what changed."""
    current = read_layer_doc(layer_dir)
    if current is None:
        merged, result.changes = doc, [f"created {len(doc.models)} model(s) and {len(doc.joins)} join(s)"]
        result.created = True
    else:
        merged, result.changes, result.kept = merge_layers(read_snapshot(layer_dir), current, doc)
        result.created = False
        result.layer = validate_doc(merged, MergeError, "your edits and the new draft do not make a valid layer; nothing was written")
    files = render_files(merged)
    result.written = write_files(layer_dir, files)
    (layer_dir / "models").mkdir(parents=True, exist_ok=True)  # a database without tables still has a layer
    if current is not None:
        for entry in current.models.values():
            if entry.file not in files and (layer_dir / entry.file).exists():
                (layer_dir / entry.file).unlink()
                result.removed.append(entry.file)
    snapshot = layer_dir / SNAPSHOT
    snapshot.parent.mkdir(parents=True, exist_ok=True)
    snapshot.write_text(doc.to_json(), encoding="utf-8")
    try:
        result.layer = load_layer(layer_dir)  # the files as written must validate too
    except LayerValidationError as err:
        raise ScaffoldError(f"the layer written to {layer_dir} does not validate", [e.formatted() for e in err.errors]) from None


__all__ = ["ConnectionSpec", "InitResult", "MergeError", "ScaffoldError", "UrlError", "init_layer"]
