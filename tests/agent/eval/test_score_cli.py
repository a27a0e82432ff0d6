"""``smq eval score`` options, output and error handling."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from agent.eval import score_cli


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="smq eval score")
    score_cli.add_arguments(parser)
    return parser.parse_args(list(argv))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = score_cli.run(parse(*argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    gold, sub = tmp_path / "gold", tmp_path / "sub"
    gold.mkdir()
    sub.mkdir()
    (gold / "local001.csv").write_text("v\n1\n")
    (gold / "bq002_a.csv").write_text("v\n2\n")
    (gold / "bq003.csv").write_text("v\n3\n")
    (sub / "local001.csv").write_text("v\n1\n")
    (sub / "bq002.csv").write_text("v\n2\n")
    (sub / "bq002.sql").write_text("select 2")
    eval_file = tmp_path / "eval.jsonl"
    eval_file.write_text("".join(
        json.dumps({"instance_id": i, "condition_cols": [], "ignore_order": True}) + "\n"
        for i in ["local001", "bq002", "bq003"]))
    return {"gold": gold, "sub": sub, "eval": eval_file, "tmp": tmp_path}


def test_prints_overall_and_per_prefix_accuracy(layout):
    code, out, err = run("--submission", str(layout["sub"]), "--gold", str(layout["gold"]),
                         "--eval", str(layout["eval"]))
    assert code == 0 and err == ""
    assert "execution accuracy: 66.67% (2/3)" in out
    assert any(line.split() == ["bq", "1", "2", "50.00%"] for line in out.splitlines())
    assert any(line.split() == ["local", "1", "1", "100.00%"] for line in out.splitlines())
    assert "1 task(s) had no prediction file" in out


def test_json_report(layout):
    report_path = layout["tmp"] / "report.json"
    code, _, _ = run("--submission", str(layout["sub"]), "--gold", str(layout["gold"]),
                     "--eval", str(layout["eval"]), "--json", str(report_path))
    assert code == 0
    report = json.loads(report_path.read_text())
    assert set(report) == {"accuracy", "correct", "total", "instances", "per_prefix"}
    assert (report["correct"], report["total"]) == (2, 3)
    assert report["instances"][0] == {"instance_id": "bq002", "correct": True,
                                      "reason": "matched bq002_a.csv"}
    assert report["per_prefix"]["bq"] == {"accuracy": 0.5, "correct": 1, "total": 2}


def test_missing_folder_is_a_one_line_error(layout):
    code, out, err = run("--submission", str(layout["tmp"] / "nope"), "--gold",
                         str(layout["gold"]), "--eval", str(layout["eval"]))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "nope" in err and "Traceback" not in err


def test_bad_jsonl_line_names_file_and_line(layout):
    layout["eval"].write_text('{"instance_id": "local001", "condition_cols": [], '
                              '"ignore_order": true}\nnot json\n')
    code, _, err = run("--submission", str(layout["sub"]), "--gold", str(layout["gold"]),
                       "--eval", str(layout["eval"]))
    assert code == 2
    assert f"{layout['eval']}:2: invalid JSON" in err and err.count("\n") == 1


def test_missing_eval_file_is_an_error(layout):
    code, _, err = run("--submission", str(layout["sub"]), "--gold", str(layout["gold"]),
                       "--eval", str(layout["tmp"] / "none.jsonl"))
    assert code == 2 and "none.jsonl" in err


def test_flavor_option(layout):
    (layout["gold"] / "local004_a.csv").write_text("a,b\n1,5\n")
    (layout["sub"] / "local004.csv").write_text("x\n1\n")
    layout["eval"].write_text(json.dumps(
        {"instance_id": "local004", "condition_cols": [0], "ignore_order": False}) + "\n")
    base = ["--submission", str(layout["sub"]), "--gold", str(layout["gold"]),
            "--eval", str(layout["eval"])]
    assert "(0/1)" in run(*base)[1]
    assert "(1/1)" in run(*base, "--flavor", "snow")[1]
