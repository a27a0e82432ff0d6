"""The agent's environment is read by pydantic-settings (AgentEnv): the process environment by default, a given
mapping only when one is passed, and never by building an AgentConfig directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import AgentConfig, AgentConfigError
from agent.config import AgentEnv


def test_the_process_environment_is_read_when_no_mapping_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "from-process")
    monkeypatch.setenv("SMQ_AGENT_PLANS", "2")
    monkeypatch.setenv("SMQ_TRACE_DIR", "")  # empty: unset, the default stays
    config = AgentConfig.from_env()
    assert (config.gemini_api_key, config.plans, config.trace_dir) == ("from-process", 2, Path("traces"))
    assert AgentConfig.from_env({}).gemini_api_key is None  # a given mapping replaces the process environment
    assert AgentConfig().gemini_api_key is None and AgentConfig().plans == 1  # building one reads nothing


def test_gemini_api_key_wins_over_google_api_key() -> None:
    assert AgentEnv.read({"GEMINI_API_KEY": "g1", "GOOGLE_API_KEY": "g2"}).gemini_api_key == "g1"
    assert AgentEnv.read({"GEMINI_API_KEY": "", "GOOGLE_API_KEY": "g2"}).gemini_api_key == "g2"


def test_a_bad_value_names_its_variable_as_the_location() -> None:
    with pytest.raises(AgentConfigError) as err:
        AgentConfig.from_env({"SMQ_AGENT_REPAIR_ROUNDS": "three", "SMQ_AGENT_CLARIFY": "perhaps"})
    # the first bad variable in the table's order is reported
    assert err.value.message == "SMQ_AGENT_CLARIFY must be on or off (1/0, true/false), got 'perhaps'"
    assert err.value.location.field == "SMQ_AGENT_CLARIFY" and err.value.code == "invalid_agent_config"
