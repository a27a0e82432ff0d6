"""What the MCP server exposes and how one call runs: the same code as the agent and REST.

Every tool is declared in agent/tool_registry.py and runs through `agent.tools.Toolbox`, as in the agent's
loop (so `execute` keeps its guard: tables must have appeared in an earlier `convertSmqToSql` or
exploration result of the same MCP session). Each runs as the caller's role, resolved by the service's
own dependency (`service.deps.get_database`): the same keys, databases and roles as REST. A failed call's
result is the one error shape (`EngineError.tool_error()`, docs/errors.md).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agent.guards import RunGuards
from agent.providers.base import ToolCall, ToolSpec
from agent.sandbox import python_tool_offered, python_tool_refusal
from agent.tool_registry import EXPLORE_TOOLS, FAILED_OUTCOMES, PAPER_TOOLS, PYTHON, Offer, canonical, offered, specs
from agent.tools import Toolbox
from engine.access.readpolicy import policy_for
from engine.errors import QueryError
from engine.lru import LruCache

from ..auth import Principal
from ..deps import Database, ServiceState, executor_for, get_database, may_use

SESSION_BUDGET = 10_000  # convertSmqToSql calls per MCP session: a client session has no run budget
MAX_SESSIONS = 256


def explore_names(python_enabled: bool, role: str | None = None) -> tuple[str, ...]:
    """The exploration tools this server offers to a caller (each tool's availability predicate)."""
    return offered(EXPLORE_TOOLS, Offer(python_enabled=python_enabled, role=role))


def tool_names(python_enabled: bool) -> tuple[str, ...]:
    return PAPER_TOOLS + explore_names(python_enabled)


def declared_tools(python_enabled: bool, database_required: bool, databases: list[str]) -> list[ToolSpec]:
    """Every tool's declaration, each with a `database` argument (required when the server holds several)."""
    out = []
    for spec in specs(tool_names(python_enabled)):
        params = dict(spec.parameters)
        props = dict(params.get("properties", {}))
        props["database"] = {"type": "string", "description": "database name" + (f": one of {', '.join(databases)}"
                                                                                  if databases else "")}
        params["properties"] = props
        if database_required:
            params["required"] = list(params.get("required", [])) + ["database"]
        out.append(ToolSpec(spec.name, spec.description, params))
    return out


@dataclass
class _Session:
    guards: dict[str, RunGuards] = field(default_factory=dict)


class ToolRunner:
    """Runs tool calls for MCP sessions; per session and database it keeps the run guards of `execute`."""

    def __init__(self, state: ServiceState, *, default_db: str | None = None, python_enabled: bool = False) -> None:
        self.state = state
        self.default_db = default_db
        self.python_enabled = python_enabled
        self._sessions: LruCache[str, _Session] = LruCache(MAX_SESSIONS)
        self._lock = threading.Lock()

    def python_offered(self, principal: Principal) -> bool:
        """Whether to list the python tool for this caller (switched on, no role, an isolating host)."""
        return python_tool_offered(self.python_enabled, principal.role)

    def databases_for(self, principal: Principal) -> list[str]:
        names = [e.name for e in self.state.registry.entries() if may_use(principal, e)]
        return [self.default_db] if self.default_db in names else names

    async def resolve(self, principal: Principal, arguments: dict[str, Any]) -> Database:
        """The database a call names (or the only one / --db), as this principal may use it."""
        name = arguments.pop("database", None) or self.default_db
        if name is None:
            visible = self.databases_for(principal)
            if len(visible) != 1:
                raise QueryError(f"say which database: 'database' is one of {', '.join(visible) or '(none for this key)'}",
                                 code="database_required")
            name = visible[0]
        return await get_database(str(name), principal, self.state)

    def _guards(self, session: str, database: Database) -> RunGuards:
        with self._lock:
            entry = self._sessions.get_or_set(session, _Session)
            guards = entry.guards.get(database.name)
            if guards is None:
                guards = entry.guards[database.name] = RunGuards(database.layer.dialect, database.layer.models,
                                                                   SESSION_BUDGET, SESSION_BUDGET,
                                                                   policy=policy_for(database.layer.semantic))
            return guards

    def run(self, name: str, arguments: dict[str, Any], database: Database, session: str) -> tuple[dict[str, Any], bool]:
        """(result, is_error) of one call; blocking (run it in a worker thread)."""
        name = canonical(name)  # the old snake_case names (describe_table) still answer
        settings = self.state.settings
        refusal = python_tool_refusal(database.role) if name == PYTHON and self.python_enabled else None
        if refusal is not None:  # a key with a role, or a host that cannot isolate the code: say which
            return QueryError(refusal.message, code=refusal.code).tool_error(), True
        box = Toolbox(database.layer, executor_for(self.state, database), self._guards(session, database),
                      role=database.role, max_rows=settings.max_rows, query_timeout_s=settings.query_timeout_s,
                      extra_tools=explore_names(self.python_enabled, database.role))
        outcome = box.call(ToolCall(name, arguments))
        return outcome.result, outcome.outcome in FAILED_OUTCOMES
