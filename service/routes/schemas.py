"""Request and response bodies of the v1 API: the contract clients code against, as shown in /docs."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from ..columns import ResultColumn
from .smq_schema import DEFAULT_MAX_LIMIT, SMQ_SCHEMA

SMQ_EXAMPLE = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"],
               "order_by": ["-OrdersModel__orderCount"]}
# `smq` is read as any object (the engine checks it, with precise errors); the document shows its schema
SmqBody = Annotated[dict[str, Any], WithJsonSchema({**SMQ_SCHEMA, "examples": [SMQ_EXAMPLE]})]


class Strict(BaseModel):
    """Request bodies refuse unknown keys and wrong types: a misspelt `limt` must not be silently
    ignored, nor `"preview": 0` or `"offset": "10"` be guessed into what the caller may have meant."""

    model_config = ConfigDict(extra="forbid", strict=True)


# -- errors ---------------------------------------------------------------------------------
class ProblemLocation(BaseModel):
    file: str | None = None
    line: int | None = None
    column: int | None = None
    field: str | None = None


class ProblemItem(BaseModel):
    code: str
    message: str
    location: ProblemLocation
    suggestions: list[str] = []


class Problem(BaseModel):
    """RFC 9457 problem details, the body of every error response (media type application/problem+json)."""

    type: str = Field(examples=["https://smq.dev/errors/unknown_element"])
    title: str
    status: int
    detail: str
    code: str
    errors: list[ProblemItem]
    instance: str


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries documenting the problem body for these statuses."""
    return {s: {"model": Problem, "content": {"application/problem+json": {}}} for s in statuses}


# -- health -----------------------------------------------------------------------------------
class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class DatabaseReadiness(BaseModel):
    name: str
    status: Literal["ok", "stale", "invalid"]
    version: str | None = None
    loaded_at: float | None = Field(None, description="unix time the served version was loaded")
    error_count: int = 0
    errors: list[ProblemItem] | None = Field(None, description="the latest load's errors (for a key that may use the database)")


class Readiness(BaseModel):
    status: Literal["ready", "degraded", "not_ready"]
    databases: list[DatabaseReadiness] | None = Field(None, description="per database (authenticated callers)")
    counts: dict[str, int] = Field(description="databases by status")
    keys_error: str | None = None


# -- databases --------------------------------------------------------------------------------
class DatabaseSummary(BaseModel):
    name: str
    status: Literal["ok", "stale", "invalid"]
    dialect: str | None
    description: str | None


class ModelSummary(BaseModel):
    name: str
    description: str


class SavedQuerySummary(BaseModel):
    name: str
    label: str
    description: str
    query: dict[str, Any] = Field(description="the SMQ it stands for; run it with {\"smq\": {\"saved_query\": NAME}}")


class DatabaseDetail(DatabaseSummary):
    version: str
    backend: str | None
    role: str | None = Field(None, description="the access role applied to this API key")
    models: list[ModelSummary]
    saved_queries: list[SavedQuerySummary] = Field(default_factory=list, description="saved_queries.yml: named SMQs")


class DatabaseList(BaseModel):
    databases: list[DatabaseSummary]


class ElementsRequest(Strict):
    models: list[str] = Field(default_factory=list, description="model names; empty: every model",
                              examples=[["OrdersModel", "CustomersModel"]])


class ElementsResponse(BaseModel):
    models: list[dict[str, Any]] = Field(description="per model: dimensions, measures and metrics with types and descriptions")
    saved_queries: list[SavedQuerySummary] = Field(default_factory=list, description="the database's saved queries (by name)")


# -- compile / query / execute ------------------------------------------------------------------
class CompileRequest(Strict):
    smq: SmqBody = Field(description="the SMQ: metrics, group_by, filters, order_by, limit")
    dialect: str | None = Field(None, description="SQL dialect of the output (default: the database's)")
    preview: bool = Field(True, description="run the query with LIMIT 5 and return the rows")


class ExplainRequest(Strict):
    smq: SmqBody = Field(description="the SMQ: metrics, group_by, filters, order_by, limit")
    dialect: str | None = Field(None, description="SQL dialect of the SQL shown (default: the database's)")


class Preview(BaseModel):
    columns: list[str]
    rows: list[list[Any]]


class CompileResponse(BaseModel):
    sql: str
    dialect: str
    preview: Preview | None = None
    preview_error: ProblemItem | None = Field(None, description="why the preview could not run (the SQL is still valid)")


class QueryRequest(Strict):
    smq: SmqBody = Field(description="the SMQ: metrics, group_by, filters, order_by, limit")
    limit: int | None = Field(None, ge=0, json_schema_extra={"maximum": DEFAULT_MAX_LIMIT},
                              description="page size (default and cap: the service's max rows); "
                                          "larger than SMQ_MAX_LIMIT (default 10^9): 422 limit_too_large")
    offset: int = Field(0, ge=0, description="rows to skip (order the SMQ for stable pages)")
    total: bool = Field(False, description="also count the rows of the whole answer (`total`; one more query)")


class Rows(BaseModel):
    sql: str = Field(description="the SQL as run on the database")
    columns: list[str]
    fields: list[ResultColumn] = Field(description="each column's name, semantic type, grain, database type and "
                                                   "element, in the order of `columns`")
    rows: list[list[Any]]
    row_count: int
    truncated: bool = Field(description="more rows exist than were returned")
    elapsed_ms: float


class QueryResponse(Rows):
    limit: int = Field(description="the page size applied")
    offset: int
    total: int | None = Field(None, description="rows of the whole answer (with `total=true`; else null)")


class ExecuteRequest(Strict):
    sql: str = Field(min_length=1, description="one read-only SELECT in the database's dialect",
                     examples=["SELECT status, COUNT(*) AS n FROM orders GROUP BY status"])


# -- admin --------------------------------------------------------------------------------------
class ReloadResponse(BaseModel):
    reloaded: list[str]
    unchanged: list[str]
    failed: dict[str, list[ProblemItem]] = Field(
        description="databases whose files fail validation (the last good version is served)")
    removed: list[str]
    keys_error: str | None = None
