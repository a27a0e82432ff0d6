"""`smq ask`: exit codes, the human output and --json, with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agent
import smq_cli.main as cli
from agent.providers.scripted import ScriptedProvider, call
from smq_cli.commands import agent_commands
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ

SCRIPT = [call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ), call("execute", "Rank them.", sql=FINAL_SQL)]
MODEL_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SMQ_PROVIDER", "SMQ_MODEL")


@pytest.fixture(autouse=True)
def wired(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register `ask` even before the lead adds the module to smq_cli.main's optional registrars."""
    if not any(getattr(r, "__module__", "") == agent_commands.__name__ for r in cli.REGISTRARS + cli._optional_registrars()):
        monkeypatch.setattr(cli, "REGISTRARS", cli.REGISTRARS + [agent_commands.register])
    for var in MODEL_VARS:
        monkeypatch.delenv(var, raising=False)


def scripted(monkeypatch: pytest.MonkeyPatch, script: list) -> None:
    monkeypatch.setattr(agent, "make_provider", lambda config: ScriptedProvider(list(script)))


def ask(agent_models: Path, tmp_path: Path, *extra: str) -> list[str]:
    return ["ask", "--models-dir", str(agent_models), "--db", "shop", "--trace-dir", str(tmp_path), *extra, QUESTION]


def test_not_configured_exits_3_naming_the_variables(agent_models, tmp_path, capsys):
    assert cli.main(ask(agent_models, tmp_path)) == 3
    err = capsys.readouterr().err
    assert "GEMINI_API_KEY" in err and "OPENAI_BASE_URL" in err and "SMQ_PROVIDER" in err


def test_bad_input_exits_2(agent_models, tmp_path, capsys, monkeypatch):
    scripted(monkeypatch, SCRIPT)
    assert cli.main(["ask", "--models-dir", str(agent_models), "--db", "shpo", QUESTION]) == 2
    assert "did you mean 'shop'" in capsys.readouterr().err
    assert cli.main(ask(agent_models, tmp_path, "--role", "ceo")) == 2
    monkeypatch.setenv("SMQ_TEMPERATURE", "hot")
    assert cli.main(ask(agent_models, tmp_path)) == 2


def test_json_output(agent_models, tmp_path, capsys, monkeypatch, expected_top):
    scripted(monkeypatch, SCRIPT)
    assert cli.main(ask(agent_models, tmp_path, "--json")) == 0
    body = json.loads(capsys.readouterr().out)
    assert set(body) >= {"status", "sql", "columns", "rows", "trace", "tokens"}
    assert body["status"] == "answered" and body["sql"] == FINAL_SQL and [r[:2] for r in body["rows"]] == expected_top
    assert Path(body["trace"]).exists() and Path(body["trace"]).with_suffix(".json").exists()


def test_human_output_prints_sql_table_and_trace(agent_models, tmp_path, capsys, monkeypatch, expected_top):
    scripted(monkeypatch, SCRIPT)
    assert cli.main(ask(agent_models, tmp_path, "--provider", "gemini", "--model", "gemini-test")) == 0
    out, err = capsys.readouterr()
    assert out.startswith("WITH per_country AS (") and "rank_by_orders" in out and expected_top[0][0] in out
    assert "(3 rows)" in out
    assert "turn 1: convertSmqToSql -> ok" in err and "trace: " in err and "answered in 2 turn(s)" in err


def test_no_answer_exits_1(agent_models, tmp_path, capsys, monkeypatch):
    scripted(monkeypatch, [SCRIPT[0]] * 3)
    assert cli.main(ask(agent_models, tmp_path, "--max-turns", "2")) == 1
    assert "no answer (gave_up)" in capsys.readouterr().err


def test_format_table_aligns_numbers_right():
    text = agent_commands.format_table(["country", "n"], [["Germany", 665], ["Chile", None]])
    assert text.splitlines()[2] == "Germany   665" and "NULL" in text and text.endswith("(2 rows)")
