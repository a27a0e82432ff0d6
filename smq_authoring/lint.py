"""`smq lint`: the remarks a reviewer would make on a layer that already validates.

Warnings, not errors: a layer can be correct and still be hard for an agent to use (no
descriptions, descriptions that only repeat the name), or rely on defaults nobody chose (a join
type, an aggregation), or hide mistakes validation cannot see (summing an identifier, a date kept
as text, a model nothing joins to). Each warning points at the YAML line it is about.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import Layer
from engine.layer.reader import display_path
from engine.layer.yamlpos import YMap, YSeq, load_yaml, where

from .layerdoc import read_snapshot
from .names import STOPWORDS, identifier_word, tokens

RULES: dict[str, str] = {
    "missing-description": "a model, dimension, measure or metric has no description",
    "description-repeats-name": "a description only repeats the element's name",
    "draft-description": "descriptions are still the drafts `smq init` wrote",
    "duplicate-description": "two elements of one model have the same description",
    "join-missing-relationship": "a join does not say its relationship",
    "join-type-not-written": "a join relies on the default type (left)",
    "ambiguous-edge-key": "two joins touching one model share an edge key",
    "unreachable-model": "a model is in no join, so nothing can be combined with it",
    "missing-primary-key": "a model over a table declares no primary key",
    "sum-of-identifier": "a measure sums or averages an identifier",
    "measure-agg-not-written": "a measure relies on the default aggregation (sum)",
    "time-as-string": "a date or time dimension is typed as string",
    "flag-as-number": "a yes/no dimension is typed as number",
    "name-style": "a name does not follow the conventions (PascalCase models, camelCase elements)",
}
_TIME_WORDS = {"date", "time", "timestamp", "datetime", "dt", "day"}
_FLAG_PREFIXES = {"is", "has", "can", "was", "should"}
_CAMEL = re.compile(r"[a-z][A-Za-z0-9]*\Z")
_PASCAL = re.compile(r"[A-Z][A-Za-z0-9]*\Z")


@dataclass(frozen=True)
class LintWarning:
    file: str
    line: int
    column: int
    message: str
    rule: str

    def formatted(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: warning: {self.message} [{self.rule}]"


def lint_joins_file(directory: Path, ignore: AbstractSet[str] = frozenset()) -> list[LintWarning]:
    """The joins.yml rules alone: they need no valid layer (a join without relationship does not load)."""
    path = directory / "joins.yml"
    if not path.exists():
        return []
    linter = _Linter(directory)
    try:
        node = load_yaml(path, display_path(path))
    except Exception:  # noqa: BLE001 - broken YAML is reported by validation
        return []
    if isinstance(node, YMap) and isinstance(node.get("joins"), YSeq):
        linter.joins(node["joins"], display_path(path))
    return [w for w in linter.warnings if w.rule not in ignore]


def lint_layer(layer: Layer, ignore: AbstractSet[str] = frozenset()) -> list[LintWarning]:
    """Every warning for one (valid) layer, sorted by file and line."""
    directory = Path(layer.semantic.directory)
    linter = _Linter(directory)
    linter.run(layer)
    return sorted((w for w in linter.warnings if w.rule not in ignore), key=lambda w: (w.file, w.line, w.column, w.rule))


class _Linter:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.warnings: list[LintWarning] = []
        snapshot = read_snapshot(directory)
        self.drafts = {e.body.get("table", "").lower(): e.body for e in snapshot.models.values()} if snapshot else {}

    def warn(self, file: str, container: Any, key: Any, message: str, rule: str, *, at_key: bool = False) -> None:
        loc = where(file, container, key, at_key=at_key)
        self.warnings.append(LintWarning(loc.file or file, loc.line or 1, loc.column or 1, message, rule))

    def run(self, layer: Layer) -> None:
        joined: set[str] = set()
        for edge in layer.semantic.joins:
            joined |= {edge.from_model, edge.to_model}
        for path in sorted([*(self.directory / "models").glob("*.yml"), *(self.directory / "models").glob("*.yaml")]):
            shown = display_path(path)
            node = load_yaml(path, shown)
            if isinstance(node, YMap):
                self.model(layer, node, shown, joined)
        joins_file = self.directory / "joins.yml"
        if joins_file.exists():
            node = load_yaml(joins_file, display_path(joins_file))
            if isinstance(node, YMap) and isinstance(node.get("joins"), YSeq):
                self.joins(node["joins"], display_path(joins_file))

    # -- models --------------------------------------------------------------------------------------
    def model(self, layer: Layer, node: YMap, file: str, joined: set[str]) -> None:
        name = str(node.get("name") or "")
        model = layer.models.get(name)
        if model is None:
            return
        if not str(node.get("description") or "").strip():
            self.warn(file, node, "name", f"model {name} has no description: say what one row is", "missing-description")
        if name and not _PASCAL.match(name):
            self.warn(file, node, "name", f"model name '{name}' is not PascalCase", "name-style")
        if len(layer.models) > 1 and name not in joined:
            self.warn(file, node, "name", f"model {name} is in no join: its measures cannot be grouped by other models' "
                                          "dimensions (add a join in joins.yml, or remove the model)", "unreachable-model")
        if node.get("table") and not node.get("primary_key"):
            self.warn(file, node, "name", f"model {name} declares no primary_key: queries that fan out its rows cannot be "
                                          "deduplicated, and adding a join later will fail validation if it has measures",
                      "missing-primary-key")
        keys = {c.lower() for n in model.primary_key_nodes for c in _columns(n)}
        for edge in layer.semantic.joins:
            if edge.from_model == name:
                keys |= {c.lower() for c in _columns(edge.left_node)}
            if edge.to_model == name:
                keys |= {c.lower() for c in _columns(edge.right_node)}
        seen_descriptions: dict[str, str] = {}
        draft = self.drafts.get(str(node.get("table") or "").lower(), {})
        drafts = {(kind, e.get("name")): e.get("description") for kind in ("dimensions", "measures") for e in draft.get(kind, [])}
        unedited = total = 0
        for kind in ("dimensions", "measures", "metrics"):
            items = node.get(kind)
            if not isinstance(items, YSeq):
                continue
            for item in items:
                if not isinstance(item, YMap):
                    continue
                element = str(item.get("name") or "")
                description = str(item.get("description") or "").strip()
                what = {"dimensions": "dimension", "measures": "measure", "metrics": "metric"}[kind]
                label = f"{what} {name}.{element}" if kind != "metrics" else f"metric {element}"
                is_draft = drafts.get((kind, element)) == description and bool(description)
                if not description:
                    self.warn(file, item, "name", f"{label} has no description", "missing-description")
                elif is_draft:
                    pass  # counted once per model by draft-description
                elif _repeats(description, element):
                    self.warn(file, item, "description", f"{label}: the description '{description}' only repeats the name; "
                                                          "say what it means, its unit or its values", "description-repeats-name")
                elif description in seen_descriptions:
                    self.warn(file, item, "description", f"{label} has the same description as {seen_descriptions[description]}",
                              "duplicate-description")
                if description:
                    seen_descriptions.setdefault(description, element)
                if (kind, element) in drafts:
                    total += 1
                    unedited += drafts[(kind, element)] == description
                if element and not _CAMEL.match(element):
                    self.warn(file, item, "name", f"{label}: name '{element}' is not camelCase", "name-style")
                if kind == "dimensions":
                    self.dimension(item, file, label, element)
                elif kind == "measures":
                    self.measure(item, file, label, keys, model.primary_key)
        if total and unedited:
            self.warn(file, node, "name", f"{unedited} of {total} descriptions in {name} are still the drafts smq init wrote: "
                                          "read them and say what the data means", "draft-description")

    def dimension(self, item: YMap, file: str, label: str, element: str) -> None:
        kind = str(item.get("type") or "").lower()
        expr = str(item.get("expr") or element)
        words = set(tokens(element)) | set(tokens(_last_identifier(expr)))
        name_words = tokens(element)
        looks_like_time = words & _TIME_WORDS or name_words[-1:] in (["at"], ["on"]) and len(name_words) > 1
        if kind in ("string", "varchar", "text", "char") and looks_like_time and not (name_words and identifier_word(name_words[-1])):
            self.warn(file, item, "type", f"{label} looks like a date or time but is typed {kind}: type it date or timestamp "
                                          "(with expr: CAST(... AS DATE) if it is stored as text) so it can be grouped by month",
                      "time-as-string")
        if kind in ("number", "int", "integer") and name_words[:1] and name_words[0] in _FLAG_PREFIXES:
            self.warn(file, item, "type", f"{label} reads as yes/no but is typed {kind}: type it boolean", "flag-as-number")

    def measure(self, item: YMap, file: str, label: str, keys: set[str], primary_key: tuple[str, ...]) -> None:
        agg = item.get("agg")
        if agg is None:
            self.warn(file, item, "name", f"{label} has no agg and is summed by default: write agg: sum (or the one you mean)",
                      "measure-agg-not-written")
        agg = str(agg or "sum").lower()
        expr = str(item.get("expr") or "")
        if agg in ("sum", "avg") and expr:
            column = _last_identifier(expr)
            words = tokens(column)
            identifier = bool(words) and identifier_word(words[-1]) or column.lower() in keys
            if identifier and re.fullmatch(r"[\"`\[]?[\w ]+[\"`\]]?", expr.strip()):
                self.warn(file, item, "expr", f"{label} takes the {agg} of {column}, an identifier: count it "
                                              "(agg: count_distinct) instead", "sum-of-identifier")

    # -- joins ------------------------------------------------------------------------------------------
    def joins(self, items: YSeq, file: str) -> None:
        touching: dict[tuple[str, str], int] = {}
        for i, item in enumerate(items):
            if not isinstance(item, YMap):
                continue
            label = f"join {item.get('from')} -[{item.get('key')}]-> {item.get('to')}"
            if "relationship" not in item:
                self.warn(file, items, i, f"{label} does not say its relationship (many_to_one, one_to_one, one_to_many)",
                          "join-missing-relationship")
            if "type" not in item:
                self.warn(file, items, i, f"{label} relies on the default join type (left): write type: left or type: inner",
                          "join-type-not-written")
            key = str(item.get("key"))
            for model in {str(item.get("from")), str(item.get("to"))}:
                if (model, key) in touching:
                    first = touching[(model, key)]
                    self.warn(file, item, "key", f"{label}: edge key '{key}' is also used by joins[{first}], which touches "
                                                 f"{model} too; a path through '{key}' from {model} is ambiguous",
                              "ambiguous-edge-key")
                else:
                    touching[(model, key)] = i


def _columns(node: Any) -> Iterator[str]:
    from sqlglot import exp

    if isinstance(node, exp.Column):
        yield node.name
        return
    for col in node.find_all(exp.Column):
        yield col.name


def _last_identifier(expr: str) -> str:
    found = re.findall(r"[\"`\[]([^\"`\]]+)[\"`\]]|([A-Za-z_][A-Za-z0-9_]*)", expr)
    names = [a or b for a, b in found]
    return names[-1] if names else ""


def _repeats(description: str, name: str) -> bool:
    """True when the description has no word beyond the name's own words (and filler words)."""
    words = {w for w in re.findall(r"[a-z0-9]+", description.lower()) if w not in STOPWORDS}
    name_words = set(tokens(name)) | {w + "s" for w in tokens(name)}
    return bool(words) and words <= name_words
