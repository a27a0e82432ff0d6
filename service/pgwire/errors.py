"""Every failure as a PostgreSQL ErrorResponse: a SQLSTATE a client can branch on and a message a person can act on.

The SQL API's own refusals carry their SQLSTATE (engine/sql_api/errors.py). The engine's, the executors'
and the service's errors are mapped by their stable code; anything unexpected is logged with an id and
answered XX000 without internals, as REST answers 500.
"""

from __future__ import annotations

import logging
import uuid

from engine.errors import EngineError
from engine.sql_api.errors import SqlApiError

log = logging.getLogger("smq.pgwire")

# the engine's error codes (engine/error_codes.py) -> SQLSTATE
_BY_CODE = {
    "unknown_element": "42703", "unknown_model": "42P01", "unknown_database": "3D000", "database_forbidden": "3D000",
    "database_invalid": "3D000", "unauthorized": "28P01", "role_not_defined": "28000", "unknown_role": "28000",
    "query_timeout": "57014", "result_too_large": "54000", "too_many_requests": "53300", "sql_too_long": "54001",
    "limit_too_large": "54000", "too_deeply_nested": "54001", "backend_unavailable": "08006",
    "not_read_only": "25006", "sql_syntax": "42601", "execution_failed": "58000", "internal_error": "XX000",
    "ambiguous_path": "42702", "unreachable_model": "42P10", "invalid_filter": "42804", "not_a_dimension": "42803",
    "not_a_metric": "42803", "invalid_grain": "42804", "unknown_grain": "22023", "duplicate_entry": "42701",
    "empty_query": "42601", "unsupported_aggregation": "0A000",
}
CANCELED = "57014"
FAILED_TRANSACTION = "25P02"
PROTOCOL_VIOLATION = "08P01"


def fields(sqlstate: str, message: str, hint: str | None = None, severity: str = "ERROR",
           detail: str | None = None) -> dict[str, str]:
    out = {"S": severity, "V": severity, "C": sqlstate, "M": message}
    if detail:
        out["D"] = detail
    if hint:
        out["H"] = hint
    return out


def error_fields(error: BaseException) -> dict[str, str]:
    """The ErrorResponse fields of any exception raised while answering a statement."""
    if isinstance(error, SqlApiError):
        return fields(error.sqlstate, error.message, error.hint)
    if isinstance(error, EngineError):
        sqlstate = _BY_CODE.get(error.code) or ("42601" if error.code.startswith("invalid") else "XX000"
                                                 if error.status >= 500 else "22023")
        hint = None
        if error.suggestions:
            hint = "did you mean " + " or ".join(f'"{s}"' for s in error.suggestions) + "?"
        text = error.message if error.location.field is None else f"{error.location.field}: {error.message}"
        return fields(sqlstate, text, hint, detail=f"smq error code: {error.code}")
    if isinstance(error, RecursionError):
        return fields("54001", "the statement nests too deeply to be processed; write it with less nesting")
    error_id = uuid.uuid4().hex[:12]
    log.exception("unexpected error %s answering a PostgreSQL-protocol statement", error_id)
    return fields("XX000", f"internal error (id {error_id}); it was logged", hint="this is a bug of the server, not of the query")
