"""POST /v1/databases/{db}/explain: what the engine made of an SMQ, stage by stage, as data (engine/explain.py).

The resolved query (every name bound, every path chosen, every literal typed), the plan (its nodes) and the SQL, for
the caller's role: a BI developer or an agent sees why a query means what it does without running it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ..deps import DatabaseDep, StateDep
from .query import check_limit
from .schemas import ExplainRequest, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["smq"], responses=problem_responses(400, 401, 403, 404, 422, 503))


@router.post("/{db}/explain", summary="Explain an SMQ: the resolved query, the plan and the SQL, as data")
def explain_smq(body: ExplainRequest, database: DatabaseDep, state: StateDep) -> dict[str, Any]:
    check_limit(body.smq.get("limit"), state.settings.max_limit, "smq.limit")
    return database.layer.explain(body.smq, dialect=body.dialect, role=database.role)
