"""What the MCP server exposes and how one call runs: the same code as the agent and REST.

The paper's three tools run through `agent.tools.Toolbox` (so `execute` keeps its guard: tables must
have appeared in an earlier `convertSmqToSql` or exploration result of the same MCP session), the
exploration tools through `agent.explore.Explorer`. Each runs as the caller's role, resolved by the
service's own dependency (`service.deps.get_database`): the same keys, databases and roles as REST.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from agent.explore import EXPLORE_TOOLS, PYTHON, ExploreLimits, Explorer, explore_tool_specs
from agent.guards import RunGuards, bare_sql, table_key
from agent.providers.base import ToolCall, ToolSpec
from agent.tools import TOOL_NAMES, Toolbox, tool_specs
from engine.errors import EngineError, QueryError
from engine.readpolicy import policy_for

from ..auth import Principal
from ..deps import Database, ServiceState, executor_for, get_database, may_use

SESSION_BUDGET = 10_000  # convertSmqToSql calls per MCP session: a client session has no run budget
MAX_SESSIONS = 256


def tool_names(python_enabled: bool) -> tuple[str, ...]:
    return TOOL_NAMES + tuple(t for t in EXPLORE_TOOLS if t != PYTHON or python_enabled)


def declared_tools(python_enabled: bool, database_required: bool, databases: list[str]) -> list[ToolSpec]:
    """Every tool's declaration, each with a `database` argument (required when the server holds several)."""
    explore = [t for t in EXPLORE_TOOLS if t != PYTHON or python_enabled]
    out = []
    for spec in tool_specs() + explore_tool_specs(explore):
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
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()

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
            entry = self._sessions.get(session)
            if entry is None:
                entry = self._sessions[session] = _Session()
                while len(self._sessions) > MAX_SESSIONS:
                    self._sessions.popitem(last=False)
            self._sessions.move_to_end(session)
            guards = entry.guards.get(database.name)
            if guards is None:
                guards = entry.guards[database.name] = RunGuards(database.layer.dialect, database.layer.models,
                                                                   SESSION_BUDGET, SESSION_BUDGET,
                                                                   policy=policy_for(database.layer.semantic))
            return guards

    def run(self, name: str, arguments: dict[str, Any], database: Database, session: str) -> tuple[dict[str, Any], bool]:
        """(result, is_error) of one call; blocking (run it in a worker thread)."""
        settings = self.state.settings
        executor = executor_for(self.state, database)
        guards = self._guards(session, database)
        layer = database.layer
        if name in TOOL_NAMES:
            box = Toolbox(layer, executor, guards, role=database.role, max_rows=settings.max_rows,
                          query_timeout_s=settings.query_timeout_s)
            outcome = box.call(ToolCall(name, arguments))
            return outcome.result, outcome.outcome in ("error", "refused", "failed", "fatal")
        if name not in tool_names(self.python_enabled):
            raise QueryError(f"unknown tool '{name}'", code="unknown_tool")

        def seen(table: Any) -> None:
            guards.seen.setdefault(table_key(table), bare_sql(table, layer.dialect))

        limits = ExploreLimits(timeout_s=settings.query_timeout_s, python_enabled=self.python_enabled)
        explorer = Explorer(layer, executor, role=database.role, limits=limits, on_table=seen)
        try:
            return explorer.call(name, arguments), False
        except EngineError as err:
            return {"error": err.formatted(), "code": err.code}, True
