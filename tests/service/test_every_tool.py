"""Every declared tool, called on every surface — the agent's loop, REST and MCP — with arguments generated from
the JSON schema that surface declares (pydantic-ai's TestModel idea, tests/service/tool_args.py).

A tool whose declaration and handler disagree (an argument named differently, a type or a constraint the handler
does not accept) fails here: on the loop and MCP the call comes back as an error, over REST as a problem. A
second test feeds random schema-valid arguments (a hypothesis strategy from the schema) to every REST tool:
whatever they are, the answer is a result or a domain problem (unknown table, bad SQL ...), never a 5xx and
never a complaint about the arguments' shape (`tool_error`), which would mean the schema admits what the
handler refuses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

from agent import AgentConfig, run_agent
from agent.providers.base import Message, ModelResponse, ToolCall, ToolSpec
from agent.tool_registry import EXPLORE_TOOLS, PAPER_TOOLS, TOOLS, Offer, offered
from engine import Layer
from service.app import create_app
from service.routes.tools import PAPER_ROUTES
from service.settings import Settings
from tests.agent.fixtures import agent_models, executor, layer  # noqa: F401 - fixtures
from tests.service.conftest import auth

from .tool_args import arguments, example_arguments

# What a sensible caller would pass for each argument name (used where it fits the declared schema).
VALUES: dict[str, Any] = {
    "models": ["OrdersModel"], "metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"],
    "filters": ["OrdersModel__status = 'completed'"], "order_by": ["-OrdersModel__orderCount"], "limit": 3,
    "sql": "SELECT channel, COUNT(*) AS n FROM orders GROUP BY channel", "table": "orders", "column": "channel",
    "terms": ["web"], "question": "How many orders were placed per channel?", "code": "print(6 * 7)",
    "reason": "the plan reads the question right", "assumptions": ["orders of every status count"], "database": "shop",
}
FAILING_SQL = "SELECT no_such_column FROM orders"  # makes the loop offer `replan`
ALL_EXPLORE = offered(EXPLORE_TOOLS, Offer(python_enabled=True))


# -- the loop ---------------------------------------------------------------------------------------------------------
class SchemaProvider:
    """A model that calls, each turn, the next declared tool it has not called yet, with arguments generated from
    the declaration it was sent; `execute` (which ends the run) last, after one failing execute that unlocks `replan`."""

    name, model = "schema", "schema"

    def __init__(self) -> None:
        self.called: list[str] = []
        self.declared: set[str] = set()

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec], *,
                 timeout_s: float | None = None) -> ModelResponse:
        self.declared |= {t.name for t in tools}
        by_name = {t.name: t for t in tools}
        pending = [t for t in tools if t.name not in self.called and t.name != "execute"]
        spec = pending[0] if pending else by_name["execute"]
        args = example_arguments(spec.parameters, VALUES)
        if spec.name == "execute" and "replan" not in self.declared:
            args["sql"] = FAILING_SQL
        self.called.append(spec.name)
        return ModelResponse("", (ToolCall(spec.name, args, id=None),))


def test_the_loop_calls_every_tool(layer: Layer, executor: Any, tmp_path: Path) -> None:  # noqa: F811
    provider = SchemaProvider()
    config = AgentConfig(tools=ALL_EXPLORE, clarify=True, repair_rounds=1, max_turns=40, trace_dir=tmp_path)
    result = run_agent(layer, executor, provider, "How many orders were placed per channel?", config)
    assert result.status == "answered", result.reason
    assert set(TOOLS) <= provider.declared and set(TOOLS) <= set(provider.called)
    for turn in result.trace.turns:
        expected = "failed" if turn.arguments.get("sql") == FAILING_SQL else ("answered" if turn.tool == "execute" else "ok")
        assert turn.outcome == expected, (turn.tool, turn.arguments, turn.result)


# -- REST -------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def api(models_dir: Path, keys_file: Path) -> Iterator[TestClient]:
    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, query_timeout_s=20))
    app.state.python_tool = True
    with TestClient(app) as client:
        yield client


def rest_path(name: str) -> str:
    """Where REST runs a tool: the three core tools have their own routes, the others `/tools/{name}`."""
    return f"/v1/databases/shop/{PAPER_ROUTES[name]}" if name in PAPER_ROUTES else f"/v1/databases/shop/tools/{name}"


def test_rest_lists_the_declared_schemas(api: TestClient) -> None:
    listed = api.get("/v1/databases/shop/tools", headers=auth("shop-key")).json()["tools"]
    assert [t["name"] for t in listed] == list(ALL_EXPLORE)
    assert all(t["parameters"] == TOOLS[t["name"]].schema() for t in listed)


@pytest.mark.parametrize("optional", [False, True], ids=["required", "all"])
@pytest.mark.parametrize("name", PAPER_TOOLS + ALL_EXPLORE)
def test_rest_runs_every_tool(api: TestClient, name: str, optional: bool) -> None:
    args = example_arguments(TOOLS[name].schema(), VALUES, optional=optional)
    r = api.post(rest_path(name), json=args, headers=auth("shop-key"))
    assert r.status_code == 200, (name, args, r.text)


@pytest.mark.parametrize("name", [n for n in ALL_EXPLORE if n != "python"])
def test_rest_tools_take_any_schema_valid_arguments(api: TestClient, name: str) -> None:
    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(args=arguments(TOOLS[name].schema()))
    def check(args: dict[str, Any]) -> None:
        r = api.post(rest_path(name), json=args, headers=auth("shop-key"))
        assert r.status_code < 500, (args, r.text)
        assert r.status_code == 200 or r.json()["code"] != "tool_error", (args, r.text)

    check()


# -- MCP --------------------------------------------------------------------------------------------------------------
def test_mcp_calls_every_tool(models_dir: Path, keys_file: Path) -> None:
    import json

    from mcp import Client

    from service.app import build_state
    from service.auth import OPEN_PRINCIPAL
    from service.mcp.server import build_server

    state = build_state(Settings(models_dir=models_dir, api_keys_file=keys_file, query_timeout_s=20))

    async def session() -> None:
        async with Client(build_server(state, python_enabled=True, stdio_principal=OPEN_PRINCIPAL)) as client:
            listed = (await client.list_tools()).tools
            assert [t.name for t in listed] == list(PAPER_TOOLS + ALL_EXPLORE)
            for optional in (False, True):
                for declared in listed:  # in declared order: convertSmqToSql shows execute its tables
                    args = example_arguments(declared.input_schema, VALUES, optional=optional)
                    result = await client.call_tool(declared.name, args)
                    body = json.loads(result.content[0].text)
                    assert not result.is_error, (declared.name, args, body)

    try:
        anyio.run(session)
    finally:
        state.registry.close()
