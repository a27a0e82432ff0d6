"""The OpenAI-compatible provider (httpx) against a fake /v1/chat/completions on 127.0.0.1,
replaying recorded `tool_calls` responses as vLLM/Ollama/llama.cpp send them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from agent import AgentConfig, Hooks, make_provider, run_agent
from tests.agent.fixtures import QUESTION, TOP_SMQ, recorded
from tests.agent.fixtures.fake_http import FakeEndpoint, Reply

TOOLS = ["getModelDataElements", "convertSmqToSql", "execute"]


def openai_config(url: str, tmp_path: Path, **changes) -> AgentConfig:
    return AgentConfig(provider="openai", model="qwen3-8b", openai_base_url=url + "/v1", openai_api_key="sk-test",
                       trace_dir=tmp_path, **changes)


def test_full_run_over_chat_completions(layer, executor, expected_top, tmp_path):
    with FakeEndpoint([Reply(b) for b in recorded("openai_run.json")]) as fake:
        config = openai_config(fake.url, tmp_path)
        result = run_agent(layer, executor, make_provider(config), QUESTION, config)
    assert result.status == "answered", result.reason
    assert [r[:2] for r in result.rows] == expected_top

    assert len(fake.requests) == 3
    for request in fake.requests:
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer sk-test"
        body = request.body
        assert body["model"] == "qwen3-8b" and body["temperature"] == 0.1 and body["tool_choice"] == "auto"
        assert [t["function"]["name"] for t in body["tools"]] == TOOLS and body["tools"][0]["type"] == "function"
        assert body["messages"][0]["role"] == "system"
    messages = fake.requests[2].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["id"] == "chatcmpl-tool-1"
    assert json.loads(messages[2]["tool_calls"][0]["function"]["arguments"]) == {"models": ["OrdersModel", "NationsModel"]}
    assert messages[3]["tool_call_id"] == "chatcmpl-tool-1"
    compiled = json.loads(messages[5]["content"])
    assert compiled["sql"] == layer.compile(TOP_SMQ) and compiled["preview"]["rows"] == expected_top

    first = result.trace.turns[0]
    assert first.reasoning.startswith("I need the elements") and first.thoughts == "Orders per country."
    assert first.usage.input == 1390 and first.usage.output == 35 and first.usage.thinking == 25
    assert result.tokens["total"] == 1390 + 60 + 2301 + 90 + 3050 + 210


def test_invalid_argument_json_is_sent_back_to_the_model(layer, executor, tmp_path):
    runs = recorded("openai_run.json")
    broken = copy.deepcopy(runs[1])
    broken["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"smq": {"metrics": ['
    del broken["choices"][0]["message"]["tool_calls"][0]["id"]  # some servers send no id
    with FakeEndpoint([Reply(broken), Reply(runs[1]), Reply(runs[2])]) as fake:
        config = openai_config(fake.url, tmp_path)
        result = run_agent(layer, executor, make_provider(config), QUESTION, config)
    assert result.status == "answered"
    assert result.trace.turns[0].outcome == "error" and "invalid JSON" in result.trace.turns[0].result["error"]
    tool_message = fake.requests[1].body["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_0_0"
    assert "could not be read" in json.loads(tool_message["content"])["error"]


def test_429_with_retry_after_then_success(layer, executor, tmp_path):
    runs = recorded("openai_run.json")
    limited = Reply({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}, 429, {"Retry-After": "4"})
    replies = [limited, Reply(runs[0]), Reply({"error": "upstream"}, 502), Reply(runs[1]), Reply(runs[2])]
    sleeps: list[float] = []
    with FakeEndpoint(replies) as fake:
        config = openai_config(fake.url, tmp_path)
        result = run_agent(layer, executor, make_provider(config), QUESTION, config,
                           hooks=Hooks(sleep=sleeps.append, rand=lambda: 0.0))
    assert result.status == "answered" and sleeps == [4.0, 1.0] and len(fake.requests) == 5


def test_unreachable_endpoint_is_retried_then_an_error(layer, executor, tmp_path):
    sleeps: list[float] = []
    with FakeEndpoint([]) as fake:
        url = fake.url
    config = openai_config(url, tmp_path)  # the server is gone: connection refused
    result = run_agent(layer, executor, make_provider(config), QUESTION, config, hooks=Hooks(sleep=sleeps.append))
    assert result.status == "error" and "cannot reach" in result.reason and len(sleeps) == 4


def test_no_api_key_sends_no_authorization(layer, executor, tmp_path):
    runs = recorded("openai_run.json")
    with FakeEndpoint([Reply(b) for b in runs]) as fake:
        config = openai_config(fake.url, tmp_path).replace(openai_api_key=None, tool_choice="required")
        result = run_agent(layer, executor, make_provider(config), QUESTION, config)
    assert result.status == "answered"
    assert "authorization" not in fake.requests[0].headers and fake.requests[0].body["tool_choice"] == "required"
