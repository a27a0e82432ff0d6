"""Reading what a dbt user has: a dbt project, a plain folder of MetricFlow YAML, or `semantic_manifest.json`.

Each definition comes back as a `Found`: its kind, its body (positioned YAML, or plain JSON), and where it
is written, so every later message can say `file:line`. Nothing here interprets the definitions.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import LayerError, Location
from engine.layer.yamlpos import YMap, YSeq, load_yaml_documents, where

KINDS = {"semantic_model": "semantic_models", "metric": "metrics", "saved_query": "saved_queries"}
PLURALS = {plural: kind for kind, plural in KINDS.items()}
MAX_MANIFEST_BYTES = 64 * 1024 * 1024  # dbt's semantic manifests are kilobytes to a few megabytes
MAX_MANIFEST_DEPTH = 64  # nesting of objects and arrays; a manifest nests about 8 deep (Python's json recurses per level)
SKIPPED_DIRS = {"target", "dbt_packages", "dbt_modules", "logs", ".git", "node_modules", ".venv", "venv"}


class DbtSourceError(LayerError):
    """The input cannot be read as dbt/MetricFlow definitions (missing, unreadable, malformed)."""

    code = "dbt_unreadable"


@dataclass
class Found:
    kind: str  # semantic_model | metric | saved_query
    body: Any  # YMap for YAML, dict for JSON
    file: str  # as shown in messages
    line: int = 1  # JSON: where the definition's "name" is written
    column: int = 1  # JSON: its column, which is what tells definitions apart in a one-line manifest
    positions: JsonPositions | None = None  # JSON: where every value of the file is written

    @property
    def name(self) -> str:
        value = self.body.get("name") if isinstance(self.body, dict) else None
        return str(value) if value is not None else "?"

    def at(self, container: Any = None, key: Any = None, field: str | None = None) -> Location:
        """Where `container[key]` (default: the definition itself) is written."""
        container = self.body if container is None else container
        if isinstance(container, (YMap, YSeq)):
            return where(self.file, container, key, field=field)
        offset = self.positions.offset(container, key) if self.positions is not None else None
        if self.positions is None or offset is None:
            return Location(self.file, self.line, self.column, field)
        line, column = self.positions.line_column(offset)
        return Location(self.file, line, column, field)


@dataclass
class DbtSources:
    semantic_models: list[Found] = field(default_factory=list)
    metrics: list[Found] = field(default_factory=list)
    saved_queries: list[Found] = field(default_factory=list)
    time_spines: list[tuple[dict[str, Any], Location]] = field(default_factory=list)  # (spec, where)
    origin: str = ""  # what was read: "dbt project", "YAML folder", "semantic manifest"
    files: int = 0

    def add(self, found: Found) -> None:
        getattr(self, KINDS[found.kind]).append(found)


def read_dbt(path: Path, display: Any = str) -> DbtSources:
    """Every semantic model, metric, saved query and time spine under `path` (see the module doc)."""
    if not path.exists():
        raise DbtSourceError("no such file or folder (give a dbt project, a folder of MetricFlow YAML "
                             "or a semantic_manifest.json)", location=Location(str(path), 1, 1))
    if path.is_file():
        if path.suffix == ".json":
            return _read_manifest(path, display(path))
        sources = DbtSources(origin="YAML file")
        _read_yaml_file(path, display(path), sources)
        return sources
    if (path / "dbt_project.yml").exists():
        return _read_project(path, display)
    manifest = path / "semantic_manifest.json"
    if manifest.exists() and not any(_yaml_files(path)):
        return _read_manifest(manifest, display(manifest))
    sources = DbtSources(origin="YAML folder")
    for file in _yaml_files(path):
        _read_yaml_file(file, display(file), sources)
    return sources


def _yaml_files(folder: Path) -> list[Path]:
    out = []
    for file in sorted(folder.rglob("*")):
        if file.suffix in (".yml", ".yaml") and file.is_file() and not (set(file.relative_to(folder).parts[:-1]) & SKIPPED_DIRS):
            out.append(file)
    return out


def _read_project(folder: Path, display: Any) -> DbtSources:
    """A dbt project: the YAML under its model paths (dbt_project.yml `model-paths`, default models/)."""
    project_file = folder / "dbt_project.yml"
    project = load_yaml_documents(project_file, display(project_file))
    config = project[0] if project and isinstance(project[0], dict) else {}
    paths = config.get("model-paths") or config.get("source-paths") or ["models"]
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise DbtSourceError("model-paths: expected a list of folders", location=where(display(project_file), config, "model-paths"))
    sources = DbtSources(origin="dbt project")
    for sub in paths:
        base = folder / sub
        for file in _yaml_files(base) if base.is_dir() else []:
            _read_yaml_file(file, display(file), sources)
    for name in ("project_configuration.yaml", "project_configuration.yml"):
        if (folder / name).exists():
            _read_yaml_file(folder / name, display(folder / name), sources)
    if not sources.time_spines:  # MetricFlow's legacy convention: a model metricflow_time_spine with date_day
        for sub in paths:
            legacy = next(iter(sorted((folder / sub).rglob("metricflow_time_spine.sql"))), None) if (folder / sub).is_dir() else None
            if legacy is not None:
                sources.time_spines.append(({"table": "metricflow_time_spine", "column": "date_day", "grain": "day"},
                                            Location(display(legacy), 1, 1)))
                break
    return sources


def _read_yaml_file(file: Path, shown: str, sources: DbtSources) -> None:
    documents = load_yaml_documents(file, shown)
    sources.files += 1
    for doc in documents:
        if not isinstance(doc, YMap):
            continue
        for key, value in doc.items():
            if key in KINDS and isinstance(value, YMap):
                sources.add(Found(key, value, shown))
            elif key in PLURALS and isinstance(value, YSeq):
                for item in value:
                    if isinstance(item, YMap):
                        sources.add(Found(PLURALS[key], item, shown))
            elif key == "project_configuration" and isinstance(value, YMap):
                _time_spines(value, shown, sources)
            elif key == "models" and isinstance(value, YSeq):
                _model_time_spines(value, shown, sources)


def _time_spines(config: Any, shown: str, sources: DbtSources) -> None:
    """MetricFlow's day-grain time spine: `time_spines` (node_relation + primary_column) or the legacy
    `time_spine_table_configurations` (location + column_name + grain)."""
    for item in config.get("time_spines") or []:
        if not isinstance(item, dict):
            continue
        relation = item.get("node_relation") or {}
        column = item.get("primary_column") or {}
        grain = str(column.get("time_granularity") or "").lower()
        table = ".".join(str(p) for p in (relation.get("schema_name"), relation.get("alias")) if p)
        loc = where(shown, config, "time_spines") if isinstance(config, YMap) else Location(shown, 1, 1, "time_spines")
        sources.time_spines.append(({"table": table, "column": column.get("name"), "grain": grain,
                                     "custom": _custom_grains(item)}, loc))
    for item in config.get("time_spine_table_configurations") or []:
        if isinstance(item, dict):
            loc = (where(shown, config, "time_spine_table_configurations") if isinstance(config, YMap)
                   else Location(shown, 1, 1, "time_spine_table_configurations"))
            sources.time_spines.append(({"table": item.get("location"), "column": item.get("column_name"),
                                         "grain": str(item.get("grain") or "").lower()}, loc))


def _custom_grains(spine: Any) -> list[dict[str, str]]:
    """A time spine's `custom_granularities` ({name, column_name}; the column defaults to the name), as the layer's
    database.yml writes them: [{name, column}] (engine/layer/load.py)."""
    out = []
    for grain in (spine.get("custom_granularities") or []) if isinstance(spine, dict) else []:
        if isinstance(grain, dict) and grain.get("name"):
            out.append({"name": str(grain["name"]), "column": str(grain.get("column_name") or grain["name"])})
    return out


def _model_time_spines(models: YSeq, shown: str, sources: DbtSources) -> None:
    """dbt ≥ 1.9 declares the time spine on a model: `time_spine: {standard_granularity_column: date_day}`."""
    for item in models:
        spine = item.get("time_spine") if isinstance(item, YMap) else None
        if isinstance(spine, YMap) and spine.get("standard_granularity_column"):
            column = str(spine["standard_granularity_column"])
            grains = {str(c.get("name")): str(c.get("granularity") or "").lower() for c in item.get("columns") or [] if isinstance(c, dict)}
            sources.time_spines.append(({"table": str(item.get("name")), "column": column, "grain": grains.get(column, "day"),
                                         "custom": _custom_grains(spine)},
                                        where(shown, item, "time_spine")))


def _read_manifest(file: Path, shown: str) -> DbtSources:
    """`semantic_manifest.json` as `dbt parse` writes it; lines found by each definition's name."""
    try:
        size = file.stat().st_size
        if size > MAX_MANIFEST_BYTES:
            raise DbtSourceError(f"the manifest is {size:,} bytes, more than the limit of {MAX_MANIFEST_BYTES:,} "
                                 "(MAX_MANIFEST_BYTES); import the dbt project's YAML folder instead",
                                 location=Location(shown, 1, 1))
        text = file.read_text(encoding="utf-8")
        depth = json_depth(text)
        if depth > MAX_MANIFEST_DEPTH:
            raise DbtSourceError(f"the manifest nests objects and arrays {depth:,} levels deep, more than the limit of "
                                 f"{MAX_MANIFEST_DEPTH} (MAX_MANIFEST_DEPTH); a semantic manifest written by `dbt parse` "
                                 "nests about 8", location=Location(shown, 1, 1))
        data = json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise DbtSourceError(f"cannot read {shown}: {exc}", location=Location(shown, 1, 1)) from None
    except json.JSONDecodeError as exc:
        raise DbtSourceError(f"not valid JSON: {exc.msg}", location=Location(shown, exc.lineno, exc.colno)) from None
    if not isinstance(data, dict) or "semantic_models" not in data:
        raise DbtSourceError("not a semantic manifest: no 'semantic_models' key (write it with `dbt parse`)",
                             location=Location(shown, 1, 1))
    sources = DbtSources(origin="semantic manifest", files=1)
    positions = JsonPositions(text, data)
    for plural, kind in PLURALS.items():
        for item in data.get(plural) or []:
            if isinstance(item, dict):
                body = _manifest_body(kind, item, positions)
                offset = positions.offset(body, "name", at_key=True)
                line, column = positions.line_column(offset if offset is not None else positions.offset(body) or 0)
                sources.add(Found(kind, body, shown, line, column, positions))
    config = data.get("project_configuration")
    if isinstance(config, dict):
        _time_spines(config, shown, sources)
    return sources


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deeply a JSON text nests objects and arrays (brackets inside strings do not count), in C-level passes."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


def _manifest_body(kind: str, item: dict[str, Any], positions: JsonPositions) -> dict[str, Any]:
    """The manifest spells filters as {"where_filters": [{"where_sql_template": ...}]}: back to YAML's strings."""
    if kind == "semantic_model":
        return item
    return _unwrap_filters(item, positions)


def _unwrap_filters(value: Any, positions: JsonPositions) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, inner in value.items():
            if key in ("filter", "where") and isinstance(inner, dict) and "where_filters" in inner:
                out[key] = [f.get("where_sql_template") for f in inner.get("where_filters") or [] if isinstance(f, dict)]
            else:
                out[key] = _unwrap_filters(inner, positions)
        positions.same_place(out, value)
        return out
    if isinstance(value, list):
        items = [_unwrap_filters(v, positions) for v in value]
        positions.same_place(items, value)
        return items
    return value


class JsonPositions:
    """Where each value of a parsed JSON document is written, by (container, key).

    `json` keeps no positions, and `dbt parse` writes the manifest on one line, where a line number alone
    says nothing. This walks the text beside the parsed value with the decoder's own `raw_decode` (each
    member decoded in place, so where it starts is known), instead of searching for names that repeat.
    Containers are held here, so their `id()`s stay theirs.
    """

    def __init__(self, text: str, document: Any) -> None:
        self.text = text
        self._at: dict[tuple[int, Any, bool], int] = {}
        self._held: list[Any] = []
        self._walk(document, _skip(text, 0))

    def offset(self, container: Any, key: Any = None, at_key: bool = False) -> int | None:
        """Where `container[key]` is written (its key with at_key; the container itself without a key)."""
        return self._at.get((id(container), key, at_key))

    def line_column(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset) + 1
        return line, offset - (self.text.rfind("\n", 0, offset) + 1) + 1

    def same_place(self, copy: Any, original: Any) -> None:
        """`copy` (a rewritten container) is written where `original` is."""
        self._held.append(copy)
        keys = original.keys() if isinstance(original, dict) else range(len(original))
        for key in [None, *keys]:
            for at_key in (False, True):
                if (found := self._at.get((id(original), key, at_key))) is not None:
                    self._at[(id(copy), key, at_key)] = found

    def _walk(self, value: Any, at: int) -> None:
        if isinstance(value, dict):
            self._held.append(value)
            self._at[(id(value), None, False)] = at
            for key, key_at, value_at in _members(self.text, at):
                self._at[(id(value), key, True)] = key_at
                self._at[(id(value), key, False)] = value_at
                self._walk(value[key], value_at)
        elif isinstance(value, list):
            self._held.append(value)
            self._at[(id(value), None, False)] = at
            for index, item_at in enumerate(_elements(self.text, at)):
                self._at[(id(value), index, False)] = item_at
                self._walk(value[index], item_at)


def _members(text: str, at: int) -> list[tuple[str, int, int]]:
    """(key, where the key starts, where its value starts) of the JSON object starting at `at`."""
    if text[at:at + 1] != "{":
        return []
    out = []
    at = _skip(text, at + 1)
    while text[at:at + 1] == '"':
        key_at = at
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, _skip(text, at) + 1)  # past the ':'
        out.append((key, key_at, at))
        _, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text[at:at + 1] == ",":
            at = _skip(text, at + 1)
    return out


def _elements(text: str, at: int) -> list[int]:
    """Where each element of the JSON array starting at `at` starts."""
    out = []
    at = _skip(text, at + 1)
    while at < len(text) and text[at] != "]":
        out.append(at)
        _, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text[at:at + 1] == ",":
            at = _skip(text, at + 1)
    return out


_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


__all__ = ["DbtSourceError", "DbtSources", "Found", "read_dbt"]
