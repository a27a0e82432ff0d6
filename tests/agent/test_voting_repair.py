"""Two-tier repair: an empty or implausible result goes back to the model, which fixes the SQL or calls
`replan`; rounds are bounded; executing the same SQL again accepts the result; off means the first
answer stands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent import AgentConfig, run_agent
from agent.providers.scripted import ScriptedProvider, call
from agent.repair import RepairState, implausibility
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ

COMPILE = call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ)
FINAL = call("execute", "Rank them.", sql=FINAL_SQL)
ATLANTIS = "SELECT nation_name AS country FROM nations WHERE nation_name = 'Atlantis'"
EMPTY = call("execute", "Countries named Atlantis.", sql=ATLANTIS)
REPLAN = call("replan", "I read the question wrong: it is about order counts per country.", reason="wrong reading: rank by orders")


def run(layer, executor, script, tmp_path: Path, **config: Any):
    provider = ScriptedProvider(script)
    config.setdefault("tips", False)
    result = run_agent(layer, executor, provider, QUESTION, AgentConfig(trace_dir=tmp_path / "traces", **config))
    return result, provider


@pytest.mark.parametrize("columns, rows, problem", [
    (["a"], [], "returned no rows"),
    (["a", "b"], [[1, None], [2, None]], "column 'b' is NULL in every row"),
    (["orders"], [[0]], "all zeros or NULLs"),
    (["country", "order_count"], [["DE", 3], ["FR", -2]], "looks like a count but holds negative values (-2)"),
])
def test_what_looks_implausible(columns, rows, problem):
    assert problem in implausibility(columns, rows)


def test_what_looks_fine():
    assert implausibility(["country", "orders"], [["DE", 3], ["FR", 0]]) is None
    assert implausibility(["delta"], [[-5], [3]]) is None  # negative, but not a count
    assert implausibility(["n"], [[7]]) is None


def test_an_empty_result_goes_back_and_a_replan_succeeds(layer, executor, tmp_path, expected_top):
    result, provider = run(layer, executor, [COMPILE, EMPTY, REPLAN, COMPILE, FINAL], tmp_path)
    assert result.status == "answered" and [r[:2] for r in result.rows] == expected_top
    assert [t.outcome for t in result.trace.turns] == ["ok", "rejected", "ok", "ok", "answered"]
    rejected = result.trace.turns[1].result
    assert rejected["problem"] == "this result looks wrong: the query returned no rows" and rejected["row_count"] == 0
    assert "call replan" in rejected["next"] and "2 repair round(s) left" in rejected["next"]
    assert any("no row of nations matches nation_name = 'Atlantis'" in w for w in rejected["warnings"])  # the profile says why
    replanned = result.trace.turns[2].result
    assert replanned["status"] == "replanning" and replanned["round"] == 2 and ATLANTIS in replanned["instruction"]
    # replan is offered only once there is something to repair
    assert "replan" not in provider.requests[1]["tools"] and "replan" in provider.requests[2]["tools"]
    assert "When the result looks wrong" in provider.requests[0]["system"]
    md = result.trace_path.read_text()
    assert "**rejected**: this result looks wrong: the query returned no rows" in md and "## Turn 3: replan" in md


def test_rounds_are_bounded_then_the_result_stands(layer, executor, tmp_path):
    other = call("execute", "Try another spelling.", sql=ATLANTIS.replace("Atlantis", "Atlantida"))
    third = call("execute", "And another.", sql=ATLANTIS.replace("Atlantis", "Mu"))
    result, _ = run(layer, executor, [COMPILE, EMPTY, other, third], tmp_path, repair_rounds=2)
    assert [t.outcome for t in result.trace.turns] == ["ok", "rejected", "rejected", "answered"]
    assert result.status == "answered" and result.rows == []
    refused, _ = run(layer, executor, [COMPILE, EMPTY, REPLAN, REPLAN, FINAL], tmp_path, repair_rounds=2)
    assert [t.outcome for t in refused.trace.turns] == ["ok", "rejected", "ok", "refused", "answered"]
    assert "all 2 repair rounds are used" in refused.trace.turns[3].result["error"]


def test_executing_the_same_sql_again_accepts_it(layer, executor, tmp_path):
    same = call("execute", "Atlantis is what was asked.", sql=ATLANTIS.replace("SELECT", "select"))
    result, _ = run(layer, executor, [COMPILE, EMPTY, same], tmp_path)
    assert [t.outcome for t in result.trace.turns] == ["ok", "rejected", "answered"] and result.rows == []


def test_repair_off_takes_the_first_answer(layer, executor, tmp_path):
    result, provider = run(layer, executor, [COMPILE, EMPTY], tmp_path, repair_rounds=0)
    assert result.status == "answered" and result.rows == [] and len(result.trace.turns) == 2
    assert "When the result looks wrong" not in provider.requests[0]["system"]


def test_a_failed_execute_offers_replan_and_a_replan_resets_the_code_fix_budget(layer, executor, tmp_path):
    broken = call("execute", "typo", sql="SELECT nation_nam FROM nations")
    script = [COMPILE, broken, REPLAN, broken, COMPILE, FINAL]
    result, provider = run(layer, executor, script, tmp_path, max_repairs=1)
    assert result.status == "answered"  # without the reset, the second failure would have ended the run
    assert [t.outcome for t in result.trace.turns] == ["ok", "failed", "ok", "failed", "ok", "answered"]
    assert "replan" in provider.requests[2]["tools"]


def test_repair_state_counts_rounds():
    state = RepairState(rounds=1)
    assert state.review("SELECT 1", ["n"], [], "duckdb") is not None and state.left == 0
    assert state.review("SELECT 2", ["n"], [], "duckdb") is None  # no round left: accepted
    assert RepairState(rounds=0).review("SELECT 1", ["n"], [], "duckdb") is None
