"""The databases a key may use, their models, and getModelDataElements."""

from __future__ import annotations

from fastapi import APIRouter

from ..deps import DatabaseDep, PrincipalDep, StateDep, may_use
from .schemas import (
    DatabaseDetail,
    DatabaseList,
    DatabaseSummary,
    ElementsRequest,
    ElementsResponse,
    ModelSummary,
    SavedQuerySummary,
    problem_responses,
)

router = APIRouter(prefix="/v1/databases", tags=["databases"], responses=problem_responses(401))


@router.get("", response_model=DatabaseList, summary="The databases this API key may use")
async def list_databases(state: StateDep, principal: PrincipalDep) -> DatabaseList:
    out = []
    for entry in state.registry.entries():
        if not may_use(principal, entry):
            continue
        layer = entry.layer
        out.append(DatabaseSummary(name=entry.name, status=entry.status, dialect=layer.dialect if layer else None,
                                   description=layer.description if layer else None))
    return DatabaseList(databases=out)


@router.get("/{db}", response_model=DatabaseDetail, summary="One database: dialect, status, models",
            responses=problem_responses(403, 404, 503))
async def get_database(database: DatabaseDep) -> DatabaseDetail:
    layer = database.layer
    return DatabaseDetail(
        name=database.name, status=database.entry.status, dialect=layer.dialect, description=layer.description,
        version=layer.version, backend=str(layer.semantic.connection.get("backend") or "") or None, role=database.role,
        models=[ModelSummary(**m) for m in layer.model_list()],
        saved_queries=[SavedQuerySummary(**q) for q in layer.saved_query_list(database.role)],
    )


@router.post("/{db}/elements", response_model=ElementsResponse, summary="getModelDataElements",
             responses=problem_responses(400, 403, 404, 422, 503))
async def elements(body: ElementsRequest, database: DatabaseDep) -> ElementsResponse:
    """Dimensions, measures and metrics of the named models (all when `models` is empty).

    The role's hidden elements are absent."""
    return ElementsResponse(**database.layer.elements(body.models or None, role=database.role),
                            saved_queries=[SavedQuerySummary(**q) for q in database.layer.saved_query_list(database.role)])
