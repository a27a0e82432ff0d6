"""The engine's error hierarchy: flat, structured, and formatted only at the edges.

Every error carries a stable ``code`` (clients branch on it), a human ``message``, a
``location`` (file/line/column for layer files, a field path such as ``metrics[1]`` for
queries) and ``suggestions`` (the nearest valid names). The CLI and the service only format
these; they never parse messages.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .error_codes import ErrorCode, Kind, lookup


@dataclass(frozen=True)
class Location:
    """Where a problem is: a file position, a field path inside it, or both."""

    file: str | None = None
    line: int | None = None  # 1-based
    column: int | None = None  # 1-based
    field: str | None = None  # e.g. "dimensions[2].expr" or "metrics[0]"

    def __str__(self) -> str:
        if self.file is None:
            return self.field or "<query>"
        return f"{self.file}:{self.line or 1}:{self.column or 1}"

    def to_dict(self) -> dict:
        return {k: v for k, v in (("file", self.file), ("line", self.line), ("column", self.column), ("field", self.field)) if v is not None}


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    code: str = "engine_error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        location: Location | None = None,
        suggestions: Iterable[str] = (),
    ) -> None:
        self.message = message
        if code is not None:
            self.code = code
        self.location = location or Location()
        self.suggestions = tuple(suggestions)
        super().__init__(self.formatted())

    def formatted(self) -> str:
        """`where: message (did you mean ...?)`, the one line users read."""
        text = self.message
        if self.suggestions and "did you mean" not in text:
            text += "; did you mean " + " or ".join(f"'{s}'" for s in self.suggestions) + "?"
        if self.location.file is None and self.location.field is None:
            return text
        return f"{self.location}: {text}"

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "location": self.location.to_dict(),
            "suggestions": list(self.suggestions),
        }

    # -- the one error shape (docs/errors.md): RFC 9457 fields from the code's registry entry ----------------------
    @property
    def registered(self) -> ErrorCode:
        """This error's code in engine/error_codes.py: its kind, HTTP status and title."""
        return lookup(self.code)

    @property
    def kind(self) -> Kind:
        return self.registered.kind

    @property
    def status(self) -> int:
        return self.registered.status

    def detail(self) -> str:
        """The problem's `detail`: the formatted line (an invalid layer: its summary; the items list each error)."""
        return self.formatted()

    def items(self) -> list[EngineError]:
        """The errors a problem's `errors[]` lists: this one (an invalid layer: each of its errors)."""
        return [self]

    def problem(self) -> dict[str, Any]:
        """RFC 9457 problem fields (`type`, `title`, `status`, `detail`) plus `code` and `errors[]`; REST adds `instance`."""
        entry = self.registered
        return {"type": entry.type_uri, "title": entry.title, "status": entry.status, "detail": self.detail(),
                "code": self.code, "errors": [item.to_dict() for item in self.items()]}

    def tool_error(self) -> dict[str, Any]:
        """The same fields as a tool's result (agent, MCP): `error` is the detail a model reads and acts on, and
        the one error's `location` and `suggestions` stand beside it (when there are any)."""
        entry = self.registered
        out: dict[str, Any] = {"error": self.formatted(), "code": self.code, "type": entry.type_uri,
                               "title": entry.title, "status": entry.status}
        if self.location.to_dict():
            out["location"] = self.location.to_dict()
        if self.suggestions:
            out["suggestions"] = list(self.suggestions)
        return out


class LayerError(EngineError):
    """One problem in a semantic layer's YAML files."""

    code = "invalid_layer"


class LayerValidationError(EngineError):
    """All the problems of one database's layer, reported at once."""

    code = "layer_invalid"

    def __init__(self, database: str, errors: list[LayerError]) -> None:
        self.database = database
        self.errors = list(errors)
        super().__init__(f"semantic layer '{database}' has {len(self.errors)} error(s)")

    def detail(self) -> str:
        return self.message

    def items(self) -> list[EngineError]:
        return list(self.errors)

    def formatted(self) -> str:  # every error on its own line, as `smq validate` prints them
        return "\n".join(e.formatted() for e in self.errors)


class QueryError(EngineError):
    """The SMQ is wrong: unknown element, bad filter, ambiguous path..."""

    code = "invalid_query"


class InternalError(EngineError):
    """A bug in the engine, never the user's fault."""

    code = "internal_error"


def nearest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The closest valid names to a wrong one, best first (case-insensitive)."""
    pool = list(dict.fromkeys(candidates))
    by_lower: dict[str, str] = {}
    for c in pool:
        by_lower.setdefault(c.lower(), c)
    # an element named without its model ("revenue" -> "OrderItemsModel__revenue") first, then spelling
    tail = name.lower().split("__")[-1]
    hits = [k for k in by_lower if "__" in k and k.split("__")[-1] == tail and k != name.lower()][:n]
    for k in difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=0.6):
        if k not in hits and len(hits) < n:
            hits.append(k)
    return [by_lower[h] for h in hits]


@dataclass
class ErrorCollector:
    """Collects layer errors so that a whole layer is checked before reporting."""

    errors: list[LayerError] = field(default_factory=list)

    def add(self, message: str, location: Location, *, code: str = "invalid_layer", suggestions: Iterable[str] = ()) -> None:
        self.errors.append(LayerError(message, code=code, location=location, suggestions=suggestions))
