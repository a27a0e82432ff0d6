"""The scorer on real Spider 2.0-lite gold: reference answers pass, broken ones fail."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from agent.eval.scorer import score_submission
from tests.conftest import SHARED

DATA = SHARED / "data" / "spider2"
GOLD = DATA / "lite" / "gold" / "exec_result"
EVAL = DATA / "lite" / "gold" / "spider2lite_eval.jsonl"
ORACLE = DATA / "oracle"
IDS = ["local054", "local055", "local081", "local085", "local198"]

pytestmark = pytest.mark.shared_data(GOLD, EVAL, ORACLE)  # skipped without ../shared, failed in CI


@pytest.fixture
def five_task_eval(tmp_path: Path) -> Path:
    lines = [line for line in EVAL.read_text().splitlines()
             if json.loads(line)["instance_id"] in IDS]
    assert len(lines) == len(IDS)
    path = tmp_path / "eval.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def copy_oracle(folder: Path) -> Path:
    folder.mkdir()
    for iid in IDS:
        shutil.copy(ORACLE / f"{iid}.csv", folder / f"{iid}.csv")
    return folder


def test_oracle_answers_score_five_of_five(tmp_path, five_task_eval):
    report = score_submission(copy_oracle(tmp_path / "sub"), GOLD, five_task_eval)
    assert (report.correct, report.total) == (5, 5), [s.reason for s in report.instances]
    assert report.per_prefix["local"].accuracy == 1.0


def test_oracle_answers_against_the_full_eval_file(tmp_path):
    report = score_submission(copy_oracle(tmp_path / "sub"), GOLD, EVAL)
    assert report.correct == 5 and report.total == 547


def _shift_first_number(df: pd.DataFrame, by: float) -> pd.DataFrame:
    column = df.select_dtypes("number").columns[-1]
    df = df.copy()
    df.loc[df.index[0], column] = df.loc[df.index[0], column] + by
    return df


def test_broken_answers_score_zero(tmp_path, five_task_eval):
    sub = copy_oracle(tmp_path / "sub")
    breakers = {
        "local054": lambda df: df.iloc[:-1],            # a row dropped
        "local055": lambda df: _shift_first_number(df, 0.02),
        "local081": lambda df: _shift_first_number(df, 0.02),
        "local085": lambda df: df.iloc[1:],             # a row dropped
        "local198": lambda df: _shift_first_number(df, -0.02),
    }
    for iid, breaker in breakers.items():
        path = sub / f"{iid}.csv"
        breaker(pd.read_csv(path)).to_csv(path, index=False)
    report = score_submission(sub, GOLD, five_task_eval)
    assert (report.correct, report.total) == (0, 5)
    reasons = {s.instance_id: s.reason for s in report.instances}
    assert "row count differs" in reasons["local054"]
    assert "matched no predicted column" in reasons["local081"]
