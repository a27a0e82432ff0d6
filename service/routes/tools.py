"""The exploration tools of docs/directives.md over REST: `POST /v1/databases/{db}/tools/{name}`.

The body is the tool's JSON arguments (`{}` or none for `listTables`); the answer is the tool's
JSON result. Same keys, databases and role as every other route (`DatabaseDep`); the tools apply the
role themselves (agent/explore.py). A wrong call is a 400 problem (`tool_error`, `unknown_table`,
`unknown_column`, ...), a refused one a 403 (`catalog_refused`, `raw_sql_refused`). The three core tools
tools have their own routes (`/elements`, `/compile`, `/execute`). `python` answers 403
`tool_disabled` unless the app enables it (`app.state.python_tool = True` or `SMQ_PYTHON_TOOL=1`).
Names, argument schemas and handlers are the ones declared in agent/tool_registry.py, as for the agent and MCP.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Request
from fastapi.responses import JSONResponse

from agent.explore import ExploreLimits, Explorer
from agent.sandbox import python_tool_refusal
from agent.tool_registry import EXPLORE_TOOLS, PAPER_TOOLS, PYTHON, Offer, canonical, offered, run_explore, specs, tool

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
    names = offered(EXPLORE_TOOLS, Offer(python_enabled=python_enabled(request), role=database.role))
    return {"tools": [{"name": s.name, "description": s.description, "parameters": s.parameters} for s in specs(names)]}


@router.post("/{db}/tools/{name}", summary="run one exploration tool (listModels, listTables, describeTable, ...)")
def run_tool(name: Annotated[str, Path(description="tool name, e.g. describeTable")], database: DatabaseDep,
             state: StateDep, request: Request,
             arguments: Annotated[dict[str, Any] | None, Body(examples=[{"table": "orders"}])] = None) -> Any:
    name = canonical(name)  # the old snake_case names (describe_table) still answer
    if name in PAPER_TOOLS:
        return problem(404, "unknown_tool", f"{name} has its own route: POST /v1/databases/{database.name}/"
                       f"{PAPER_ROUTES[name]}", request.url.path)
    enabled = python_enabled(request)
    if name == PYTHON and not enabled:
        return problem(403, "tool_disabled", "the python tool is off on this service (SMQ_PYTHON_TOOL=1 enables it)",
                       request.url.path)
    refusal = python_tool_refusal(database.role) if name == PYTHON else None
    if refusal is not None:  # a key with a role, or a host that cannot isolate the code
        return problem(403, refusal.code, refusal.message, request.url.path)
    if not tool(name, EXPLORE_TOOLS).available(Offer(python_enabled=enabled, role=database.role)):  # unknown: 404
        return problem(403, "tool_disabled", f"the {name} tool is not available on this service", request.url.path)
    settings = state.settings
    check_tool_arguments(arguments or {}, settings.max_sql_chars, settings.max_body_bytes)
    limits = ExploreLimits(timeout_s=settings.query_timeout_s, python_enabled=enabled)
    explorer = Explorer(database.layer, executor_for(state, database), role=database.role, limits=limits)
    return JSONResponse(run_explore(explorer, name, arguments or {}))
