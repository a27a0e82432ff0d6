"""Task files (lite and snow shapes, positioned errors) and instance selectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.eval.selector import select_tasks
from agent.eval.tasks import EvalInputError, Task, load_tasks, question_text, read_external_knowledge

IDS = ["local001", "local002", "local009", "local010", "local054", "bq011", "bq100", "ga001", "sf_bq001", "sf_bq002", "sf001"]


def tasks(ids: list[str] = IDS) -> list[Task]:
    return [Task(i, "db", f"question {i}") for i in ids]


def chosen(selector: str) -> list[str]:
    return [t.instance_id for t in select_tasks(tasks(), selector)]


@pytest.mark.parametrize("selector, expected", [
    ("all", IDS),
    ("ALL", IDS),
    ("local054", ["local054"]),
    ("local054,bq011", ["local054", "bq011"]),
    ("bq011,local054", ["local054", "bq011"]),  # file order, not selector order
    ("local001-local009", ["local001", "local002", "local009"]),
    ("local9-local10", ["local009", "local010"]),  # numbers, not strings
    ("local*", ["local001", "local002", "local009", "local010", "local054"]),
    ("sf*", ["sf_bq001", "sf_bq002", "sf001"]),
    ("sf_bq*", ["sf_bq001", "sf_bq002"]),
    ("bq", ["bq011", "bq100"]),  # a bare prefix is the alphabetic prefix: not sf_bq
    ("sf", ["sf001"]),
    ("sf_bq", ["sf_bq001", "sf_bq002"]),
    ("local054, local*, local001-local002", ["local001", "local002", "local009", "local010", "local054"]),  # once each
    ("sf_bq001-sf_bq005,ga", ["ga001", "sf_bq001", "sf_bq002"]),
])
def test_selectors(selector, expected):
    assert chosen(selector) == expected


@pytest.mark.parametrize("selector, message", [
    ("local05", "unknown instance id(s) in the task file: local05 (did you mean"),
    ("local054,bq12", "bq12 (did you mean bq011"),
    ("local001-bq100", "both ends of a range need the same prefix ('local' vs 'bq')"),
    ("local010-local001", "the range runs backwards (10 > 1)"),
    ("local-local3", "'local' is not an id with a number"),
    ("local200-local300", "selector term 'local200-local300' selects no task"),
    ("snow", "selector term 'snow' selects no task (id prefixes in this file: bq, ga, local, sf, sf_bq)"),
    ("*", "use a prefix followed by one '*'"),
    ("local054,,bq011", "empty term"),
    ("", "empty selector"),
])
def test_selector_errors(selector, message):
    with pytest.raises(EvalInputError) as err:
        select_tasks(tasks(), selector)
    assert message in err.value.message


def test_unknown_ids_are_reported_together_with_suggestions():
    with pytest.raises(EvalInputError) as err:
        select_tasks(tasks(), "local055,bq010")
    assert "local055 (did you mean local054" in err.value.message and "bq010 (did you mean bq011" in err.value.message


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_lite_and_snow_shapes(tmp_path):
    lite = write(tmp_path / "lite.jsonl", [json.dumps({"instance_id": "local054", "db": "chinook", "question": "Q?",
                                                       "external_knowledge": None}), ""])
    snow = write(tmp_path / "snow.jsonl", [json.dumps({"instance_id": "sf_bq011", "db_id": "GA4", "instruction": "How many?",
                                                       "external_knowledge": "ga4.md"})])
    (task,) = load_tasks(lite)
    assert (task.instance_id, task.db, task.question, task.external_knowledge, task.line) == ("local054", "chinook", "Q?", None, 1)
    (task,) = load_tasks(snow)
    assert (task.instance_id, task.db, task.question, task.external_knowledge) == ("sf_bq011", "GA4", "How many?", "ga4.md")


@pytest.mark.parametrize("lines, message", [
    (['{"instance_id": "a1", "db": "x", "question": "q"}', '{"instance_id": "a2", "db": '], ":2: invalid JSON"),
    (['[1, 2]'], ":1: expected a JSON object, got list"),
    (['{"db": "x", "question": "q"}'], ":1: missing or empty 'instance_id'"),
    (['{"instance_id": "a1", "question": "q"}'], ":1: task a1 has no database ('db' or 'db_id')"),
    (['{"instance_id": "a1", "db": "x"}'], ":1: task a1 has no question ('question' or 'instruction')"),
    (['{"instance_id": "a1", "db": "x", "question": "q"}', "", '{"instance_id": "a1", "db": "y", "question": "q"}'],
     ":3: instance_id a1 repeats line 1"),
    ([""], "holds no tasks"),
])
def test_bad_task_files_name_file_and_line(tmp_path, lines, message):
    path = write(tmp_path / "tasks.jsonl", lines)
    with pytest.raises(EvalInputError) as err:
        load_tasks(path)
    assert err.value.message.startswith(str(path)) and message in err.value.message


def test_missing_task_file(tmp_path):
    with pytest.raises(EvalInputError, match="task file not found"):
        load_tasks(tmp_path / "nope.jsonl")


def test_external_knowledge_is_appended_to_the_question(tmp_path):
    (tmp_path / "fiscal.md").write_text("The fiscal year starts in April.")
    task = Task("bq001", "db", "Revenue per fiscal year?", "fiscal.md")
    knowledge = read_external_knowledge(task, tmp_path)
    assert question_text(task, knowledge) == ("Revenue per fiscal year?\n\nExternal knowledge (fiscal.md):\n\n"
                                              "The fiscal year starts in April.\n")
    assert read_external_knowledge(Task("bq002", "db", "q", "absent.md"), tmp_path) is None
    assert question_text(Task("bq003", "db", "q"), None) == "q"


def test_cli_names_the_bad_line_and_exits_2(tmp_path, capsys):
    from smq_cli.main import main

    path = write(tmp_path / "tasks.jsonl", ['{"instance_id": "local001", "db": "x", "question": "q"}', "{oops"])
    code = main(["eval", "run", "--tasks", str(path), "--select", "all", "--out", str(tmp_path / "out"),
                 "--oracle-sql", str(tmp_path)])
    assert code == 2
    assert f"{path}:2: invalid JSON" in capsys.readouterr().err


def test_cli_eval_without_action_prints_help(capsys):
    from smq_cli.main import main

    assert main(["eval"]) == 2
    err = capsys.readouterr().err
    assert "run" in err and "score" in err
