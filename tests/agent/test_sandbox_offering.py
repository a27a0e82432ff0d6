"""The agent offers the python tool only to runs without a role on a host that can isolate it; the tool is
handed the run's last readQuery rows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent import AgentConfig, run_agent
from agent.explore import ExploreLimits, Explorer, ToolError
from agent.providers.scripted import ScriptedProvider, call
from agent.sandbox import forget_isolation_status, offered_tools
from tests.agent.sandbox_support import need_sandbox

TOOLS = ("readQuery", "python")
SQL = "SELECT channel, COUNT(*) AS n FROM orders GROUP BY channel ORDER BY n DESC"


@pytest.fixture()
def no_bwrap(monkeypatch) -> Iterator[None]:
    monkeypatch.setenv("SMQ_SANDBOX_BWRAP", "/nonexistent/bwrap")
    forget_isolation_status()
    yield
    monkeypatch.delenv("SMQ_SANDBOX_BWRAP")
    forget_isolation_status()


def script() -> list:
    return [call("readQuery", "Counts.", sql=SQL),
            call("python", "Share of web.", code="import json\nd = json.load(open('data.json'))\n"
                 "print(round(d['rows'][0][1] / sum(r[1] for r in d['rows']), 3))"),
            call("execute", "Done.", sql=SQL)]


def test_a_run_with_a_role_is_not_offered_python(layer, executor):  # noqa: F811
    provider = ScriptedProvider(script())
    result = run_agent(layer, executor, provider, "Orders per channel?", AgentConfig(trace_dir=None, tools=TOOLS),
                       role="de_analyst")
    assert "python" not in provider.requests[0]["tools"] and "readQuery" in provider.requests[0]["tools"]
    assert result.trace.turns[1].outcome == "error" and "unknown tool" in result.trace.turns[1].result["error"]


def test_a_run_without_isolation_is_not_offered_python(layer, executor, no_bwrap):  # noqa: F811
    assert offered_tools(TOOLS, None) == ("readQuery",)
    provider = ScriptedProvider(script())
    run_agent(layer, executor, provider, "Orders per channel?", AgentConfig(trace_dir=None, tools=TOOLS))
    assert "python" not in provider.requests[0]["tools"]


def test_a_run_without_a_role_gets_python_over_its_last_rows(layer, executor):  # noqa: F811
    need_sandbox()
    provider = ScriptedProvider(script())
    result = run_agent(layer, executor, provider, "Orders per channel?", AgentConfig(trace_dir=None, tools=TOOLS))
    assert "python" in provider.requests[0]["tools"]
    turn = result.trace.turns[1]
    assert turn.outcome == "ok" and turn.result["exit_code"] == 0, turn.result
    web = result.rows[0][1] / sum(r[1] for r in result.rows)
    assert turn.result["stdout"] == f"{round(web, 3)}\n"


def test_the_explorer_refuses_python_to_a_role(layer, executor):  # noqa: F811
    explorer = Explorer(layer, executor, role="de_analyst", limits=ExploreLimits(python_enabled=True))
    with pytest.raises(ToolError) as err:
        explorer.call("python", {"code": "print(1)"})
    assert err.value.code == "tool_refused"


def test_the_explorer_refuses_python_without_isolation(layer, executor, no_bwrap):  # noqa: F811
    explorer = Explorer(layer, executor, limits=ExploreLimits(python_enabled=True))
    with pytest.raises(ToolError) as err:
        explorer.call("python", {"code": "print(1)"})
    assert err.value.code == "sandbox_unavailable" and "bubblewrap" in err.value.message
