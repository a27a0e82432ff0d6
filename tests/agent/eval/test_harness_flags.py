"""`smq eval run` passes the agent switches (tools, tips, profiling, voting, repair) to every instance."""

from __future__ import annotations

import argparse

from smq_cli.commands import eval_commands


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    eval_commands.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["eval", "run", "--tasks", "t.jsonl", "--select", "all", "--out", "o", *argv])


def test_switches_reach_the_agent_config(monkeypatch) -> None:
    for name in ("SMQ_AGENT_TIPS", "SMQ_AGENT_PROFILE", "SMQ_AGENT_CLARIFY", "SMQ_AGENT_PLANS", "SMQ_AGENT_TOOLS"):
        monkeypatch.delenv(name, raising=False)
    spec = eval_commands.build_spec(parse("--tools", "listModels,describeTable", "--no-tips", "--no-profile",
                                          "--plans", "3", "--repair-rounds", "0"))
    config = spec.agent_config
    assert config.tools == ("listModels", "describeTable")
    assert (config.tips, config.profile, config.plans, config.repair_rounds) == (False, False, 3, 0)
    assert config.clarify is False  # nobody answers questions during an evaluation


def test_defaults_keep_the_papers_three_tools(monkeypatch) -> None:
    monkeypatch.delenv("SMQ_AGENT_TOOLS", raising=False)
    monkeypatch.delenv("SMQ_AGENT_CLARIFY", raising=False)
    config = eval_commands.build_spec(parse()).agent_config
    assert config.tools == () and config.clarify is False
