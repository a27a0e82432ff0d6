"""The real google-genai client against a fake Gemini endpoint on 127.0.0.1, replaying recorded
generateContent responses in Gemini's wire format (functionCall parts, thoughtSignature, usageMetadata)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

pytest.importorskip("google.genai")

from agent import AgentConfig, Hooks, make_provider, run_agent  # noqa: E402
from tests.agent.fixtures import QUESTION, TOP_SMQ, recorded  # noqa: E402
from tests.agent.fixtures.fake_http import FakeEndpoint, Reply  # noqa: E402

TOOLS = ["getModelDataElements", "convertSmqToSql", "execute"]


def gemini_config(url: str, tmp_path: Path, **changes) -> AgentConfig:
    return AgentConfig(provider="gemini", model="gemini-2.5-flash", gemini_api_key="test-gemini-key",
                       gemini_base_url=url, trace_dir=tmp_path, **changes)


def test_full_run_through_the_sdk(layer, executor, expected_top, tmp_path):
    replies = [Reply(body) for body in recorded("gemini_run.json")]
    with FakeEndpoint(replies) as fake:
        result = run_agent(layer, executor, make_provider(gemini_config(fake.url, tmp_path)), QUESTION,
                           gemini_config(fake.url, tmp_path))
    assert result.status == "answered", result.reason
    assert [r[:2] for r in result.rows] == expected_top and result.columns[-1] == "rank_by_orders"

    assert len(fake.requests) == 3
    first, second, third = (r for r in fake.requests)
    for request in fake.requests:
        assert request.path.endswith("/models/gemini-2.5-flash:generateContent")
        assert request.headers["x-goog-api-key"] == "test-gemini-key"
        declarations = request.body["tools"][0]["functionDeclarations"]
        assert [d["name"] for d in declarations] == TOOLS
        assert request.body["generationConfig"]["temperature"] == 0.1
        assert "convertSmqToSql" in request.body["systemInstruction"]["parts"][0]["text"]
    assert first.body["toolConfig"]["functionCallingConfig"]["mode"] == "AUTO"
    assert QUESTION in first.body["contents"][0]["parts"][0]["text"]

    # the model's turn is replayed verbatim (thought signature included), then the function response
    contents = second.body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    call_part = contents[1]["parts"][-1]
    assert call_part["functionCall"]["name"] == "getModelDataElements"
    assert call_part["thoughtSignature"] == "c2lnbmF0dXJlLTE="
    response = contents[2]["parts"][0]["functionResponse"]
    assert response["name"] == "getModelDataElements"
    assert [m["name"] for m in response["response"]["models"]] == ["OrdersModel", "NationsModel"]

    compiled = third.body["contents"][-1]["parts"][0]["functionResponse"]
    assert compiled["name"] == "convertSmqToSql"
    assert compiled["response"]["sql"] == layer.compile(TOP_SMQ)
    assert compiled["response"]["preview"]["rows"] == expected_top

    turns = result.trace.turns
    assert turns[0].reasoning.startswith("I will look") and turns[0].thoughts.startswith("The question needs")
    assert result.tokens["input"] == 1412 + 2380 + 3105 and result.tokens["thinking"] == 88 + 120 + 240
    assert result.tokens["turns"][0] == {"turn": 1, "input": 1412, "output": 31, "thinking": 88, "total": 1531}
    assert result.trace.model == "gemini-2.5-flash"


def test_rate_limit_retry_info_and_retry_after(layer, executor, tmp_path):
    runs = recorded("gemini_run.json")
    exhausted = {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                           "status": "RESOURCE_EXHAUSTED",
                           "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]}}
    unavailable = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    replies = [Reply(exhausted, 429), Reply(runs[0]), Reply(unavailable, 503, {"Retry-After": "3"}),
               Reply(runs[1]), Reply(runs[2])]
    sleeps: list[float] = []
    with FakeEndpoint(replies) as fake:
        config = gemini_config(fake.url, tmp_path)
        result = run_agent(layer, executor, make_provider(config), QUESTION, config,
                           hooks=Hooks(sleep=sleeps.append, rand=lambda: 0.0))
    assert result.status == "answered"
    assert sleeps == [7.0, 3.0] and len(fake.requests) == 5
    assert [t.retries for t in result.trace.turns] == [1, 1, 0]


def test_client_error_is_not_retried(layer, executor, tmp_path):
    invalid = {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}
    sleeps: list[float] = []
    with FakeEndpoint([Reply(invalid, 400)]) as fake:
        config = gemini_config(fake.url, tmp_path)
        result = run_agent(layer, executor, make_provider(config), QUESTION, config, hooks=Hooks(sleep=sleeps.append))
    assert result.status == "error" and "API key not valid" in result.reason and "400" in result.reason
    assert sleeps == [] and len(fake.requests) == 1


def test_thinking_settings_and_forced_calls_reach_the_wire(layer, executor, tmp_path):
    body = copy.deepcopy(recorded("gemini_run.json")[0])
    with FakeEndpoint([Reply(body)]) as fake:
        config = gemini_config(fake.url, tmp_path, thinking_budget=1024, max_output_tokens=4096, tool_choice="any",
                               max_turns=1)
        result = run_agent(layer, executor, make_provider(config), QUESTION, config)
    assert result.status == "gave_up"
    generation = fake.requests[0].body["generationConfig"]
    thinking = generation["thinkingConfig"]
    assert generation["maxOutputTokens"] == 4096
    assert (thinking.get("thinkingBudget", thinking.get("thinking_budget"))) == 1024
    assert fake.requests[0].body["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"


def test_malformed_function_call_is_reminded(layer, executor, tmp_path):
    runs = recorded("gemini_run.json")
    malformed = {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "MALFORMED_FUNCTION_CALL"}],
                 "usageMetadata": {"promptTokenCount": 1400, "totalTokenCount": 1400}}
    with FakeEndpoint([Reply(malformed)] + [Reply(b) for b in runs]) as fake:
        config = gemini_config(fake.url, tmp_path)
        result = run_agent(layer, executor, make_provider(config), QUESTION, config)
    assert result.status == "answered"
    assert "MALFORMED_FUNCTION_CALL" in result.trace.turns[0].summary
    retried = fake.requests[1].body["contents"]
    assert [c["role"] for c in retried] == ["user", "user"]  # the empty model turn is not replayed
    assert "exactly one tool call" in retried[-1]["parts"][0]["text"]


def test_thinking_level_and_no_thoughts_config():
    from google.genai import types

    from agent.providers.gemini import GeminiProvider

    provider = GeminiProvider(api_key="k", model="gemini-3-flash", thinking_level="low", include_thoughts=False)
    config = provider._config("system", [], 10.0)
    assert config.thinking_config.thinking_level == types.ThinkingLevel.LOW
    assert config.thinking_config.include_thoughts is None and config.http_options.timeout == 10_000
    plain = GeminiProvider(api_key="k", model="gemini-2.0-flash", include_thoughts=False)._config("s", [], None)
    assert plain.thinking_config is None  # models without thinking get no thinking config at all
