"""The values layer YAML is read into: mappings and lists that carry positions, and plain scalars resolved as PyYAML
resolves them. Shared by the two readers, PyYAML's (yamlpos.py) and the plain subset's (yamlplain.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

_PLAIN = "?plain"  # the tag of a plain scalar until _scalar resolves it


@dataclass(frozen=True)
class Pos:
    line: int  # 1-based
    column: int  # 1-based


class Mark:
    """A position as PyYAML's marks give it (0-based line and column), without the rest of a mark (yamlplain.py)."""

    __slots__ = ("line", "column")

    def __init__(self, line: int, column: int) -> None:
        self.line = line
        self.column = column


class LineMarks(dict):
    """The positions of a flow mapping's keys (or values), all on one line (yamlplain.py): their columns, made Marks
    when asked (`where` reads the column itself)."""

    __slots__ = ("line",)
    line: int

    def __getitem__(self, key: str) -> Mark:
        return Mark(self.line, dict.__getitem__(self, key))

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default


class YMap(dict):
    """A mapping with the position (a PyYAML mark or a Pos) of itself, of each key and of each value."""

    __slots__ = ("pos", "key_pos", "value_pos")  # no __dict__ of its own: one object fewer per mapping
    pos: Any
    key_pos: dict[str, Any]
    value_pos: dict[str, Any]


class YSeq(list):
    """A sequence with the position of itself and of each item."""

    __slots__ = ("pos", "item_pos")
    pos: Any
    item_pos: list[Any]


_STR, _INT, _FLOAT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null"))
# PyYAML's implicit resolvers by a value's first character ('' for the empty value), as its Resolver tries them
_IMPLICIT: dict[str, tuple[tuple[str, Any], ...]] = {
    first: tuple(resolvers) + tuple(yaml.resolver.Resolver.yaml_implicit_resolvers.get(None, ()))
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items() if first is not None
}
_NO_RESOLVERS: tuple[tuple[str, Any], ...] = tuple(yaml.resolver.Resolver.yaml_implicit_resolvers.get(None, ()))
_TEXT_TAGS = frozenset((_PLAIN, _STR) if not _NO_RESOLVERS else (_STR,))  # inlined when no implicit resolver starts with the first character


def _plain_tag(value: str) -> str:
    """The tag PyYAML's resolver gives a plain scalar: text unless a pattern for its first character matches."""
    for tag, pattern in _IMPLICIT.get(value[:1], _NO_RESOLVERS):
        if pattern.match(value):
            return tag
    return _STR


def _scalar(node: yaml.Node, scalars: yaml.constructor.SafeConstructor) -> Any:
    """Scalars by their resolved tag; text is by far the most common, so it goes first."""
    tag = node.tag
    if tag == _PLAIN:
        tag = node.tag = _plain_tag(node.value)
    if tag == _STR:
        return node.value
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return node.value.lower() in ("yes", "true", "on")
    if tag == _INT:
        return scalars.construct_yaml_int(node)  # type: ignore[arg-type]  # a scalar node here
    if tag == _FLOAT:
        return scalars.construct_yaml_float(node)  # type: ignore[arg-type]
    return scalars.construct_object(node, deep=True)  # dates, binary...
