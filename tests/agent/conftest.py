"""The agent tests' shared fixtures (tests/agent/fixtures): the demo layer copied for the agent, its executor and
the answer of the top-customers question. Here, so every test module gets them without importing them by name."""

from tests.agent.fixtures import agent_models, executor, expected_top, layer

__all__ = ["agent_models", "executor", "expected_top", "layer"]
