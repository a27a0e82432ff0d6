"""The SQL API's refusals: a PostgreSQL SQLSTATE, a message that says what would be right, and a hint.

Kept apart from the engine's `EngineError` codes: a SQL client reads the SQLSTATE (42703, 0A000 ...),
and the listener maps the engine's own errors to one (service/pgwire/errors.py).
"""

from __future__ import annotations

from collections.abc import Iterable

# the SQLSTATEs the contract names (docs/sql-api.md), and the few others the translation uses
UNDEFINED_COLUMN = "42703"
UNDEFINED_TABLE = "42P01"
UNDEFINED_FUNCTION = "42883"
FEATURE_NOT_SUPPORTED = "0A000"
READ_ONLY_TRANSACTION = "25006"
INVALID_CATALOG_NAME = "3D000"
INVALID_PASSWORD = "28P01"
SYNTAX_ERROR = "42601"
GROUPING_ERROR = "42803"
DATATYPE_MISMATCH = "42804"
INVALID_PARAMETER_VALUE = "22023"
INVALID_TEXT_REPRESENTATION = "22P02"
UNDEFINED_PARAMETER = "42P02"
UNDEFINED_OBJECT = "42704"
AMBIGUOUS_COLUMN = "42702"
PROGRAM_LIMIT_EXCEEDED = "54000"


class SqlApiError(Exception):
    """A statement the SQL API refuses, with the SQLSTATE a PostgreSQL client expects."""

    def __init__(self, message: str, sqlstate: str = FEATURE_NOT_SUPPORTED, *, hint: str | None = None,
                 suggestions: Iterable[str] = ()) -> None:
        self.message = message
        self.sqlstate = sqlstate
        self.suggestions = tuple(suggestions)
        if hint is None and self.suggestions:
            hint = "did you mean " + " or ".join(f'"{s}"' for s in self.suggestions) + "?"
        self.hint = hint
        super().__init__(message if hint is None else f"{message} ({hint})")


def unsupported(message: str, hint: str | None = None) -> SqlApiError:
    return SqlApiError(message, FEATURE_NOT_SUPPORTED, hint=hint)
