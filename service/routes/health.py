"""Liveness and readiness: `/v1/health` (the process answers) and `/v1/ready` (what it serves).

`/v1/ready` needs no key so that load balancers and orchestrators can probe it. Anonymous callers
get the overall status and counts only; a caller that sends a key also gets, for each database it
may use, its status and the latest load's errors with file/line locations (layer internals are
not for strangers).
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

from fastapi import APIRouter, Response

from ..deps import OptionalPrincipalDep, StateDep, may_use
from .schemas import DatabaseReadiness, Health, Readiness, problem_responses

router = APIRouter(prefix="/v1", tags=["health"])


@cache  # reading package metadata costs more than the rest of /v1/health
def service_version() -> str:
    try:
        return metadata.version("smq-semantic-layer")
    except metadata.PackageNotFoundError:
        return "0.0.0"


@router.get("/health", response_model=Health, summary="Liveness: the process answers")
async def health() -> Health:
    return Health(version=service_version())


@router.get("/ready", response_model=Readiness, summary="Readiness: each database loaded, or its errors",
            responses={503: {"model": Readiness, "description": "no database can be served"}, **problem_responses(401)},
            openapi_extra={"security": [{}]})  # with or without a key: anonymous probes are answered too
async def ready(state: StateDep, principal: OptionalPrincipalDep, response: Response) -> Readiness:
    """200 while at least one database is served (`degraded` if some are stale/invalid), else 503."""
    entries = state.registry.entries()
    counts = {s: sum(1 for e in entries if e.status == s) for s in ("ok", "stale", "invalid")}
    serving = counts["ok"] + counts["stale"]
    if serving == 0:
        status = "not_ready"
    elif counts["stale"] or counts["invalid"] or state.keys_error:
        status = "degraded"
    else:
        status = "ready"
    response.status_code = 503 if status == "not_ready" else 200
    databases = None
    if principal is not None:
        databases = [
            DatabaseReadiness(
                name=e.name, status=e.status, version=e.layer.version if e.layer else None, loaded_at=e.loaded_at,
                error_count=len(e.errors.errors) if e.errors else 0,
                errors=state.registry.relative_errors(e.errors) if e.errors else None,
            )
            for e in entries if may_use(principal, e)
        ]
    keys_error = state.keys_error if principal is not None and principal.admin else None
    return Readiness(status=status, databases=databases, counts=counts, keys_error=keys_error)
