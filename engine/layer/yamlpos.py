"""YAML that remembers where every value came from.

PyYAML's composer gives nodes with marks; we turn them into plain dicts, lists and
scalars whose containers remember the line and column of each key and item, so that
validation errors can point at `models/orders.yml:12:11`.

Layer files come from people and from `/v1/reload`, so a file is bounded before it is trusted:
at most MAX_YAML_BYTES, and aliases (`*name`) may rebuild at most MAX_ALIAS_VALUES values in
total. The composer shares an anchored node between its aliases, so composing stays linear; it is
building plain values from that graph that a "billion laughs" file (537 bytes, nine levels of
ten aliases each) turns into 10^9 values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..errors import LayerError, Location
from .yamlplain import read_plain
from .yamlvalues import _IMPLICIT, _PLAIN, _STR, _TEXT_TAGS, LineMarks, Pos, YMap, YSeq, _scalar

__all__ = ["MAX_ALIAS_VALUES", "MAX_YAML_BYTES", "Pos", "YMap", "YSeq", "load_yaml", "load_yaml_documents", "read_limited", "where"]

try:  # the C loader is ~10x faster; fall back when libyaml is absent
    _Base: type[yaml.SafeLoader] | type[yaml.CSafeLoader] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the platform's wheel
    _Base = yaml.SafeLoader

class _Loader(_Base):  # type: ignore[valid-type, misc]  # one of two bases, chosen above
    """PyYAML's safe loader, but a plain scalar's tag is left for `_scalar` to work out, and only for values.

    The composer calls the resolver, in Python, for every scalar, keys included: a third of composing a large
    layer (0.23 of 0.66 s at 3,000 models). Keys stay text anyway (YAML 1.1 would read the spec's `on:` as true),
    and most values are text whose first character no implicit tag starts with."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        return _PLAIN if kind is yaml.ScalarNode and implicit[0] else _STR

    # called around every node for path resolvers (`add_path_resolver`), which a layer never registers
    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


MAX_YAML_BYTES = 4 * 1024 * 1024  # one layer file; the largest real ones are tens of KB
MAX_ALIAS_VALUES = 10_000  # values built again through aliases, per file


class _Aliases:
    """Counts values built more than once (through an alias) and stops past MAX_ALIAS_VALUES.

    `where` is the innermost mapping or list written out in the file (not reached through an
    alias) being built: where the aliases that go over the limit are used.
    """

    def __init__(self, display: str) -> None:
        self.display = display
        self.seen: set[int] = set()
        self.reused = 0
        self.where: Any = None

    def visit(self, node: yaml.Node) -> Any:
        """Count `node`; return the `where` to restore once it is built."""
        outer = self.where
        key = id(node)  # the graph holds every node while it is built, so ids stay unique
        if key not in self.seen:
            self.seen.add(key)
            if not isinstance(node, yaml.ScalarNode):
                self.where = node.start_mark
            return outer
        self.reused += 1
        if self.reused > MAX_ALIAS_VALUES:
            mark = outer or node.start_mark
            raise LayerError(
                f"YAML aliases (*name) here expand to more than {MAX_ALIAS_VALUES:,} values in this file "
                "(aliases of aliases multiply); write the values out or use fewer aliases",
                code="yaml_alias_limit", location=Location(self.display, mark.line + 1, mark.column + 1))
        return outer


def _construct(node: yaml.Node, path: str, scalars: yaml.constructor.SafeConstructor, aliases: _Aliases | None = None) -> Any:
    outer = aliases.visit(node) if aliases is not None else None
    kind = type(node)
    if kind is _MappingNode:
        out = YMap()
        key_pos: dict[str, Any] = {}
        value_pos: dict[str, Any] = {}
        out.pos, out.key_pos, out.value_pos = node.start_mark, key_pos, value_pos
        for key_node, value_node in node.value:
            # keys stay text: YAML 1.1 would read the spec's `on:` as the boolean true
            key = key_node.value if type(key_node) is _ScalarNode else str(_construct(key_node, path, scalars, aliases))
            if key in out:
                raise LayerError(
                    f"duplicate key '{key}'",
                    code="yaml_duplicate_key",
                    location=Location(path, key_node.start_mark.line + 1, key_node.start_mark.column + 1),
                )
            if aliases is None and type(value_node) is _ScalarNode and value_node.tag in _TEXT_TAGS \
                    and value_node.value[:1] not in _IMPLICIT:  # text, by far the most common value: inline
                out[key] = value_node.value
            else:
                out[key] = _construct(value_node, path, scalars, aliases)
            key_pos[key] = key_node.start_mark  # marks become Pos only when an error needs them
            value_pos[key] = value_node.start_mark
        if aliases is not None:
            aliases.where = outer
        return out
    if kind is _SequenceNode:
        seq = YSeq([_construct(item, path, scalars, aliases) for item in node.value])
        seq.pos = node.start_mark
        seq.item_pos = [item.start_mark for item in node.value]
        if aliases is not None:
            aliases.where = outer
        return seq
    return _scalar(node, scalars)


_MappingNode, _SequenceNode, _ScalarNode = yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode


def read_limited(path: Path) -> bytes:
    """The file's first MAX_YAML_BYTES + 1 bytes (one more than a layer file may have): never more into memory."""
    with path.open("rb") as handle:
        return handle.read(MAX_YAML_BYTES + 1)


def _read_text(path: Path, display: str, data: bytes | None = None) -> str:
    """The file's text (`data`: its bytes as `read_limited` read them), never more than MAX_YAML_BYTES of it."""
    try:
        if data is None:
            data = read_limited(path)
        if len(data) > MAX_YAML_BYTES:
            raise LayerError(f"the file is larger than {MAX_YAML_BYTES:,} bytes, the limit for one layer file; "
                             "split its models into several files", code="yaml_too_large", location=Location(display, 1, 1))
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LayerError(f"cannot read file: {exc}", code="file_unreadable", location=Location(display, 1, 1)) from None


def _compose(text: str, display: str) -> list[yaml.Node]:
    """Every document's node tree; syntax errors become a LayerError at the offending position."""
    try:
        return [node for node in yaml.compose_all(text, Loader=_Loader) if node is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise LayerError(f"YAML syntax error: {problem}", code="yaml_syntax", location=Location(display, line, col)) from None
    except yaml.YAMLError as exc:  # pragma: no cover - non-marked errors are rare
        raise LayerError(f"YAML error: {exc}", code="yaml_syntax", location=Location(display, 1, 1)) from None


def _build(nodes: list[yaml.Node], text: str, display: str) -> list[Any]:
    aliases = _Aliases(display) if "&" in text else None  # no anchor, no alias: nothing to count (one count per file)
    scalars = yaml.constructor.SafeConstructor()
    try:
        return [_construct(node, display, scalars, aliases) for node in nodes]
    except RecursionError:
        raise LayerError("the YAML nests too deeply", code="yaml_syntax", location=Location(display, 1, 1)) from None


def load_yaml(path: Path, display: str, data: bytes | None = None) -> Any:
    """Parse one YAML file (one document); errors and limits become a LayerError at the offending position.
    `data`: the file's bytes when the caller has read them already (`read_limited`)."""
    text = _read_text(path, display, data)
    plain = read_plain(text)
    if plain is not None:  # the plain subset most layer files are in, read without PyYAML (yamlplain.py)
        return plain
    nodes = _compose(text, display)
    if len(nodes) > 1:
        raise LayerError("the file holds several YAML documents (---); a layer file holds one",
                         code="yaml_syntax", location=Location(display, nodes[1].start_mark.line + 1, 1))
    return _build(nodes, text, display)[0] if nodes else None


def load_yaml_documents(path: Path, display: str) -> list[Any]:
    """Every document of a multi-document YAML file (`---` separated), positioned and limited like `load_yaml`."""
    text = _read_text(path, display)
    return _build(_compose(text, display), text, display)


def where(display: str, container: Any, key: Any = None, *, field: str | None = None, at_key: bool = False) -> Location:
    """Location of `container[key]` (its value, or its key with at_key) in a file."""
    pos: Any = None
    if isinstance(container, YMap):
        if key is not None and key in container.value_pos:
            positions = container.key_pos if at_key else container.value_pos
            if type(positions) is LineMarks:  # no Mark made for this
                return Location(display, positions.line + 1, dict.__getitem__(positions, key) + 1, field)
            pos = positions[key]
        else:
            pos = container.pos
    elif isinstance(container, YSeq):
        if isinstance(key, int) and 0 <= key < len(container.item_pos):
            pos = container.item_pos[key]
        else:
            pos = container.pos
    if pos is None:
        return Location(display, 1, 1, field)
    if isinstance(pos, Pos):
        return Location(display, pos.line, pos.column, field)
    return Location(display, pos.line + 1, pos.column + 1, field)  # a PyYAML mark (0-based)
