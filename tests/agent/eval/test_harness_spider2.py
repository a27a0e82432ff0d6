"""The harness end to end on real Spider 2.0-lite tasks: five instances whose SQLite databases are in
the shared data, answered through the agent loop (scripted model) or by oracle SQL, scored exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent import AgentConfig
from agent.eval.harness import EvalSpec, run_eval
from agent.eval.scorer import read_result_csv, score_submission
from smq_cli.main import main
from tests.agent.eval.fixtures import (
    EVAL,
    GOLD,
    IDS,
    MODELS,
    ORACLE,
    SELECT,
    SQLITE,
    TASKS,
    answering,
    answering_wrong,
    make_gold,
    make_sqlite_dir,
    requires_data,
    spider2_db_names,
)

pytestmark = requires_data


def spec(tmp_path: Path, **changes) -> EvalSpec:
    values = dict(tasks_file=TASKS, select=SELECT, out_dir=tmp_path / "out", workers=3, timeout_s=60,
                  models_dir=MODELS, sqlite_dir=make_sqlite_dir(tmp_path / "sqlite"),
                  agent_config=AgentConfig(trace_dir=None))
    values.update(changes)
    return EvalSpec(**values)


def test_the_five_tasks_use_chinook_and_northwind():
    assert spider2_db_names() == {"local054": "chinook", "local055": "chinook", "local198": "chinook",
                                  "local081": "northwind", "local085": "northwind"}


def test_agent_with_reference_sql_scores_five_of_five(tmp_path):
    summary = run_eval(spec(tmp_path), provider_factory=answering)
    assert summary.count("answered") == 5, summary.text()
    out = tmp_path / "out"
    for iid in IDS:
        assert (out / f"{iid}.sql").read_text().strip() == (ORACLE / f"{iid}.sql").read_text().strip()
        md = (out / f"{iid}.md").read_text()
        assert "## Turn 1: convertSmqToSql" in md and "## Turn 2: execute" in md and "status: **answered**" in md
        assert json.loads((out / f"{iid}.trace.json").read_text())["status"] == "answered"
    gold, eval_file = make_gold(tmp_path)
    report = score_submission(out, gold, eval_file)
    assert (report.correct, report.total) == (5, 5), [s.reason for s in report.instances]
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["mode"] == "agent" and manifest["summary"]["answered"] == 5
    record = manifest["instances"]["local054"]
    assert record["status"] == "answered" and record["backend"] == "sqlite" and record["db"] == "chinook"
    assert record["turns"] == 2 and record["tokens"]["total"] > 0 and record["seconds"] >= 0


def test_agent_with_wrong_answers_scores_zero(tmp_path):
    summary = run_eval(spec(tmp_path), provider_factory=answering_wrong)
    assert summary.count("answered") == 5
    gold, eval_file = make_gold(tmp_path)
    report = score_submission(tmp_path / "out", gold, eval_file)
    assert (report.correct, report.total) == (0, 5)


def test_oracle_mode_scores_five_of_five_without_model_or_layer(tmp_path):
    summary = run_eval(spec(tmp_path, models_dir=None, oracle_sql_dir=ORACLE, agent_config=None))
    assert summary.count("answered") == 5 and summary.mode == "oracle"
    gold, eval_file = make_gold(tmp_path)
    assert score_submission(tmp_path / "out", gold, eval_file).correct == 5
    note = (tmp_path / "out" / "local085.md").read_text()
    assert "# local085 (oracle SQL)" in note and "```sql" in note and "3 row(s)" in note
    # the CSV reads back as the reference CSV does
    ours, ref = read_result_csv(tmp_path / "out" / "local085.csv"), read_result_csv(ORACLE / "local085.csv")
    assert ours.values.tolist() == ref.values.tolist()


def test_sqlite_dir_expects_spider2_file_names(tmp_path):
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "Chinook.db").symlink_to(SQLITE / "chinook.sqlite")
    summary = run_eval(spec(tmp_path, sqlite_dir=odd, select="local054"), provider_factory=answering)
    (record,) = summary.records
    assert record.status == "error" and record.error == f"no SQLite file for database 'chinook': expected {odd}/chinook.sqlite"
    assert "**error**" in (tmp_path / "out" / "local054.md").read_text()
    assert not (tmp_path / "out" / "local054.csv").exists()


def test_missing_layer_fails_only_its_instances(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "chinook").symlink_to(MODELS / "chinook")
    summary = run_eval(spec(tmp_path, models_dir=models), provider_factory=answering)
    by_id = {r.instance_id: r for r in summary.records}
    assert {i for i, r in by_id.items() if r.status == "answered"} == {"local054", "local055", "local198"}
    assert "no semantic layer for database 'northwind'" in by_id["local081"].error


def test_cli_oracle_run_scores_selected(tmp_path, capsys):
    sqlite = make_sqlite_dir(tmp_path / "sqlite")
    out = tmp_path / "out"
    code = main(["eval", "run", "--tasks", str(TASKS), "--select", "local054-local055,local08*,local198", "--out", str(out),
                 "--sqlite-dir", str(sqlite), "--oracle-sql", str(ORACLE), "--workers", "2", "--quiet",
                 "--gold", str(GOLD), "--eval", str(EVAL)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "5 selected, 5 run, 0 skipped" in captured.out
    assert "execution accuracy: 100.00% (5/5)" in captured.out
    assert json.loads((out / "score.json").read_text())["correct"] == 5
    code = main(["eval", "score", "--submission", str(out), "--gold", str(GOLD), "--eval", str(make_gold(tmp_path)[1])])
    assert code == 0 and "execution accuracy: 100.00% (5/5)" in capsys.readouterr().out


def test_cli_without_model_exits_3_naming_the_variables(tmp_path, monkeypatch, capsys):
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SMQ_PROVIDER", "SMQ_MODEL"):
        monkeypatch.delenv(var, raising=False)
    code = main(["eval", "run", "--tasks", str(TASKS), "--select", "local054", "--out", str(tmp_path / "out"),
                 "--sqlite-dir", str(make_sqlite_dir(tmp_path / "sqlite")), "--models-dir", str(MODELS)])
    err = capsys.readouterr().err
    assert code == 3
    assert "GEMINI_API_KEY" in err and "OPENAI_BASE_URL" in err and "SMQ_MODEL" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv, message", [
    (["--select", "local54"], "unknown instance id(s) in the task file: local54 (did you mean"),
    (["--select", "local001-sf001"], "both ends of a range need the same prefix"),
    (["--select", "snow*"], "selects no task (id prefixes in this file: bq, ga, local, sf, sf_bq)"),
])
def test_cli_bad_selector_exits_2(tmp_path, capsys, argv, message):
    code = main(["eval", "run", "--tasks", str(TASKS), "--out", str(tmp_path / "out"), "--oracle-sql", str(ORACLE), *argv])
    assert code == 2
    assert message in capsys.readouterr().err


def test_cli_backend_without_connection_exits_3(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    code = main(["eval", "run", "--tasks", str(TASKS), "--select", "bq011,local054", "--out", str(tmp_path / "out"),
                 "--oracle-sql", str(ORACLE), "--models-dir", str(MODELS)])
    err = capsys.readouterr().err
    assert code == 3
    assert "1 bigquery instance(s) (bq011)" in err and "--bigquery-project" in err
    assert "sqlite" not in err  # local054: the chinook layer's own connection names a backend


def completion(tool: str, reasoning: str, arguments: dict, n: int) -> dict:
    """A chat.completions response with one tool call, as vLLM/Ollama/OpenAI send it."""
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": "qwen3-8b",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": reasoning,
                "tool_calls": [{"id": f"call-{n}", "type": "function",
                                "function": {"name": tool, "arguments": json.dumps(arguments)}}]}}],
            "usage": {"prompt_tokens": 1000 * n, "completion_tokens": 50, "total_tokens": 1000 * n + 50}}


def test_cli_runs_the_agent_over_an_openai_compatible_endpoint(tmp_path, monkeypatch, capsys):
    from tests.agent.eval.fixtures import COVER_SMQ, oracle_sql
    from tests.agent.fixtures.fake_http import FakeEndpoint, Reply

    replies = [Reply(completion("convertSmqToSql", "See the tables.", {"smq": COVER_SMQ["northwind"]}, 1)),
               Reply(completion("execute", "Answer.", {"sql": oracle_sql("local085")}, 2))]
    out = tmp_path / "out"
    with FakeEndpoint(replies) as fake:
        monkeypatch.setenv("SMQ_PROVIDER", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.setenv("SMQ_MODEL", "qwen3-8b")
        code = main(["eval", "run", "--tasks", str(TASKS), "--select", "local085", "--out", str(out), "--quiet",
                     "--sqlite-dir", str(make_sqlite_dir(tmp_path / "sqlite")), "--models-dir", str(MODELS),
                     "--gold", str(GOLD), "--eval", str(EVAL)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert len(fake.requests) == 2 and fake.requests[0].body["model"] == "qwen3-8b"
    assert "done (answered) 1" in captured.out and "execution accuracy: 100.00% (1/1)" in captured.out
    manifest = json.loads((out / "run.json").read_text())
    assert (manifest["provider"], manifest["model"]) == ("openai", "qwen3-8b")
    assert manifest["instances"]["local085"]["tokens"]["input"] == 3000
