"""The clarification pool: ask_user / drop_question, execute refused while a question is open, the
interactive `smq ask` (answers typed on stdin; end of input = nobody answers), and --no-clarify
(assumptions stated instead of questions)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import agent
import smq_cli.main as cli
from agent import AgentConfig, run_agent
from agent.clarify import CallbackAnswerer, NoAnswerer, QuestionPool, assumptions_in
from agent.providers.scripted import ScriptedProvider, call
from smq_cli.commands import agent_commands
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ

ASK = call("ask_user", "Do they mean the customer's country or the supplier's?", question="Customer country or supplier country?")
DROP = call("drop_question", "Nobody answers: assume the customer's.", question="Customer country or supplier country?",
            reason="the country is the customer's")
COMPILE = call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ)
FINAL = call("execute", "Rank them.", sql=FINAL_SQL)
MODEL_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SMQ_PROVIDER", "SMQ_MODEL",
              "SMQ_AGENT_CLARIFY")


# -- the pool itself ------------------------------------------------------------------------------------------
def test_pool_asks_answers_drops_and_refuses_while_open():
    pool = QuestionPool(NoAnswerer())
    result, outcome, _ = pool.call("ask_user", {"question": "Which year?"})
    assert outcome == "ok" and result["status"] == "open" and "drop_question" in result["note"]
    assert "Which year?" in pool.refusal()
    result, outcome, _ = pool.call("drop_question", {"question": "which year", "reason": "the latest year"})  # case, punctuation
    assert outcome == "ok" and result["status"] == "dropped" and pool.refusal() is None
    assert pool.assumptions() == ["the latest year (instead of asking: Which year?)"]
    assert pool.call("drop_question", {"question": "Which year?"})[1] == "error"  # a reason is required
    assert pool.call("drop_question", {"question": "Something else entirely", "reason": "x"})[1] == "error"
    assert pool.call("ask_user", {})[1] == "error"


def test_callback_answers_once_per_question_and_paraphrases_match():
    asked: list[str] = []
    pool = QuestionPool(CallbackAnswerer(lambda q: asked.append(q) or "2024"))
    result, _, _ = pool.call("ask_user", {"question": "Which year do you mean?"})
    assert result == {"question": "Which year do you mean?", "status": "answered", "answer": "2024"}
    assert pool.call("ask_user", {"question": "which year do you mean"})[2] == "asked again" and asked == ["Which year do you mean?"]
    assert pool.find("Which year did you mean?") is pool.questions[0]  # a close paraphrase
    assert pool.clarifications() == [{"question": "Which year do you mean?", "answer": "2024"}]


def test_execute_declares_optional_assumptions():
    from agent.loop import execute_spec
    from agent.tools import tool_specs

    spec = execute_spec(next(s for s in tool_specs() if s.name == "execute"))
    assert spec.parameters["required"] == ["sql"] and spec.parameters["properties"]["assumptions"]["type"] == "array"
    assert "assumptions" not in next(s for s in tool_specs() if s.name == "execute").parameters["properties"]  # MCP's stays


def test_assumption_lines_in_reasoning():
    text = "I will rank by orders.\nAssumption: cancelled orders count.\n- assuming: the year is 2024\nNo more."
    assert assumptions_in(text) == ["cancelled orders count.", "the year is 2024"]


# -- in a run ---------------------------------------------------------------------------------------------------
def run(layer, executor, script, tmp_path: Path, answerer: Any = None, **config: Any):
    provider = ScriptedProvider(script)
    config.setdefault("tips", False)
    config.setdefault("profile", False)
    result = run_agent(layer, executor, provider, QUESTION, AgentConfig(trace_dir=tmp_path / "traces", **config), answerer=answerer)
    return result, provider


def test_execute_is_refused_until_the_question_is_dropped(layer, executor, tmp_path, expected_top):
    result, provider = run(layer, executor, [ASK, COMPILE, FINAL, DROP, FINAL], tmp_path, clarify=True)
    assert result.status == "answered" and [r[:2] for r in result.rows] == expected_top
    assert [t.outcome for t in result.trace.turns] == ["ok", "ok", "refused", "ok", "answered"]
    refused = result.trace.turns[2].result["error"]
    assert "1 question(s) in the clarification pool are still open: 'Customer country or supplier country?'" in refused
    assert result.assumptions == ["the country is the customer's (instead of asking: Customer country or supplier country?)"]
    assert provider.requests[0]["tools"][-2:] == ["ask_user", "drop_question"]
    assert "Asking the user" in provider.requests[0]["system"]
    body = result.to_json()
    assert body["assumptions"] == result.assumptions and body["clarifications"] == []
    md = result.trace_path.read_text()
    assert "Clarification pool:" in md and "- [open] Customer country or supplier country?" in md
    assert "- [dropped] Customer country or supplier country?, assuming: the country is the customer's" in md
    assert "- assumptions:" in md
    data = json.loads(result.trace_path.with_suffix(".json").read_text())
    assert data["pool"][0]["status"] == "dropped" and data["turns"][0]["pool"][0]["status"] == "open"


def test_an_answer_comes_back_as_the_tool_result(layer, executor, tmp_path):
    answerer = CallbackAnswerer(lambda q: "the customer's")
    result, provider = run(layer, executor, [ASK, COMPILE, FINAL], tmp_path, answerer=answerer, clarify=True)
    assert result.status == "answered"
    seen = provider.requests[1]["messages"][-1]
    assert seen.role == "tool" and seen.result == {"question": "Customer country or supplier country?", "status": "answered",
                                                   "answer": "the customer's"}
    assert result.clarifications == [{"question": "Customer country or supplier country?", "answer": "the customer's"}]


def test_no_clarify_states_assumptions_instead(layer, executor, tmp_path):
    final = call("execute", "Rank them.\nAssumption: orders of all statuses count.", sql=FINAL_SQL,
                 assumptions=["the country is the customer's"])
    result, provider = run(layer, executor, [COMPILE, final], tmp_path, clarify=False)
    assert result.status == "answered"
    assert result.assumptions == ["orders of all statuses count.", "the country is the customer's"]
    assert "ask_user" not in provider.requests[0]["tools"] and "No one can answer questions" in provider.requests[0]["system"]
    result2, _ = run(layer, executor, [ASK, COMPILE, FINAL], tmp_path, clarify=False)
    assert "unknown tool 'ask_user'" in result2.trace.turns[0].result["error"]


# -- smq ask ----------------------------------------------------------------------------------------------------
@pytest.fixture()
def wired(monkeypatch: pytest.MonkeyPatch) -> None:
    if not any(getattr(r, "__module__", "") == agent_commands.__name__ for r in cli.REGISTRARS + cli._optional_registrars()):
        monkeypatch.setattr(cli, "REGISTRARS", cli.REGISTRARS + [agent_commands.register])
    for var in MODEL_VARS:
        monkeypatch.delenv(var, raising=False)


def scripted(monkeypatch: pytest.MonkeyPatch, script: list) -> list[AgentConfig]:
    configs: list[AgentConfig] = []

    def make(config: AgentConfig) -> ScriptedProvider:
        configs.append(config)
        return ScriptedProvider(list(script))

    monkeypatch.setattr(agent, "make_provider", make)
    return configs


def ask(models: Path, tmp_path: Path, *extra: str) -> list[str]:
    return ["ask", "--models-dir", str(models), "--db", "shop", "--trace-dir", str(tmp_path), "--no-profile", *extra, QUESTION]


def test_interactive_answer_typed_on_stdin(wired, agent_models, tmp_path, capsys, monkeypatch):
    configs = scripted(monkeypatch, [ASK, COMPILE, FINAL])
    monkeypatch.setattr(sys, "stdin", io.StringIO("The customer's country\n"))
    assert cli.main(ask(agent_models, tmp_path, "--json")) == 0
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert configs[0].clarify is True  # on by default in smq ask
    assert "The agent asks: Customer country or supplier country?" in err
    assert body["clarifications"] == [{"question": "Customer country or supplier country?", "answer": "The customer's country"}]


def test_end_of_input_means_nobody_answers(wired, agent_models, tmp_path, capsys, monkeypatch):
    scripted(monkeypatch, [ASK, COMPILE, DROP, FINAL])
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cli.main(ask(agent_models, tmp_path)) == 0
    out, err = capsys.readouterr()
    assert "(no input: the agent will state its assumption instead)" in err
    assert "assumption: the country is the customer's (instead of asking: Customer country or supplier country?)" in err
    trace = next((tmp_path).glob("*.json"))
    first = json.loads(trace.read_text())["turns"][0]["result"]
    assert "no one can answer" in first["note"]


def test_no_clarify_flag_and_the_other_switches(wired, agent_models, tmp_path, capsys, monkeypatch):
    configs = scripted(monkeypatch, [COMPILE, FINAL])
    assert cli.main(ask(agent_models, tmp_path, "--no-clarify", "--no-tips", "--plans", "1", "--repair-rounds", "0")) == 0
    config = configs[0]
    assert (config.clarify, config.tips, config.profile, config.plans, config.repair_rounds) == (False, False, False, 1, 0)
    monkeypatch.setenv("SMQ_AGENT_CLARIFY", "0")  # the environment decides when no flag does
    configs = scripted(monkeypatch, [COMPILE, FINAL])
    assert cli.main(ask(agent_models, tmp_path)) == 0 and configs[0].clarify is False
    assert cli.main(ask(agent_models, tmp_path, "--plans", "99")) == 2
    assert "plans must be between 1 and 8" in capsys.readouterr().err


def test_switches_from_the_environment():
    config = AgentConfig.from_env({"SMQ_AGENT_TIPS": "off", "SMQ_AGENT_PROFILE": "auto", "SMQ_AGENT_CLARIFY": "yes",
                                   "SMQ_AGENT_PLANS": "3", "SMQ_AGENT_REPAIR_ROUNDS": "0"})
    assert (config.tips, config.profile, config.clarify, config.plans, config.repair_rounds) == (False, None, True, 3, 0)
    with pytest.raises(agent.AgentConfigError, match="SMQ_AGENT_TIPS must be on or off"):
        AgentConfig.from_env({"SMQ_AGENT_TIPS": "maybe"})
    with pytest.raises(agent.AgentConfigError, match="SMQ_AGENT_PLANS must be a whole number"):
        AgentConfig.from_env({"SMQ_AGENT_PLANS": "two"})
