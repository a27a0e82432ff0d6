"""Operations: reload every layer (and the keys file) without a restart."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from ..browser_guards import require_json_request
from ..deps import AdminDep, StateDep
from .schemas import ReloadResponse, problem_responses

# state-changing: after the key's checks (401/403 first), only `Content-Type: application/json` (no simple cross-site request)
JsonRequestDep = Annotated[None, Depends(require_json_request)]

router = APIRouter(prefix="/v1", tags=["admin"], responses=problem_responses(401, 403, 503))


@router.post("/reload", response_model=ReloadResponse, summary="Reload every layer (admin)",
             responses=problem_responses(422))  # 422: not sent as application/json
def reload(state: StateDep, _admin: AdminDep, _json: JsonRequestDep) -> ReloadResponse:
    """A layer that now fails validation keeps serving its last good version; its errors are listed here and in /v1/ready.

    Send it with `Content-Type: application/json` (a body may be empty): no page of another site can then send it."""
    report, keys_error = state.reload()
    failed = {}
    for name in report.failed:
        entry = state.registry.entry(name)
        failed[name] = state.registry.relative_errors(entry.errors) if entry.errors else []
    return ReloadResponse(reloaded=report.reloaded, unchanged=report.unchanged, failed=failed, removed=report.removed,
                          keys_error=keys_error)
