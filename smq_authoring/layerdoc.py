"""A layer folder as plain data, read from and written to YAML; what scaffolding and merging work on.

Models are keyed by identity (their physical table, case-insensitively; derived models by name) so
that a model renamed by hand is still recognised on the next `smq init`. Writing keeps our key
order and the comments scaffolding attaches (a join's evidence and confidence); files whose
content did not change are not rewritten, so hand comments in them survive.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.errors import LayerError
from engine.layer.yamlpos import YMap, YSeq, load_yaml

SNAPSHOT = Path(".smq") / "scaffold.json"  # the last generated layer, for three-way merges
TESTS_FILE = Path("tests") / "generated.yml"
MODEL_KEYS = ("name", "description", "table", "sql", "primary_key", "default_time_dimension", "primary_entity", "entities",
              "dimensions", "measures",
              "metrics")
ELEMENT_KEYS = ("name", "type", "agg", "description", "label", "expr", "measure", "filters", "numerator", "denominator",
                "time_dimension", "window", "grain_to_date", "period_agg", "periods", "time_grain", "percentile", "use_discrete_percentile",
                "use_approximate_percentile", "non_additive_dimension", "fill_nulls_with", "join_to_timespine")
JOIN_KEYS = ("from", "to", "key", "relationship", "type", "preferred", "description", "on")


@dataclass
class ModelEntry:
    file: str  # relative to the layer folder: models/orders.yml
    body: dict[str, Any]
    header: list[str] = field(default_factory=list)  # comment lines written above the model


@dataclass
class LayerDoc:
    database: dict[str, Any]
    models: dict[str, ModelEntry]  # identity -> entry
    joins: list[dict[str, Any]] = field(default_factory=list)
    join_notes: dict[str, list[str]] = field(default_factory=dict)  # join identity -> comment lines
    trailer: list[str] = field(default_factory=list)  # comment lines after the joins (skipped foreign keys)
    sources: dict[str, Any] | None = None
    tests: str | None = None  # text of tests/generated.yml

    def names_to_identity(self) -> dict[str, str]:
        return {model_name(e.body): ident for ident, e in self.models.items()}

    def to_json(self) -> str:
        data = {"database": self.database, "models": {k: {"file": v.file, "body": v.body} for k, v in self.models.items()},
                "joins": self.joins, "sources": self.sources, "tests": self.tests}
        return json.dumps(data, indent=1, sort_keys=False, default=str)

    @classmethod
    def from_json(cls, text: str) -> LayerDoc:
        data = json.loads(text)
        models = {k: ModelEntry(v["file"], v["body"]) for k, v in data["models"].items()}
        return cls(data["database"], models, data.get("joins") or [], sources=data.get("sources"), tests=data.get("tests"))


def model_name(body: dict[str, Any]) -> str:
    """A model body's name; '' for a hand-edited model that has none (no join names it, so it links nothing)."""
    name = body.get("name")
    return "" if name is None else str(name)


def model_identity(body: dict[str, Any]) -> str:
    table = body.get("table")
    return f"table:{str(table).strip().lower()}" if table else f"sql:{body.get('name')}"


def norm_expr(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip().lower()


def join_identity(join: dict[str, Any], identities: dict[str, str]) -> str:
    """A join is the same join when it links the same tables on the same expressions."""
    on = join.get("on") or {}
    ends = tuple(identities.get(str(join.get(end)), f"?{join.get(end)}") for end in ("from", "to"))
    return "|".join((*ends, norm_expr(on.get("left")), norm_expr(on.get("right"))))


# -- reading ----------------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """YMap/YSeq (positioned YAML) to plain dicts and lists."""
    if isinstance(value, (YMap, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (YSeq, list)):
        return [plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _read(path: Path) -> Any:
    try:
        return plain(load_yaml(path, str(path)))
    except LayerError as err:
        raise LayerError(err.message, code=err.code, location=err.location) from None


def read_layer_doc(directory: Path) -> LayerDoc | None:
    """The layer on disk, or None when the folder holds none. Raises LayerError on broken YAML."""
    db_file = directory / "database.yml"
    if not db_file.exists():
        return None
    database = _read(db_file) or {}
    models: dict[str, ModelEntry] = {}
    for path in sorted([*(directory / "models").glob("*.yml"), *(directory / "models").glob("*.yaml")]):
        body = _read(path)
        if isinstance(body, dict):
            models[model_identity(body)] = ModelEntry(str(path.relative_to(directory)), body)
    joins_file = directory / "joins.yml"
    joins = (_read(joins_file) or {}).get("joins") or [] if joins_file.exists() else []
    sources_file = directory / "sources.yml"
    sources = _read(sources_file) if sources_file.exists() else None
    tests_file = directory / TESTS_FILE
    tests = tests_file.read_text(encoding="utf-8") if tests_file.exists() else None
    return LayerDoc(database, models, [j for j in joins if isinstance(j, dict)], sources=sources, tests=tests)


def read_snapshot(directory: Path) -> LayerDoc | None:
    path = directory / SNAPSHOT
    if not path.exists():
        return None
    try:
        return LayerDoc.from_json(path.read_text(encoding="utf-8"))
    except (ValueError, KeyError, TypeError):
        return None


# -- writing ----------------------------------------------------------------------------------------


def _ordered(mapping: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = {k: mapping[k] for k in order if k in mapping and mapping[k] is not None}
    out.update({k: v for k, v in mapping.items() if k not in out and v is not None})
    return out


def ordered_model(body: dict[str, Any]) -> dict[str, Any]:
    out = _ordered(body, MODEL_KEYS)
    for key in ("dimensions", "measures", "metrics"):
        if key in out:
            out[key] = [_ordered(e, ELEMENT_KEYS) if isinstance(e, dict) else e for e in out[key]]
        if out.get(key) == []:
            del out[key]
    return out


class _Dumper(yaml.SafeDumper):
    """Block style, lists indented under their key, long text folded."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:  # noqa: D401
        super().increase_indent(flow, False)


def dump(value: Any) -> str:
    text = yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    return re.sub(r"^(\s*)'on':", r"\1on:", text, flags=re.MULTILINE)  # a YAML 1.2 key; the loader reads keys as text


def _comments(lines: list[str], indent: str = "") -> str:
    """Comment lines; a line break inside one (a catalog name holding a newline) starts another comment line,
    never a line of YAML."""
    out = []
    for line in lines:
        for part in _LINE_BREAKS.split(line):
            out.append(f"{indent}# {part}\n" if part else f"{indent}#\n")
    return "".join(out)


_LINE_BREAKS = re.compile("\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # what YAML or str.splitlines break on


def render_files(doc: LayerDoc) -> dict[str, str]:
    """Every file of the layer as text, by path relative to the layer folder."""
    files = {"database.yml": dump(_ordered(doc.database, ("name", "description", "dialect", "connection", "time_spine", "access")))}
    for entry in doc.models.values():
        files[entry.file] = _comments(entry.header) + dump(ordered_model(entry.body))
    identities = doc.names_to_identity()
    if doc.joins or doc.trailer:
        parts = ["joins:\n" if doc.joins else "joins: []\n"]
        for join in doc.joins:
            note = doc.join_notes.get(join_identity(join, identities), [])
            block = dump([_ordered({k: v for k, v in join.items()}, JOIN_KEYS)])
            parts.append(_comments(note, "  ") + "".join("  " + line + "\n" for line in block.splitlines()))
        if doc.trailer:
            parts.append("\n" + _comments(doc.trailer))
        files["joins.yml"] = "".join(parts)
    if doc.sources is not None:
        files["sources.yml"] = dump(doc.sources)
    if doc.tests is not None:
        files[str(TESTS_FILE)] = doc.tests
    return files


def _without_header(text: str) -> str:
    lines = text.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines)


def write_files(directory: Path, files: dict[str, str], *, only_changed: bool = True) -> list[str]:
    """Write the files; returns those whose content changed. A file that differs only in its leading
    comment lines is left alone (the user's own header comment survives)."""
    changed = []
    for rel, text in files.items():
        path = directory / rel
        if only_changed and path.exists() and _without_header(path.read_text(encoding="utf-8")) == _without_header(text):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        changed.append(rel)
    return changed


def clone(doc: LayerDoc) -> LayerDoc:
    return copy.deepcopy(doc)
