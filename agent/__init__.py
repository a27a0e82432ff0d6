"""The think-act agent of docs/agent.md (The three tools): it explores a database through its semantic layer with
getModelDataElements and convertSmqToSql, then composes its own SQL and ends with one execute.

    from agent import AgentConfig, run_agent, make_provider
    config = AgentConfig.from_env()
    result = run_agent(layer, executor, make_provider(config), "Revenue by country in 2024?", config)

(`agent.eval` is the separate Spider2 evaluation harness.)
"""

from .config import AgentConfig, AgentConfigError, AgentNotConfigured
from .loop import ANSWERED, ERROR, GAVE_UP, Agent, AgentResult, Hooks, run_agent
from .providers import make_provider

__all__ = ["ANSWERED", "ERROR", "GAVE_UP", "Agent", "AgentConfig", "AgentConfigError", "AgentNotConfigured",
           "AgentResult", "Hooks", "make_provider", "run_agent"]
