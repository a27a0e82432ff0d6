"""Unit tests for the Spider 2.0 scorer: one per rule and per odd corner."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from agent.eval.scorer import (
    ScorerInputError,
    compare_tables,
    id_prefix,
    load_eval_file,
    read_result_csv,
    results_equivalent,
    score_instance,
    score_submission,
)


def table(text: str):
    return read_result_csv(io.StringIO(text))


def compare(pred: str, gold: str, cols=None, ignore_order: bool = False) -> tuple[bool, str]:
    return compare_tables(table(pred), table(gold), cols, ignore_order)


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def entry(cols, ignore_order: bool = False) -> dict:
    return {"condition_cols": cols, "ignore_order": ignore_order}


# ---------------------------------------------------------------- values


def test_numbers_match_within_absolute_tolerance():
    assert compare("v\n1.009\n", "v\n1.0\n")[0]
    ok, reason = compare("v\n1.02\n", "v\n1.0\n")
    assert not ok and "gold column 0 ('v')" in reason


def test_isclose_relative_tolerance_accepts_bigger_gaps_on_huge_numbers():
    # rel_tol 1e-9 of 1e12 is 1000, far above the 0.01 absolute tolerance
    assert compare("v\n1000000000500\n", "v\n1000000000000\n")[0]
    assert not compare("v\n1000000.5\n", "v\n1000000\n")[0]


@pytest.mark.parametrize("missing", ["NULL", "NaN", "None", ""])
def test_missing_gold_value_matches_zero(missing):
    assert compare("k,v\na,0\nb,2\n", f"k,v\na,{missing}\nb,2\n")[0]


def test_missing_value_does_not_match_text_zero():
    # v is a text column in both; the missing gold cell becomes the number 0, not "0"
    assert not compare("k,v\na,0\nb,x\n", "k,v\na,\nb,x\n")[0]


def test_true_equals_one():
    assert compare("f\n1\n0\n", "f\nTrue\nFalse\n")[0]


def test_padded_and_zero_prefixed_cells_read_as_numbers():
    assert compare("n\n 3 \n007\n", "n\n3\n7\n")[0]


def test_text_must_be_exactly_equal():
    assert not compare("s\nABC\n", "s\nabc\n")[0]
    assert not compare('s\n"abc "\n', "s\nabc\n")[0]
    assert compare("s\nabc\n", "s\nabc\n")[0]


def test_numeric_looking_text_compares_as_text():
    # a column holding "x" is text, so "3.0" and "3" differ; as numbers they would not
    assert compare("v\n3.0\n4\n", "v\n3\n4\n")[0]
    assert not compare("v\n3.0\nx\n", "v\n3\nx\n")[0]


# ---------------------------------------------------------------- order


def test_row_order_matters_without_ignore_order():
    assert not compare("v\n2\n1\n", "v\n1\n2\n")[0]
    assert compare("v\n2\n1\n", "v\n1\n2\n", ignore_order=True)[0]


def test_ignore_order_sorts_each_column_on_its_own():
    # rows are broken apart, yet each column holds the same values
    pred, gold = "a,b\n1,y\n2,x\n", "a,b\n1,x\n2,y\n"
    assert compare(pred, gold, ignore_order=True)[0]
    assert not compare(pred, gold)[0]


def test_ignore_order_string_sort_splits_numbers_within_tolerance():
    # sorted by str(): gold -> [10.5, 9.999], prediction -> [10.0, 10.5]
    pred, gold = "v\n10.0\n10.5\n", "v\n9.999\n10.5\n"
    assert compare(pred, gold)[0]
    ok, reason = compare(pred, gold, ignore_order=True)
    assert not ok and "sorted position 0" in reason


def test_ignore_order_sort_puts_missing_as_zero():
    assert compare("v\n0\n5\n", "v\n5\nNULL\n", ignore_order=True)[0]


# ---------------------------------------------------------------- columns


def test_column_names_are_ignored():
    assert compare("x,y\n1,2\n", "a,b\n1,2\n")[0]


def test_extra_predicted_columns_are_allowed():
    assert compare("extra,a,more\nq,1,9\nr,2,8\n", "a\n1\n2\n")[0]


def test_one_predicted_column_may_match_several_gold_columns():
    assert compare("x\n1\n2\n", "a,b\n1,1\n2,2\n")[0]


def test_condition_cols_restrict_the_gold_columns_checked():
    pred, gold = "a\n1\n2\n", "a,b\n1,9\n2,9\n"
    assert compare(pred, gold, [0])[0]
    ok, reason = compare(pred, gold, [1])
    assert not ok and "gold column 1 ('b')" in reason


def test_missing_gold_column_is_named_in_reason():
    ok, reason = compare("a\n1\n2\n", "a,total\n1,10.5\n2,20\n")
    assert not ok
    assert "gold column 1 ('total') matched no predicted column" in reason
    assert "10.5" in reason


def test_row_count_difference_is_reported():
    ok, reason = compare("v\n1\n", "v\n1\n2\n")
    assert not ok and reason == "row count differs (predicted 1 vs gold 2)"


def test_empty_prediction_table_fails():
    ok, reason = compare("v\n", "v\n1\n")
    assert not ok and "empty prediction" in reason


def test_out_of_range_condition_cols_fails_without_raising():
    ok, reason = compare("v\n1\n", "v\n1\n", [3])
    assert not ok and "condition_cols" in reason


# ---------------------------------------------------------------- score_instance


@pytest.fixture
def gold_dir(tmp_path: Path) -> Path:
    return tmp_path / "gold"


@pytest.fixture
def pred_dir(tmp_path: Path) -> Path:
    return tmp_path / "pred"


def test_missing_prediction_scores_zero(gold_dir):
    write(gold_dir, "local001.csv", "v\n1\n")
    score = score_instance("local001", None, gold_dir, entry([]))
    assert not score.correct and score.reason == "no prediction file"
    score = score_instance("local001", gold_dir / "nope.csv", gold_dir, entry([]))
    assert not score.correct


@pytest.mark.parametrize("text", ["", "v\n"])
def test_empty_prediction_file_scores_zero(gold_dir, pred_dir, text):
    write(gold_dir, "local001.csv", "v\n1\n")
    pred = write(pred_dir, "local001.csv", text)
    score = score_instance("local001", pred, gold_dir, entry([]))
    assert not score.correct and "empty prediction" in score.reason


def test_unreadable_prediction_scores_zero(gold_dir, pred_dir):
    write(gold_dir, "local001.csv", "v\n1\n")
    pred = write(pred_dir, "local001.csv", 'a,b\n1,"unterminated\n')
    score = score_instance("local001", pred, gold_dir, entry([]))
    assert not score.correct and "could not read prediction" in score.reason


def test_missing_eval_entry_scores_zero(gold_dir, pred_dir):
    write(gold_dir, "local001.csv", "v\n1\n")
    pred = write(pred_dir, "local001.csv", "v\n1\n")
    assert not score_instance("local001", pred, gold_dir, None).correct
    assert not score_instance("local001", pred, gold_dir, {"ignore_order": True}).correct


def test_no_gold_file_scores_zero(gold_dir, pred_dir):
    write(gold_dir, "local002.csv", "v\n1\n")
    pred = write(pred_dir, "local001.csv", "v\n1\n")
    score = score_instance("local001", pred, gold_dir, entry([]))
    assert not score.correct and score.reason == "no gold file found"


def test_base_gold_file_is_used_alone(gold_dir, pred_dir):
    write(gold_dir, "local001.csv", "v\n1\n")
    write(gold_dir, "local001_a.csv", "v\n2\n")
    pred = write(pred_dir, "local001.csv", "v\n2\n")
    assert not score_instance("local001", pred, gold_dir, entry([])).correct


def test_any_alternative_may_match(gold_dir, pred_dir):
    write(gold_dir, "local001_a.csv", "v\n1\n")
    write(gold_dir, "local001_b.csv", "v\n2\n")
    write(gold_dir, "local0011_a.csv", "v\n3\n")  # another task's file
    pred = write(pred_dir, "local001.csv", "v\n2\n")
    score = score_instance("local001", pred, gold_dir, entry([]))
    assert score.correct and score.reason == "matched local001_b.csv"
    pred = write(pred_dir, "local001.csv", "v\n3\n")
    score = score_instance("local001", pred, gold_dir, entry([]))
    assert not score.correct and "local001_a.csv" in score.reason and "local001_b.csv" in score.reason


def test_nested_condition_cols_apply_per_alternative_in_name_order(gold_dir, pred_dir):
    write(gold_dir, "bq001_b.csv", "a,b\n9,2\n")
    write(gold_dir, "bq001_a.csv", "a,b\n1,9\n")
    pred = write(pred_dir, "bq001.csv", "x\n2\n")
    # _a checks its column 0 (1: no), _b checks its column 1 (2: yes)
    assert score_instance("bq001", pred, gold_dir, entry([[0], [1]])).correct
    assert not score_instance("bq001", pred, gold_dir, entry([[1], [0]])).correct


def test_flat_condition_cols_are_shared_by_several_alternatives(gold_dir, pred_dir):
    write(gold_dir, "bq001_a.csv", "a,b\n1,5\n")
    write(gold_dir, "bq001_b.csv", "a,b\n2,6\n")
    pred = write(pred_dir, "bq001.csv", "x\n2\n")
    assert score_instance("bq001", pred, gold_dir, entry([0])).correct
    assert not score_instance("bq001", pred, gold_dir, entry([1])).correct


@pytest.fixture
def single_alternative(gold_dir: Path, pred_dir: Path):
    """One alternative only, with a flat condition_cols list."""
    write(gold_dir, "local001_a.csv", "a,b\n1,5\n2,6\n")
    write(gold_dir, "sf001_a.csv", "a,b\n1,5\n2,6\n")
    only_a = write(pred_dir / "a", "p.csv", "x\n1\n2\n")
    only_b = write(pred_dir / "b", "p.csv", "x\n5\n6\n")
    return only_a, only_b


def test_single_alternative_lite_first_entry_zero_means_all_columns(gold_dir, single_alternative):
    only_a, _ = single_alternative
    assert not score_instance("local001", only_a, gold_dir, entry([0])).correct
    assert score_instance("local001", only_a, gold_dir, entry([0]), flavor="snow").correct


def test_single_alternative_uses_only_first_entry(gold_dir, single_alternative):
    only_a, only_b = single_alternative
    for flavor in ("lite", "snow"):
        # [1, 0]: only column 1 is checked, column 0 is ignored
        assert score_instance("local001", only_b, gold_dir, entry([1, 0]), flavor).correct
        assert not score_instance("local001", only_a, gold_dir, entry([1, 0]), flavor).correct


def test_sf_ids_follow_snow_unless_told(gold_dir, single_alternative):
    only_a, _ = single_alternative
    assert score_instance("sf001", only_a, gold_dir, entry([0])).correct
    assert not score_instance("sf001", only_a, gold_dir, entry([0]), flavor="lite").correct


def test_out_of_range_condition_cols_scores_zero(gold_dir, pred_dir):
    write(gold_dir, "local001.csv", "v\n1\n")
    pred = write(pred_dir, "local001.csv", "v\n1\n")
    score = score_instance("local001", pred, gold_dir, entry([4]))
    assert not score.correct and "condition_cols" in score.reason


def test_alternative_without_entry_raises_only_when_reached(gold_dir, pred_dir):
    write(gold_dir, "bq001_a.csv", "v\n1\n")
    write(gold_dir, "bq001_b.csv", "v\n2\n")
    matches_a = write(pred_dir / "a", "bq001.csv", "v\n1\n")
    matches_b = write(pred_dir / "b", "bq001.csv", "v\n2\n")
    assert score_instance("bq001", matches_a, gold_dir, entry([[0]])).correct
    score = score_instance("bq001", matches_b, gold_dir, entry([[0]]))
    assert not score.correct and "no entry for alternative 1" in score.reason


def test_out_of_range_entry_ends_scoring_before_a_later_match(gold_dir, pred_dir):
    write(gold_dir, "bq001_a.csv", "v\n1\n")
    write(gold_dir, "bq001_b.csv", "v\n2\n")
    pred = write(pred_dir, "bq001.csv", "v\n2\n")
    score = score_instance("bq001", pred, gold_dir, entry([[3], [0]]))
    assert not score.correct and "condition_cols" in score.reason


def test_unknown_flavor_is_rejected(gold_dir):
    with pytest.raises(ValueError):
        score_instance("local001", None, gold_dir, entry([]), flavor="big")


# ---------------------------------------------------------------- submissions


def test_score_submission_counts_every_task_and_groups_by_prefix(tmp_path, gold_dir, pred_dir):
    write(gold_dir, "local001.csv", "v\n1\n")
    write(gold_dir, "local002.csv", "v\n2\n")
    write(gold_dir, "sf_bq003_a.csv", "v\n3\n")
    write(pred_dir, "local001.csv", "v\n1\n")
    write(pred_dir, "local001.sql", "select 1")
    write(pred_dir, "sf_bq003.csv", "v\n3\n")
    write(pred_dir, "local999.csv", "v\n9\n")  # not in the eval file: ignored
    eval_file = write(tmp_path, "eval.jsonl", "\n".join(
        json.dumps({"instance_id": i, **entry([])}) for i in ["local001", "local002", "sf_bq003"]
    ) + "\n")
    report = score_submission(pred_dir, gold_dir, eval_file)
    assert (report.correct, report.total) == (2, 3)
    assert report.accuracy == pytest.approx(2 / 3)
    assert {p: (s.correct, s.total) for p, s in report.per_prefix.items()} == {
        "local": (1, 2), "sf_bq": (1, 1)}
    assert [s.instance_id for s in report.instances] == ["local001", "local002", "sf_bq003"]
    assert report.to_dict()["instances"][1] == {
        "instance_id": "local002", "correct": False, "reason": "no prediction file"}


@pytest.mark.parametrize("iid, prefix", [
    ("local054", "local"), ("bq011", "bq"), ("ga006", "ga"), ("sf001", "sf"),
    ("sf_bq011", "sf_bq"), ("sf_local009", "sf_local"), ("123", "other"),
])
def test_id_prefix(iid, prefix):
    assert id_prefix(iid) == prefix


def test_bad_eval_line_names_file_and_line(tmp_path):
    bad = write(tmp_path, "eval.jsonl", '{"instance_id": "a", "condition_cols": []}\n{oops\n')
    with pytest.raises(ScorerInputError, match=r"eval\.jsonl:2: invalid JSON"):
        load_eval_file(bad)
    no_id = write(tmp_path, "noid.jsonl", '{"condition_cols": []}\n')
    with pytest.raises(ScorerInputError, match=r"noid\.jsonl:1:"):
        load_eval_file(no_id)


def test_missing_submission_folder_is_input_error(tmp_path, gold_dir):
    gold_dir.mkdir()
    eval_file = write(tmp_path, "eval.jsonl", "")
    with pytest.raises(ScorerInputError, match="submission folder not found"):
        score_submission(tmp_path / "nope", gold_dir, eval_file)


# ---------------------------------------------------------------- in-memory results


def test_results_equivalent_uses_the_csv_rules():
    cols = ["name", "total"]
    a = [("x", Decimal("1.10")), ("y", None)]
    b = [("y", 0), ("x", 1.1049)]
    assert results_equivalent(a, cols, b, ["n", "t"])
    assert not results_equivalent(a, cols, b, cols, ignore_order=False)
    assert not results_equivalent(a, cols, [("x", 1.2), ("y", 0)], cols)


def test_results_equivalent_is_symmetric_about_extra_columns():
    assert not results_equivalent([(1, 2)], ["a", "b"], [(1,)], ["a"])
    assert not results_equivalent([(1,)], ["a"], [(1, 2)], ["a", "b"])


def test_results_equivalent_agrees_with_csv_comparison_on_type_inference():
    # text "007" from a database reads back as the number 7, as a CSV would
    assert results_equivalent([("007",)], ["c"], [(7,)], ["c"])
    assert compare("c\n007\n", "c\n7\n")[0]
    # the string-sort corner applies too
    assert not results_equivalent([(10.0,), (10.5,)], ["v"], [(9.999,), (10.5,)], ["v"])


def test_empty_results_are_never_equivalent():
    assert not results_equivalent([], ["a"], [], ["a"])
    assert not results_equivalent([], [], [(1,)], ["a"])


@pytest.mark.parametrize("iid", ["local900", "sf900", "bq900"])
def test_header_only_prediction_matches_header_only_gold_in_exec_result_mode(tmp_path, iid):
    """CSV submissions (the official exec_result mode): both evaluators compare the column vectors as
    read, and an empty one equals an empty one, so an empty answer to an empty gold table scores 1."""
    from agent.eval.scorer import score_instance, score_submission

    gold, sub = tmp_path / "gold", tmp_path / "sub"
    gold.mkdir()
    sub.mkdir()
    (gold / f"{iid}_a.csv").write_text("a,b\n1,2\n")
    (gold / f"{iid}_b.csv").write_text("a,b\n")  # the empty alternative
    (sub / f"{iid}.csv").write_text("x,y\n")
    entry = {"condition_cols": [], "ignore_order": True}
    score = score_instance(iid, sub / f"{iid}.csv", gold, entry)
    assert score.correct and score.reason == f"matched {iid}_b.csv"
    (tmp_path / "eval.jsonl").write_text(json.dumps({"instance_id": iid, **entry}) + "\n")
    assert score_submission(sub, gold, tmp_path / "eval.jsonl").correct == 1
    # an empty answer to a gold table with rows still scores 0
    (gold / f"{iid}_b.csv").unlink()
    assert not score_instance(iid, sub / f"{iid}.csv", gold, entry).correct


def test_header_only_prediction_in_sql_mode_matches_under_lite_rules_only(tmp_path):
    """sql mode: the official code runs the SQL; on BigQuery and Snowflake an empty result scores 0,
    the SQLite path (lite rules) writes a header-only CSV and compares it like any other."""
    from agent.eval.scorer import score_instance

    gold = tmp_path / "gold"
    gold.mkdir()
    (gold / "local900_a.csv").write_text("a,b\n")
    (gold / "sf900_a.csv").write_text("a,b\n")
    pred = tmp_path / "p.csv"
    pred.write_text("x,y\n")
    entry = {"condition_cols": [], "ignore_order": True}
    assert score_instance("local900", pred, gold, entry, mode="sql").correct
    sf = score_instance("sf900", pred, gold, entry, mode="sql")
    assert not sf.correct and "empty prediction" in sf.reason
    with pytest.raises(ValueError, match="mode must be one of"):
        score_instance("sf900", pred, gold, entry, mode="csv")
