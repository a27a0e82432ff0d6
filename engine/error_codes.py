"""Every stable error code in one table: code → kind (what went wrong, as a client acts on it) → HTTP status, and a title.

Errors are raised with a ``code`` at hundreds of sites (engine, executors, agent, service); this table is the one
place that says what each code means to a caller. The HTTP status derives from the kind (never listed per code), so
REST, MCP and the agent's tool results agree. Registering a new code is one ``_register`` line below; a test
(tests/engine/test_error_codes.py) scans the source for every code raised and fails on one that is missing here or
from docs/errors.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):  # noqa: UP042 - not StrEnum: str(Kind.x) stays 'Kind.x', as every caller reads it today
    """What kind of failure a code is; a client (or a model) decides what to do from this."""

    BAD_INPUT = "bad_input"  # the request, SMQ, SQL or layer is wrong: fix it and retry
    UNAUTHORIZED = "unauthorized"  # no or an unknown API key
    FORBIDDEN = "forbidden"  # allowed input, refused by a rule or a role
    NOT_FOUND = "not_found"  # no such database, route, tool or run
    NOT_ALLOWED = "not_allowed"  # the HTTP method is not supported on this route
    CONFLICT = "conflict"  # the state changed underneath the request
    TOO_LARGE = "too_large"  # the request or its answer exceeds a limit
    UNPROCESSABLE = "unprocessable"  # well-formed but unusable (the request body's shape)
    RATE_LIMITED = "rate_limited"  # too many requests: retry later
    INTERNAL = "internal"  # a bug: never the caller's fault
    UNAVAILABLE = "unavailable"  # a backend, a layer or a configuration is not usable right now
    TIMEOUT = "timeout"  # the work took longer than allowed


HTTP_STATUS: dict[Kind, int] = {
    Kind.BAD_INPUT: 400, Kind.UNAUTHORIZED: 401, Kind.FORBIDDEN: 403, Kind.NOT_FOUND: 404, Kind.NOT_ALLOWED: 405,
    Kind.CONFLICT: 409, Kind.TOO_LARGE: 413, Kind.UNPROCESSABLE: 422, Kind.RATE_LIMITED: 429, Kind.INTERNAL: 500,
    Kind.UNAVAILABLE: 503, Kind.TIMEOUT: 504,
}

PROBLEM_TYPE_BASE = "https://smq.dev/errors/"


@dataclass(frozen=True)
class ErrorCode:
    """One registered code: its kind, HTTP status and a short human title."""

    code: str
    kind: Kind
    title: str

    @property
    def status(self) -> int:
        return HTTP_STATUS[self.kind]

    @property
    def type_uri(self) -> str:
        """RFC 9457 `type`: a stable identifier per code (documented in docs/errors.md)."""
        return PROBLEM_TYPE_BASE + self.code


CODES: dict[str, ErrorCode] = {}


def _register(code: str, kind: Kind, title: str) -> None:
    if code in CODES:
        raise ValueError(f"error code '{code}' registered twice")
    CODES[code] = ErrorCode(code, kind, title)


K = Kind
# -- the engine: layers (smq validate) -------------------------------------------------------------------------------
_register("engine_error", K.BAD_INPUT, "The request failed")
_register("invalid_layer", K.BAD_INPUT, "The semantic layer is invalid")
_register("layer_invalid", K.UNAVAILABLE, "The semantic layer failed to load")
_register("yaml_syntax", K.BAD_INPUT, "A layer file is not valid YAML")
_register("yaml_duplicate_key", K.BAD_INPUT, "A key appears twice in a layer file")
_register("yaml_too_large", K.BAD_INPUT, "A layer file is larger than the loader reads")
_register("yaml_alias_limit", K.BAD_INPUT, "A layer file expands too many YAML aliases")
_register("file_unreadable", K.BAD_INPUT, "A file cannot be read")
_register("missing_file", K.BAD_INPUT, "A layer file or folder is missing")
_register("invalid_shape", K.BAD_INPUT, "A value has the wrong shape")
_register("unknown_key", K.BAD_INPUT, "Unknown key")
_register("missing_key", K.BAD_INPUT, "A required key is missing")
_register("invalid_name", K.BAD_INPUT, "Invalid name")
_register("unknown_dialect", K.BAD_INPUT, "Unknown SQL dialect")
_register("unknown_semantics", K.BAD_INPUT, "Unknown semantics (native or metricflow)")
_register("invalid_type", K.BAD_INPUT, "Invalid dimension type")
_register("invalid_aggregation", K.BAD_INPUT, "Invalid aggregation")
_register("invalid_expression", K.BAD_INPUT, "Invalid SQL expression")
_register("invalid_model", K.BAD_INPUT, "Invalid model")
_register("invalid_metric", K.BAD_INPUT, "Invalid metric")
_register("invalid_format", K.BAD_INPUT, "Invalid number format")
_register("invalid_join", K.BAD_INPUT, "Invalid join")
_register("invalid_filter", K.BAD_INPUT, "Invalid filter")
_register("invalid_literal", K.BAD_INPUT, "A filter value does not fit the element's type")
_register("duplicate_name", K.BAD_INPUT, "Duplicate name")
_register("unknown_model", K.BAD_INPUT, "Unknown model")
_register("unknown_element", K.BAD_INPUT, "Unknown element")
_register("unknown_saved_query", K.BAD_INPUT, "Unknown saved query")
_register("invalid_saved_query", K.BAD_INPUT, "Invalid saved query")
_register("metric_cycle", K.BAD_INPUT, "Metrics depend on each other in a loop")
_register("missing_time_spine", K.BAD_INPUT, "A cumulative metric needs a time spine")
_register("invalid_time_dimension", K.BAD_INPUT, "Invalid time dimension")
_register("unsupported_offset", K.BAD_INPUT, "This time offset is not supported")
_register("unsupported_filter", K.BAD_INPUT, "This metric filter is not supported here (e.g. on a conversion metric)")
_register("missing_primary_key", K.BAD_INPUT, "A model needs a primary key")
_register("unknown_table", K.BAD_INPUT, "Unknown table")
_register("unknown_column", K.BAD_INPUT, "Unknown column")
_register("invalid_rollup", K.BAD_INPUT, "Invalid rollup (rollups.yml)")
_register("unknown_backend", K.BAD_INPUT, "Unknown database backend")
_register("missing_connection", K.BAD_INPUT, "The database has no connection settings")
_register("database_file_missing", K.BAD_INPUT, "The database file does not exist")
# -- the engine: queries ------------------------------------------------------------------------------------------
_register("invalid_query", K.BAD_INPUT, "The query is invalid")
_register("invalid_json", K.BAD_INPUT, "The SMQ is not valid JSON")
_register("invalid_smq", K.BAD_INPUT, "The SMQ has the wrong shape")
_register("bad_arguments", K.BAD_INPUT, "The command's arguments do not fit together")
_register("dbt_unreadable", K.BAD_INPUT, "The dbt/MetricFlow definitions cannot be read")
_register("empty_query", K.BAD_INPUT, "The SMQ asks for nothing")
_register("duplicate_entry", K.BAD_INPUT, "An entry appears twice in the SMQ")
_register("unknown_grain", K.BAD_INPUT, "Unknown time grain")
_register("invalid_grain", K.BAD_INPUT, "A grain needs a date or timestamp dimension")
_register("unsupported_grain", K.BAD_INPUT, "This grain is not supported with this metric")
_register("not_a_dimension", K.BAD_INPUT, "group_by takes dimensions")
_register("not_a_metric", K.BAD_INPUT, "metrics takes measures and metrics")
_register("invalid_order_by", K.BAD_INPUT, "order_by names no output column")
_register("ambiguous_path", K.BAD_INPUT, "Ambiguous join path")
_register("unreachable_model", K.BAD_INPUT, "No join path reaches the model")
_register("unknown_join_key", K.BAD_INPUT, "Unknown join key")
_register("ambiguous_join_key", K.BAD_INPUT, "Ambiguous join key")
_register("invalid_path", K.BAD_INPUT, "Invalid join path")
_register("missing_time_dimension", K.BAD_INPUT, "A cumulative metric needs its time dimension")
_register("fan_out_without_primary_key", K.BAD_INPUT, "Measures would fan out")
_register("unknown_role", K.BAD_INPUT, "Unknown role")
_register("invalid_role", K.BAD_INPUT, "Invalid role")
_register("unsupported_dialect", K.BAD_INPUT, "Unsupported SQL dialect")
_register("unsupported_aggregation", K.BAD_INPUT, "The dialect has no such aggregate (e.g. a percentile on SQLite)")
_register("unknown_database", K.NOT_FOUND, "Unknown database")
_register("database_invalid", K.UNAVAILABLE, "The database's semantic layer failed to load")
_register("raw_sql_refused", K.FORBIDDEN, "The SQL is refused for this role")
_register("internal_error", K.INTERNAL, "Internal server error")
# -- raw SQL: executors and the read policy --------------------------------------------------------------------------
_register("not_read_only", K.BAD_INPUT, "Only one read-only query is allowed")
_register("sql_syntax", K.BAD_INPUT, "The SQL cannot be parsed")
_register("too_deeply_nested", K.BAD_INPUT, "The SQL or filter is nested too deeply")
_register("sql_too_long", K.TOO_LARGE, "The SQL text is longer than the limit")
_register("result_too_large", K.UNPROCESSABLE, "The result is larger than the byte cap; page it")
_register("resource_limit_exceeded", K.UNPROCESSABLE, "The query needs more memory than its database's limits allow")
_register("limit_too_large", K.UNPROCESSABLE, "The limit is larger than the service allows")
_register("execution_failed", K.BAD_INPUT, "The database rejected the query")
_register("not_a_table", K.BAD_INPUT, "A semantic model is not a table")
_register("catalog_refused", K.FORBIDDEN, "System catalogs are not available")
_register("sql_refused", K.FORBIDDEN, "The final SQL breaks a rule of the run")
_register("function_not_allowed", K.FORBIDDEN, "The function is not on the raw-SQL allow-list")
_register("table_function_refused", K.FORBIDDEN, "The table function is not on the raw-SQL allow-list")
_register("function_not_allowable", K.BAD_INPUT, "The function can never be allowed in raw SQL")
_register("backend_unavailable", K.UNAVAILABLE, "The database backend is unavailable")
_register("invalid_connection", K.UNAVAILABLE, "The database's connection settings are invalid")
_register("query_timeout", K.TIMEOUT, "The query timed out")
# -- tools (agent, REST, MCP) ---------------------------------------------------------------------------------------
_register("tool_error", K.BAD_INPUT, "The tool call is wrong")
_register("unknown_tool", K.NOT_FOUND, "Unknown tool")
_register("tool_disabled", K.FORBIDDEN, "The tool is switched off")
_register("tool_refused", K.FORBIDDEN, "The tool is not offered to this key")
_register("sandbox_unavailable", K.FORBIDDEN, "This host cannot isolate the python tool")
_register("sandbox_input_too_large", K.TOO_LARGE, "The python tool's code or data is too large")
_register("database_required", K.BAD_INPUT, "Say which database")
_register("smq_budget_exhausted", K.RATE_LIMITED, "The convertSmqToSql budget is used up")
# -- the agent, its evaluation and authoring --------------------------------------------------------------------------
_register("agent_not_configured", K.UNAVAILABLE, "No model is configured for the agent")
_register("invalid_agent_config", K.UNAVAILABLE, "The agent's model configuration is invalid")
_register("embeddings_unavailable", K.BAD_INPUT, "The requested embeddings are not available")
_register("eval_not_configured", K.UNAVAILABLE, "The evaluation is not configured")
_register("invalid_eval_input", K.BAD_INPUT, "The evaluation input is invalid")
_register("invalid_test", K.BAD_INPUT, "A model test is invalid")
_register("run_not_found", K.NOT_FOUND, "No such run is waiting for answers")
_register("unknown_question", K.UNPROCESSABLE, "Not an open question of the run")
# -- the service ---------------------------------------------------------------------------------------------------
_register("request_too_large", K.TOO_LARGE, "The request body is larger than the limit")
_register("too_many_requests", K.RATE_LIMITED, "Too many requests in flight for this key")
_register("service_error", K.BAD_INPUT, "The request failed")
_register("service_not_configured", K.UNAVAILABLE, "The service is not configured")
_register("unauthorized", K.UNAUTHORIZED, "Missing or invalid API key")
_register("forbidden", K.FORBIDDEN, "Forbidden")
_register("database_forbidden", K.FORBIDDEN, "This API key may not use this database")
_register("role_not_defined", K.FORBIDDEN, "This API key's role is not defined by this database")
_register("admin_required", K.FORBIDDEN, "This action needs an admin API key")
_register("cross_site_request", K.FORBIDDEN, "A page of another site may not send this request")
_register("not_found", K.NOT_FOUND, "Not found")
_register("method_not_allowed", K.NOT_ALLOWED, "Method not allowed")
_register("invalid_request", K.UNPROCESSABLE, "The request body is invalid")
del K


def lookup(code: str) -> ErrorCode:
    """The registered code, or (for a code nobody registered, which a test forbids) a bad_input/internal stand-in."""
    found = CODES.get(code)
    if found is not None:
        return found
    return ErrorCode(code, Kind.INTERNAL if code.startswith("internal") else Kind.BAD_INPUT, "The request failed")


def status_of(code: str) -> int:
    return lookup(code).status
