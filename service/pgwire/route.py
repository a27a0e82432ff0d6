"""`GET /v1/sql-api`: where the SQL API listens, for the playground's connection string and for tools."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from ..deps import PrincipalDep

router = APIRouter(prefix="/v1", tags=["databases"])


class SqlApiInfo(BaseModel):
    enabled: bool = Field(description="whether this server answers the PostgreSQL protocol (smq serve --pg-port)")
    host: str | None = Field(None, description="the host it listens on")
    port: int | None = Field(None, description="its port")
    password: str = Field(description="what to give as the password: an API key, or nothing with open access")


@router.get("/sql-api", response_model=SqlApiInfo, summary="Where the SQL API (PostgreSQL protocol) listens")
async def sql_api(request: Request, principal: PrincipalDep) -> SqlApiInfo:
    state = request.app.state.smq
    server = getattr(request.app.state, "pg_server", None)
    password = "none (open access)" if state.keys is None else "an API key"
    if server is None or server.server is None:
        return SqlApiInfo(enabled=False, host=None, port=None, password=password)
    return SqlApiInfo(enabled=True, host=state.settings.host, port=server.port, password=password)
