"""Plan voting: K scripted attempts run concurrently, each told which plan it is; their answers are grouped
with the scorer's `results_equivalent`; the largest group wins, ties by more columns, then SQL over Python,
then the earliest plan; the vote and every candidate are in the result JSON and the trace."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from agent import AgentConfig, run_agent
from agent.eval.equivalence import scorer_equivalence
from agent.loop import AgentResult
from agent.providers.base import Message, ModelResponse
from agent.providers.scripted import ScriptedProvider, call
from agent.trace import Trace
from agent.voting import Candidate, decide, plain_equivalent
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ

COMPILE = call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ)
BY_ORDERS = call("execute", "Rank the countries by orders.", sql=FINAL_SQL)
TWO_COLUMNS = FINAL_SQL.replace(", RANK() OVER (ORDER BY orders DESC) AS rank_by_orders", "")
BY_CUSTOMERS = call("execute", "Read 'placed the most' as the most customers.", sql="""
SELECT n.nation_name AS country, COUNT(c.customer_id) AS customers
FROM customers c JOIN nations n ON c.nation_id = n.nation_id
GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3""")


def per_plan(scripts: dict[int, list[Any]]) -> ScriptedProvider:
    """One provider shared by the attempts: each reads its plan number from its first message. A step is a
    response or a function of the conversation returning one."""
    def model(messages: list[Message]) -> ModelResponse:
        plan = int(re.search(r"plan #(\d+) of \d+", messages[0].content).group(1))
        step = scripts[plan][sum(1 for m in messages if m.role == "assistant")]
        return step if isinstance(step, ModelResponse) else step(messages)

    return ScriptedProvider(model)


def run(layer, executor, provider, tmp_path: Path, **config: Any) -> AgentResult:
    config.setdefault("profile", False)
    return run_agent(layer, executor, provider, QUESTION, AgentConfig(trace_dir=tmp_path / "traces", **config),
                     equivalent=scorer_equivalence())


def test_two_of_three_agree_and_the_majority_wins(layer, executor, tmp_path, expected_top):
    provider = per_plan({1: [COMPILE, BY_ORDERS], 2: [COMPILE, BY_CUSTOMERS], 3: [COMPILE, BY_ORDERS]})
    result = run(layer, executor, provider, tmp_path, plans=3)
    assert result.status == "answered" and result.sql == FINAL_SQL and [r[:2] for r in result.rows] == expected_top
    vote = result.vote
    assert vote["plans"] == 3 and vote["winner"] == 1 and vote["groups"] == [[1, 3], [2]] and vote["tie_break"] is None
    assert [c["group"] for c in vote["candidates"]] == [1, 2, 1]
    assert vote["candidates"][1]["columns"] == ["country", "customers"] and vote["candidates"][1]["sql"].strip().startswith("SELECT")
    # every attempt's turns are in the one trace; tokens add up across attempts
    assert len(result.trace.turns) == 6 and {t.plan for t in result.trace.turns} == {1, 2, 3}
    assert result.tokens["total"] == sum(t.usage.total for t in result.trace.turns)
    # each attempt was told which plan it is, and to differ
    firsts = sorted(r["messages"][0].content for r in provider.requests if len(r["messages"]) == 1)
    assert len(firsts) == 3 and "plan #1 of 3" in firsts[0] and "most direct" in firsts[0]
    assert all("consider an alternative" in f and "plan #1 " not in f for f in firsts[1:])
    body = result.to_json()
    assert body["vote"] == vote and body["turns"] == 6
    md = result.trace_path.read_text()
    assert "## Vote" in md and "winner: **plan 1**" in md and "groups of equivalent answers: {1, 3}, {2}" in md
    assert "## Plan 2 (answered, group 2)" in md and "### Turn 2: execute" in md
    saved = json.loads(result.trace_path.with_suffix(".json").read_text())
    assert saved["vote"]["winner"] == 1 and saved["turns"][0]["plan"] == 1


def test_attempts_run_concurrently(layer, executor, tmp_path):
    barrier = threading.Barrier(3, timeout=5)

    def meet(messages: list[Message]) -> ModelResponse:
        barrier.wait()  # passes only when all three attempts are in flight at once
        return COMPILE

    result = run(layer, executor, per_plan({i: [meet, BY_ORDERS] for i in (1, 2, 3)}), tmp_path, plans=3)
    assert result.status == "answered" and result.vote["groups"] == [[1, 2, 3]]


def test_a_tie_goes_to_more_columns(layer, executor, tmp_path):
    provider = per_plan({1: [COMPILE, call("execute", "Two columns.", sql=TWO_COLUMNS)], 2: [COMPILE, BY_ORDERS]})
    result = run(layer, executor, provider, tmp_path, plans=2)
    assert result.vote["groups"] == [[1], [2]] and result.vote["winner"] == 2 and result.vote["tie_break"] == "more columns"
    assert result.columns == ["country", "orders", "rank_by_orders"]


def test_failed_attempts_do_not_vote(layer, executor, tmp_path):
    giving_up = [COMPILE] + [call("getModelDataElements", "", models=["OrdersModel"])] * 3
    provider = per_plan({1: giving_up, 2: [COMPILE, BY_ORDERS]})
    result = run(layer, executor, provider, tmp_path, plans=2, max_turns=3)
    assert result.status == "answered" and result.vote["winner"] == 2 and result.vote["groups"] == [[2]]
    assert result.vote["candidates"][0]["status"] == "gave_up" and result.vote["candidates"][0]["group"] is None


# -- the decision on its own ------------------------------------------------------------------------------------
def candidate(plan: int, rows: list[list[Any]], columns: list[str], status: str = "answered", python: bool = False) -> Candidate:
    trace = Trace(f"run{plan}", "shop", "q", "scripted", "scripted", "duckdb")
    result = AgentResult(status, "SELECT 1" if status == "answered" else None, columns, rows, False, None, trace)
    return Candidate(plan, result, uses_python=python)


def test_sql_over_python_then_the_earliest_plan():
    eq = scorer_equivalence()
    winner, vote = decide([candidate(1, [[1]], ["a"], python=True), candidate(2, [[2]], ["b"])], eq)
    assert winner.plan == 2 and vote["tie_break"] == "SQL over Python"
    winner, vote = decide([candidate(1, [[1]], ["a"]), candidate(2, [[2]], ["b"])], eq)
    assert winner.plan == 1 and vote["tie_break"] == "earliest plan"
    # inside the winning group, an answer computed in SQL represents it
    winner, _ = decide([candidate(1, [[1]], ["a"], python=True), candidate(2, [[1.001]], ["x"])], eq)
    assert winner.plan == 2


def test_equivalence_is_the_scorers():
    eq = scorer_equivalence()
    winner, vote = decide([candidate(1, [["DE", 10.001], ["FR", 3]], ["c", "n"]),
                           candidate(2, [["FR", 3.0], ["DE", 10]], ["country", "orders"]),  # order and names ignored
                           candidate(3, [["DE", 11], ["FR", 3]], ["c", "n"])], eq)
    assert vote["groups"] == [[1, 2], [3]] and winner.plan == 1


def test_without_rows_an_empty_answer_beats_no_answer():
    eq = scorer_equivalence()
    winner, vote = decide([candidate(1, [], [], status="gave_up"), candidate(2, [], ["n"])], eq)
    assert winner.plan == 2 and vote["groups"] == []


def test_the_caller_decides_what_counts_as_the_same_answer(layer, executor, tmp_path):
    """Voting groups by the equivalence its caller passes; without one, by the plain comparison of sorted rows."""
    provider = per_plan({1: [COMPILE, BY_ORDERS], 2: [COMPILE, BY_CUSTOMERS]})
    config = AgentConfig(trace_dir=None, profile=False, plans=2)
    result = run_agent(layer, executor, provider, QUESTION, config, equivalent=lambda *_: True)
    assert result.vote["groups"] == [[1, 2]]
    provider = per_plan({1: [COMPILE, BY_ORDERS], 2: [COMPILE, BY_CUSTOMERS]})
    assert run_agent(layer, executor, provider, QUESTION, config).vote["groups"] == [[1], [2]]


def test_plain_equivalence_ignores_row_order_but_not_column_count():
    assert plain_equivalent([["FR", 3], ["DE", 10.001]], ["c", "n"], [["DE", 10.0], ["FR", 3]], ["x", "y"])
    assert not plain_equivalent([["DE", 10]], ["c", "n"], [["DE", 10, 1]], ["c", "n", "r"])
    assert not plain_equivalent([], ["c"], [], ["c"])
