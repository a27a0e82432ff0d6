"""Positioned access to a layer's YAML values: shapes, keys, text, names and expressions.

Every check reports into an ErrorCollector with file:line:col, so a whole layer is read before
anything is reported. The domain (what a model or a join is) lives in load.py.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlglot import exp

from ..dialects import DEFAULT_ENGINE
from ..digests import sha256
from ..errors import ErrorCollector, LayerError, Location, nearest
from .exprs import ExprError, parse_row_expression
from .yamlpos import YMap, YSeq, load_yaml, read_limited, where

NAME_RULE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def display_path(path: Path) -> str:
    """A path as users see it in messages: relative to the working directory when inside it."""
    if path.name:
        folder = _relative_folder(os.getcwd(), str(path.parent))
        if folder is None:  # outside the working directory (or on another drive): as given
            return str(path)
        return path.name if folder == "." else os.path.join(folder, path.name)
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if rel.startswith("..") else rel


@lru_cache(maxsize=256)
def _relative_folder(cwd: str, folder: str) -> str | None:
    """`folder` relative to the working directory `cwd`, worked out once per folder: os.path.relpath makes both sides
    absolute, for each of a large layer's thousands of files. None when outside it (or on another drive)."""
    try:
        rel = os.path.relpath(folder, cwd)
    except ValueError:
        return None
    return None if rel.startswith("..") else rel


class BaseReader:
    """Generic, positioned access to YAML values; every problem goes to `self.errors`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.errors = ErrorCollector()
        self.dialect = DEFAULT_ENGINE.value
        self.hasher = sha256()
        self.files: list[str] = []
        self.broken: set[str] = set()  # models whose file could not be read

    # -- helpers -------------------------------------------------------------------------
    def read(self, path: Path) -> tuple[Any, str]:
        shown = display_path(path)
        self.files.append(shown)
        data: bytes | None = None
        try:  # read once, for the hash and the parse; a file over the limit is refused by load_yaml: hash no more of it
            data = read_limited(path)
            self.hasher.update(data)
        except OSError:
            pass  # load_yaml reports it
        try:
            return load_yaml(path, shown, data), shown
        except LayerError as err:
            self.errors.errors.append(err)
            return None, shown

    def mapping(self, value: Any, file: str, field: str, parent: Any = None, key: Any = None) -> YMap | None:
        if isinstance(value, YMap):
            return value
        loc = where(file, parent, key, field=field) if parent is not None else Location(file, 1, 1, field)
        self.errors.add(f"{field or 'file'}: expected a mapping of keys to values, got {_kind(value)}", loc, code="invalid_shape")
        return None

    def known_keys(self, node: YMap, allowed: tuple[str, ...], file: str, field: str) -> None:
        for key in node:
            if key not in allowed:
                self.errors.add(
                    f"{field + ': ' if field else ''}unknown key '{key}' (allowed: {', '.join(allowed)})",
                    where(file, node, key, field=f"{field}.{key}" if field else key, at_key=True),
                    code="unknown_key",
                    suggestions=nearest(key, allowed, 1),
                )

    def text(self, node: YMap, key: str, file: str, field: str, *, required: bool = False, default: str = "") -> str:
        value = node.get(key)
        if type(value) is str:  # by far the most common
            return value
        if value is None:
            if required:
                self.errors.add(f"{field}: missing required key '{key}'", where(file, node, field=field), code="missing_key")
            return default
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            self.errors.add(f"{field}.{key}: expected text, got {_kind(value)}", where(file, node, key, field=f"{field}.{key}"), code="invalid_shape")
            return default
        return str(value)

    def name(self, node: YMap, file: str, field: str, what: str) -> str | None:
        name = self.text(node, "name", file, field, required=True)
        if not name:
            return None
        if not NAME_RULE.match(name) or "__" in name:
            self.errors.add(
                f"{field}.name: invalid {what} name '{name}': use letters, digits and single underscores, starting with a letter (no '__')",
                where(file, node, "name", field=f"{field}.name"),
                code="invalid_name",
            )
            return None
        return name

    def expression(self, text: str, file: str, node: YMap, key: str, field: str) -> exp.Expression | None:
        return self.row_expression(text, file, node, key, field)[0]

    def row_expression(self, text: str, file: str, node: YMap, key: str, field: str) -> tuple[exp.Expression | None, bool]:
        """`expression`, and whether it holds an aggregate (a measure's must not)."""
        try:
            return parse_row_expression(text, self.dialect)
        except ExprError as err:
            loc = where(file, node, key, field=field)
            if err.column and loc.column is not None and "\n" not in text:
                loc = Location(loc.file, loc.line, loc.column + err.column - 1, loc.field)
            self.errors.add(f"{field}: '{text}' {err}", loc, code="invalid_expression")
            return None, False

    def items(self, node: YMap, key: str, file: str, field: str) -> list[tuple[int, Any, YSeq]]:
        value = node.get(key)
        if value is None:
            return []
        if not isinstance(value, YSeq):
            self.errors.add(f"{field}.{key}: expected a list, got {_kind(value)}", where(file, node, key, field=f"{field}.{key}"), code="invalid_shape")
            return []
        return [(i, item, value) for i, item in enumerate(value)]

    def string_list(self, node: YMap, key: str, file: str, field: str) -> list[tuple[str, Location]]:
        value = node.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            return [(value, where(file, node, key, field=f"{field}.{key}"))]
        out: list[tuple[str, Location]] = []
        for i, item, seq in self.items(node, key, file, field):
            loc = where(file, seq, i, field=f"{field}.{key}[{i}]")
            if not isinstance(item, str):
                self.errors.add(f"{field}.{key}[{i}]: expected text, got {_kind(item)}", loc, code="invalid_shape")
                continue
            out.append((item, loc))
        return out


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", YMap: "a mapping", list: "a list", YSeq: "a list", str: "text", bool: "true/false",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)
