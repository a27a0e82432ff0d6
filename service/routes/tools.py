"""The exploration tools of spec section 7 over REST: `POST /v1/databases/{db}/tools/{name}`.

The body is the tool's JSON arguments (`{}` or none for `list_tables`); the answer is the tool's
JSON result. Same keys, databases and role as every other route (`DatabaseDep`); the tools apply the
role themselves (agent/explore.py). A wrong call is a 400 problem (`tool_error`, `unknown_table`,
`unknown_column`, ...), a refused one a 403 (`catalog_refused`, `raw_sql_refused`). The paper's three
tools have their own routes (`/elements`, `/compile`, `/execute`). `python` answers 403
`tool_disabled` unless the app enables it (`app.state.python_tool = True` or `SMQ_PYTHON_TOOL=1`).
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Request
from fastapi.responses import JSONResponse

from agent.explore import EXPLORE_TOOLS, PYTHON, ExploreLimits, Explorer, explore_tool_specs
from agent.tools import TOOL_NAMES

from ..deps import DatabaseDep, StateDep, executor_for
from ..errors import problem
from ..limits import check_tool_arguments
from .schemas import problem_responses

router = APIRouter(prefix="/v1/databases", tags=["tools"], responses=problem_responses(400, 401, 403, 404, 422, 503, 504))

PAPER_ROUTES = {"getModelDataElements": "elements", "convertSmqToSql": "compile", "execute": "execute"}


def python_enabled(request: Request) -> bool:
    flag = getattr(request.app.state, "python_tool", None)
    if flag is not None:
        return bool(flag)
    return os.environ.get("SMQ_PYTHON_TOOL", "").strip().lower() in ("1", "true", "yes", "on")


@router.get("/{db}/tools", summary="the exploration tools: names, descriptions and JSON schemas of their arguments")
async def list_tools(database: DatabaseDep, request: Request) -> dict[str, Any]:
    names = [t for t in EXPLORE_TOOLS if t != PYTHON or python_enabled(request)]
    return {"tools": [{"name": s.name, "description": s.description, "parameters": s.parameters}
                      for s in explore_tool_specs(names)]}


@router.post("/{db}/tools/{name}", summary="run one exploration tool (listModels, list_tables, describe_table, ...)")
def run_tool(name: Annotated[str, Path(description="tool name, e.g. describe_table")], database: DatabaseDep,
             state: StateDep, request: Request,
             arguments: Annotated[dict[str, Any] | None, Body(examples=[{"table": "orders"}])] = None) -> Any:
    if name in TOOL_NAMES:
        return problem(404, "unknown_tool", f"{name} has its own route: POST /v1/databases/{database.name}/"
                       f"{PAPER_ROUTES[name]}", request.url.path)
    if name not in EXPLORE_TOOLS:
        from engine.errors import nearest

        return problem(404, "unknown_tool", f"unknown tool '{name}'", request.url.path,
                       errors=[{"code": "unknown_tool", "message": f"unknown tool '{name}'", "location": {},
                                "suggestions": nearest(name, EXPLORE_TOOLS)}])
    enabled = python_enabled(request)
    if name == PYTHON and not enabled:
        return problem(403, "tool_disabled", "the python tool is off on this service (SMQ_PYTHON_TOOL=1 enables it)",
                       request.url.path)
    settings = state.settings
    check_tool_arguments(arguments or {}, settings.max_sql_chars, settings.max_body_bytes)
    limits = ExploreLimits(timeout_s=settings.query_timeout_s, python_enabled=enabled)
    explorer = Explorer(database.layer, executor_for(state, database), role=database.role, limits=limits)
    return JSONResponse(explorer.call(name, arguments or {}))
