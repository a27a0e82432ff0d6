"""Configuration from the environment and flags; a clear message when no model is configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import AgentConfig, AgentConfigError, AgentNotConfigured, make_provider
from agent.providers.openai_compat import OpenAICompatProvider, chat_completions_url


def test_defaults_to_gemini_and_names_the_variables_when_unconfigured():
    config = AgentConfig.from_env({})
    assert config.provider == "gemini" and config.temperature == 0.1 and config.max_turns == 30
    with pytest.raises(AgentNotConfigured) as err:
        make_provider(config)
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "SMQ_PROVIDER", "SMQ_MODEL"):
        assert name in err.value.message


def test_environment_and_flags():
    env = {"SMQ_PROVIDER": "gemini", "SMQ_MODEL": "gemini-x", "GOOGLE_API_KEY": "g", "SMQ_TEMPERATURE": "0.3",
           "SMQ_THINKING_LEVEL": "low", "SMQ_THINKING_BUDGET": "512", "SMQ_MAX_OUTPUT_TOKENS": "2048",
           "SMQ_AGENT_MAX_TURNS": "12", "SMQ_AGENT_TIMEOUT_S": "60", "SMQ_TRACE_DIR": "/tmp/t", "SMQ_INCLUDE_THOUGHTS": "0"}
    config = AgentConfig.from_env(env)
    assert (config.model_name, config.gemini_api_key, config.temperature, config.thinking_level, config.thinking_budget,
            config.max_output_tokens, config.max_turns, config.run_timeout_s, config.trace_dir, config.include_thoughts) == (
        "gemini-x", "g", 0.3, "low", 512, 2048, 12, 60.0, Path("/tmp/t"), False)
    flagged = AgentConfig.from_env(env, provider="OPENAI", model="qwen3", trace_dir=None)
    assert flagged.provider == "openai" and flagged.model == "qwen3" and flagged.trace_dir == Path("/tmp/t")


def test_openai_is_picked_when_only_its_endpoint_is_set():
    config = AgentConfig.from_env({"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "SMQ_MODEL": "qwen3"})
    provider = make_provider(config)
    assert isinstance(provider, OpenAICompatProvider) and provider.url == "http://127.0.0.1:8000/v1/chat/completions"


def test_openai_needs_a_model_and_an_endpoint():
    with pytest.raises(AgentNotConfigured, match="SMQ_MODEL"):
        make_provider(AgentConfig.from_env({"SMQ_PROVIDER": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}))
    with pytest.raises(AgentNotConfigured, match="OPENAI_BASE_URL"):
        make_provider(AgentConfig.from_env({"SMQ_PROVIDER": "openai", "SMQ_MODEL": "m"}))
    hosted = AgentConfig.from_env({"SMQ_PROVIDER": "openai", "OPENAI_API_KEY": "k", "SMQ_MODEL": "m"})
    assert hosted.openai_base_url == "https://api.openai.com/v1"


@pytest.mark.parametrize("env, message", [
    ({"SMQ_PROVIDER": "claude"}, "unknown provider"),
    ({"SMQ_TEMPERATURE": "warm"}, "SMQ_TEMPERATURE must be a number"),
    ({"SMQ_AGENT_MAX_TURNS": "1.5"}, "whole number"),
    ({"SMQ_THINKING_LEVEL": "extreme"}, "SMQ_THINKING_LEVEL"),
])
def test_bad_values_are_input_errors(env, message):
    with pytest.raises(AgentConfigError, match=message):
        AgentConfig.from_env(env)


def test_chat_completions_url_forms():
    assert chat_completions_url("http://h:11434") == "http://h:11434/v1/chat/completions"
    assert chat_completions_url("http://h:8000/v1/") == "http://h:8000/v1/chat/completions"
    assert chat_completions_url("http://h/openai/v1/chat/completions") == "http://h/openai/v1/chat/completions"
