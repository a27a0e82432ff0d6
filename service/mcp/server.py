"""`smq mcp`: an MCP server (official MCP Python SDK, low-level `Server`) over stdio or streamable HTTP.

Same keys and policies as REST: over stdio the caller is the key in `SMQ_API_KEY` (checked once at
start-up: a wrong key stops the server with exit code 3); over HTTP every request carries
`Authorization: Bearer <key>`, checked by an ASGI middleware before the MCP layer (401 problem
otherwise) and again per tool call to resolve the caller's databases and role. `--open` serves
without keys (local use): every caller is an unrestricted admin.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server

from engine.errors import EngineError

from ..auth import OPEN_PRINCIPAL, Principal
from ..deps import ServiceState, admit
from ..errors import Unauthorized
from ..limits import QUOTA_SCOPE_KEY, RETRY_AFTER_S, LimitsMiddleware, QuotaExceeded, check_tool_arguments, quota_slot
from ..routes.health import service_version
from .tools import ToolRunner, declared_tools

log = logging.getLogger("smq.mcp")

INSTRUCTIONS = ("A semantic layer over SQL databases. Explore models with listModels and getModelDataElements, compile "
                "SMQs with convertSmqToSql (the compiled SQL shows the physical tables and joins), explore tables with "
                "listTables/describeTable/getColValues, then answer with one read-only execute.")

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def build_server(state: ServiceState, *, default_db: str | None = None, python_enabled: bool = False,
                 stdio_principal: Principal | None = None) -> Server:
    """The MCP server; `stdio_principal` is the caller over stdio (None: HTTP, read per request)."""
    runner = ToolRunner(state, default_db=default_db, python_enabled=python_enabled)

    def principal_of(ctx: Any) -> Principal:
        if stdio_principal is not None:
            return stdio_principal
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        return state.authenticate(headers.get("authorization") if headers is not None else None)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        principal = principal_of(ctx)
        databases = runner.databases_for(principal)
        specs = declared_tools(runner.python_offered(principal), len(databases) > 1, databases)
        return types.ListToolsResult(tools=[types.Tool(name=s.name, description=s.description, input_schema=s.parameters)
                                            for s in specs])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        try:
            principal = principal_of(ctx)
            check_tool_arguments(arguments, state.settings.max_sql_chars, state.settings.max_body_bytes)
            database = await runner.resolve(principal, arguments)
            request = getattr(ctx, "request", None)
            session = (request.headers.get("mcp-session-id") if request is not None else None) or "stdio"
            assert state.quota is not None
            held = request is not None and getattr(request, "scope", {}).get(QUOTA_SCOPE_KEY) is not None
            async with contextlib.nullcontext() if held else quota_slot(state.quota, principal.name):
                # over HTTP the request holds the key's slot (BearerGate); over stdio the call takes one
                result, is_error = await anyio.to_thread.run_sync(runner.run, params.name, arguments, database, session)
        except EngineError as err:
            result, is_error = err.tool_error(), True
        text = json.dumps(result, default=str, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=result, is_error=is_error)

    return Server("smq", version=service_version(), instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


def stdio_principal(state: ServiceState, environ: MutableMapping[str, str] | None = None) -> Principal:
    """The stdio caller: open access, or the key in SMQ_API_KEY (raises Unauthorized)."""
    if state.keys is None:
        return OPEN_PRINCIPAL
    key = (environ if environ is not None else os.environ).get("SMQ_API_KEY", "").strip()
    if not key:
        raise Unauthorized("set SMQ_API_KEY to an API key from the keys file (the MCP client's `env`)")
    return state.authenticate(f"Bearer {key}")


async def serve_stdio(server: Server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class BearerGate:
    """ASGI middleware: every HTTP request is admitted as a REST request is (`service.deps.admit`: a valid key or
    a 401 problem, one of the key's quota slots or a 429), before any MCP work. A POST (a JSON-RPC message: a
    tool call, tools/list) holds the slot until its response is sent (LimitsMiddleware gives it back); the GET
    stream of server notifications and the DELETE of a session are authenticated but hold none, as they run
    no query and the stream lives as long as the session."""

    def __init__(self, app: ASGIApp, state: ServiceState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            try:
                if scope.get("method") == "POST":
                    await admit(self.state, headers.get("authorization"), scope)
                elif self.state.keys is not None:
                    self.state.authenticate(headers.get("authorization"))
            except (Unauthorized, QuotaExceeded) as err:
                await _refuse(scope, send, err)
                return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, send: Any, err: Unauthorized | QuotaExceeded) -> None:
    problem = {k: v for k, v in err.problem().items() if k != "errors"}
    status = 401 if isinstance(err, Unauthorized) else 429
    body = json.dumps({**problem, "status": status, "detail": err.message, "instance": scope.get("path", "")}).encode()
    extra = [(b"www-authenticate", b"Bearer")] if status == 401 else [(b"retry-after", str(RETRY_AFTER_S).encode())]
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/problem+json"), *extra]})
    await send({"type": "http.response.body", "body": body})


def http_app(server: Server, state: ServiceState, *, host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP ASGI app at /mcp, behind the key check and the key's quota."""
    return LimitsMiddleware(BearerGate(server.streamable_http_app(host=host), state), state.settings.max_body_bytes,
                            quota=state.quota)
