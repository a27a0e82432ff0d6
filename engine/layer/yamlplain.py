"""A reader for the plain subset of YAML that layer files are written in, ~2x faster than PyYAML's composer path.

Most layer files are block mappings and block sequences of one-line scalars and one-line flow mappings
(`- {name: attr0, type: string, expr: attr_0_0}`), with comments and literal or folded descriptions (`>-`); reading
them line by line skips PyYAML's event, mark and node objects (140 -> 80 µs for a generated model file). `read_plain`
gives exactly what `yamlpos.load_yaml` builds — the same values, the same YMap/YSeq positions (0-based, as PyYAML's
marks) — or None whenever the text holds anything outside that subset or anything it is not sure of (anchors,
aliases, tags, flow lists, multi-line or escaped scalars, empty values, dates, duplicate keys, tabs, control
characters, several documents ...): then PyYAML reads the file, and its errors are the ones reported.
tests/engine/layer/test_yaml_plain.py checks it against PyYAML on random documents.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from .yamlvalues import _BOOL, _FLOAT, _IMPLICIT, _INT, _NULL, _STR, LineMarks, Mark, YMap, YSeq, _plain_tag, _scalar

# characters PyYAML refuses or reads as a line break, carriage returns, tabs, a BOM: left to PyYAML
_UNSURE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: +|\Z)")  # a plain key, then its value or nothing
# one `key: value` of a flow mapping and the `,` or `}` after it (or the `{` of a nested one): the value single-quoted
# ('' is a quote), double-quoted without escapes, or plain without any indicator character (PyYAML's rules for those
# differ between its versions and contexts)
_FLOW_ITEM = re.compile(
    r""" *([A-Za-z_][A-Za-z0-9_]*): +(?:([^-?:,\[\]{}#&*!|>%@`'" ][^,\[\]{}#:'"]*)[,}]|'([^']*(?:''[^']*)*)' *[,}]|"([^"\\]*)" *[,}]|(\{))""")
_FIRST_UNSAFE = frozenset("?:,[]{}#&*!|>%@`'\"-")  # a plain scalar's first character that makes it something else


_SIMPLE_TAGS = frozenset((_STR, _NULL, _BOOL, _INT, _FLOAT))
_BLOCK_HEADERS = frozenset(("|", "|-", ">", ">-"))
_COMMENT = re.compile(r" +#")


class _Unsure(Exception):
    """The text is outside the subset: PyYAML reads it."""


def read_plain(text: str) -> YMap | None:
    """The file's mapping as `load_yaml` builds it, or None when the text is not plainly in the subset."""
    if _UNSURE.search(text):
        return None
    raw = text.split("\n")
    lines: list[tuple[int, int, str]] = []  # (line number, indentation, content) of each line that holds something
    for number, line in enumerate(raw):
        body = line.lstrip(" ")
        if body and body[0] != "#":
            lines.append((number, len(line) - len(body), body.rstrip(" ")))
    if not lines or lines[0][1] != 0 or lines[0][2].startswith(("---", "...", "%")):
        return None
    try:
        root, end = _Reader(lines, raw).mapping(0, 0)
    except _Unsure:
        return None
    return root if end == len(lines) else None


class _Reader:
    def __init__(self, lines: list[tuple[int, int, str]], raw: list[str]) -> None:
        self.lines = lines
        self.raw = raw  # the text's lines as written: a block scalar's (comment-like lines, blank lines)
        self.scalars: yaml.constructor.SafeConstructor | None = None

    def mapping(self, i: int, indent: int) -> tuple[YMap, int]:
        """The block mapping whose keys start at column `indent` from line entry `i`; the entry after it."""
        lines, n = self.lines, len(self.lines)
        out = YMap()
        key_pos: dict[str, Any] = {}
        value_pos: dict[str, Any] = {}
        out.pos, out.key_pos, out.value_pos = Mark(lines[i][0], indent), key_pos, value_pos
        while i < n and lines[i][1] == indent:
            number, _, body = lines[i]
            match = _KEY.match(body)
            if match is None:
                raise _Unsure
            key = match.group(1)
            if key in out:
                raise _Unsure
            key_pos[key] = Mark(number, indent)
            rest = body[match.end():]
            i += 1
            if rest:
                column = indent + match.end()
                if rest in _BLOCK_HEADERS:
                    out[key], i = self.block_scalar(rest, number, indent, i)
                else:
                    out[key] = self.value(rest, number, column)
                value_pos[key] = Mark(number, column)
                continue
            if i < n and (lines[i][1] > indent or (lines[i][1] == indent and lines[i][2][:2] == "- ")):
                child = lines[i][1]
                value_pos[key] = Mark(lines[i][0], child)
                out[key], i = self.sequence(i, child) if lines[i][2][:2] == "- " else self.mapping(i, child)
                continue
            raise _Unsure  # an empty value (null): its position is PyYAML's to say
        if i < n and lines[i][1] > indent:
            raise _Unsure
        return out, i

    def sequence(self, i: int, indent: int) -> tuple[YSeq, int]:
        """The block sequence whose dashes are at column `indent` from line entry `i`; the entry after it."""
        lines, n = self.lines, len(self.lines)
        out = YSeq()
        item_pos: list[Any] = []
        out.pos, out.item_pos = Mark(lines[i][0], indent), item_pos
        while i < n and lines[i][1] == indent and lines[i][2][:2] == "- ":
            number, _, body = lines[i]
            rest = body[2:].lstrip(" ")
            column = indent + len(body) - len(rest)
            item_pos.append(Mark(number, column))
            if _KEY.match(rest):  # `- key: value`: a mapping whose keys start at `column`
                lines[i] = (number, column, rest)
                item, i = self.mapping(i, column)
                out.append(item)
                continue
            out.append(self.value(rest, number, column))
            i += 1
        if i < n and lines[i][1] > indent:
            raise _Unsure
        return out, i

    def value(self, text: str, line: int, column: int) -> Any:
        """A value written on one line (a comment may follow): a flow mapping, a quoted or a plain scalar."""
        first = text[0]
        if first == "{":
            out, end = self.flow_mapping(text, line, column)
            if end != len(text) and not _COMMENT.match(text, end):
                raise _Unsure
            return out
        if first == "'" or first == '"':
            value, end = _quoted(text, 0)
            if end != len(text) and not _COMMENT.match(text, end):
                raise _Unsure
            return value
        if first in _FIRST_UNSAFE and not (first == "-" and text[1:2] not in ("", " ", "-")):
            raise _Unsure
        comment = text.find(" #")
        if comment != -1:
            text = text[:comment].rstrip(" ")
        if ": " in text or text[-1] == ":":
            raise _Unsure
        return self.plain(text)

    def block_scalar(self, header: str, number: int, indent: int, i: int) -> tuple[str, int]:
        """A literal (`|`, `|-`) or folded (`>`, `>-`) scalar whose header is on line `number`, in a mapping at column
        `indent`; the line entry after it. Left to PyYAML: leading blank lines, lines of only spaces, trailing spaces,
        a folded scalar's more-indented lines, an explicit indentation, keeping the trailing line breaks (`+`)."""
        raw, folded = self.raw, header[0] == ">"
        content: list[str | None] = []  # None: an empty line
        block = last = -1
        for j in range(number + 1, len(raw)):
            line = raw[j]
            if not line:
                if block == -1:
                    raise _Unsure
                content.append(None)
                continue
            body = line.lstrip(" ")
            at = len(line) - len(body)
            if not body and at <= indent:  # spaces only, no deeper than the mapping: an empty line, or the end
                raise _Unsure
            if at <= indent:
                break
            if block == -1:
                block = at
            if at < block or (folded and at > block) or not body or line[-1] == " ":
                raise _Unsure
            content.append(line[block:])
            last = j
        if block == -1:
            raise _Unsure
        while content[-1] is None:
            content.pop()
        if folded:
            text, breaks = "", -1
            for part in content:
                if part is None:
                    breaks += 1
                    continue
                text += part if breaks == -1 else ("\n" * breaks if breaks else " ") + part
                breaks = 0
        else:
            text = "\n".join("" if part is None else part for part in content)
        if header[-1] != "-" and last < len(raw) - 1:  # clip: one line break, when the file has one after the text
            text += "\n"
        lines = self.lines
        while i < len(lines) and lines[i][0] <= last:
            i += 1
        return text, i

    def flow_mapping(self, text: str, line: int, column: int) -> tuple[YMap, int]:
        """`{key: value, ...}` on one line, keys plain, values plain or quoted scalars or flow mappings; the index
        after its `}`."""
        out = YMap()
        key_pos, value_pos = LineMarks(), LineMarks()
        key_pos.line = value_pos.line = line
        out.pos, out.key_pos, out.value_pos = Mark(line, column), key_pos, value_pos
        i = 1
        match_item = _FLOW_ITEM.match
        while True:
            match = match_item(text, i)
            if match is None:
                raise _Unsure  # `{}`, a trailing comma, a quoted or complex key, an indicator in a plain scalar ...
            key, plain, single, double, nested = match.groups()
            if key in out:
                raise _Unsure
            key_pos[key] = column + match.start(1)
            end = match.end()
            if plain is not None:
                value_pos[key] = column + match.start(2)
                plain = plain.rstrip(" ")
                out[key] = plain if plain[0] not in _IMPLICIT else self.plain(plain)
            elif nested is not None:
                at = match.start(5)
                value_pos[key] = column + at
                out[key], end = self.flow_mapping(text[at:], line, column + at)
                end += at
                while end < len(text) and text[end] == " ":
                    end += 1
                end += 1  # past the `,` or `}`
            else:
                value_pos[key] = column + (match.start(3) if single is not None else match.start(4)) - 1  # at the quote
                out[key] = single.replace("''", "'") if single is not None else double
            close = text[end - 1:end]
            if close == "}":
                return out, end
            if close != ",":
                raise _Unsure
            i = end

    def plain(self, value: str) -> Any:
        """A plain scalar as `yamlvalues._scalar` resolves it (text unless an implicit tag's pattern matches)."""
        if value[:1] not in _IMPLICIT:
            return value
        tag = _plain_tag(value)
        if tag not in _SIMPLE_TAGS:  # dates, `=` ...: PyYAML's constructors, their errors with its marks
            raise _Unsure
        if self.scalars is None:
            self.scalars = yaml.constructor.SafeConstructor()
        return _scalar(yaml.ScalarNode(tag, value), self.scalars)


def _quoted(text: str, i: int) -> tuple[str, int]:
    """The single- or double-quoted scalar at `text[i]` (no escapes, no line break) and the index after it."""
    quote = text[i]
    end = text.find(quote, i + 1)
    if quote == "'":
        while end != -1 and text[end + 1:end + 2] == "'":  # '' is one quote
            end = text.find("'", end + 2)
    if end == -1:
        raise _Unsure
    inner = text[i + 1:end]
    if quote == '"' and "\\" in inner:
        raise _Unsure
    return (inner.replace("''", "'") if quote == "'" else inner), end + 1
