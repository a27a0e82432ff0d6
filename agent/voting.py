"""Plan voting (FlexSQL): K attempts at one question, their answers grouped, the largest group wins.

One attempt can take a wrong turn early (the wrong table, the wrong reading of "top customers") and
never recover. K attempts, each told to plan differently ("plan #i of K: choose a different
interpretation, table set or join path than the others would"), run concurrently in threads; each
ends with its own `execute`. Their results are grouped by the equivalence function the caller passes
(`Agent(equivalent=...)`): the surfaces (CLI, REST, eval) pass the scorer's own comparison
(`agent.eval.equivalence.scorer_equivalence`), so two answers are in one group exactly when the scorer
would not tell them apart; the runtime never imports agent/eval itself, and without one the sorted rows are
compared (`plain_equivalent`). The largest group wins. Ties go to the group whose answer has more columns
(the scorer tolerates extra columns, never missing ones), then to answers computed in SQL over
those that relied on the python tool, then to the earliest plan.

The vote, with every candidate, is in the result JSON (`vote`) and the trace. Cost: K times the
model calls of one run (they run at the same time, so the wall time is about the slowest attempt).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from .config import AgentConfig
from .result import AgentResult
from .trace import Trace

Equivalent = Callable[[Sequence[Sequence[Any]], Sequence[str], Sequence[Sequence[Any]], Sequence[str]], bool]
MAX_PLANS = 8


@dataclass
class Candidate:
    """One attempt's outcome, as the vote sees it."""

    plan: int
    result: AgentResult
    uses_python: bool = False
    group: int | None = None

    @property
    def votable(self) -> bool:
        """Only answers with rows vote: the scorer never accepts an empty result, so neither does the vote."""
        return self.result.status == "answered" and bool(self.result.rows)

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        return {"plan": self.plan, "status": r.status, "group": self.group, "sql": r.sql, "columns": r.columns,
                "row_count": len(r.rows), "rows": r.rows[:5], "reason": r.reason, "turns": len(r.trace.turns),
                "tokens": r.tokens.get("total", 0), "uses_python": self.uses_python, "assumptions": r.assumptions}


class PlanRunner(Protocol):
    """What voting needs of the agent (loop.Agent): start an attempt, run it without a trace file, finish."""

    config: AgentConfig

    def start(self, question: str, plan: tuple[int, int] | None = None) -> Any: ...

    def attempt(self, run: Any) -> AgentResult: ...

    def finish(self, trace: Trace, status: str, reason: str | None, answer: Any, *, save: bool = True) -> AgentResult: ...


def plain_equivalent(rows_a: Sequence[Sequence[Any]], cols_a: Sequence[str], rows_b: Sequence[Sequence[Any]],
                     cols_b: Sequence[str]) -> bool:
    """Same column count and the same rows in any order (floats to 2 places): the fallback without the scorer."""
    def canon(rows: Sequence[Sequence[Any]]) -> list[str]:
        return sorted(repr([round(v, 2) if isinstance(v, float) else v for v in row]) for row in rows)

    return bool(rows_a) and len(cols_a) == len(cols_b) and canon(rows_a) == canon(rows_b)


def group_candidates(candidates: list[Candidate], equivalent: Equivalent) -> list[list[Candidate]]:
    """Groups of equivalent answers, in order of first appearance; candidates without rows are left out."""
    groups: list[list[Candidate]] = []
    for cand in candidates:
        if not cand.votable:
            continue
        for group in groups:
            head = group[0].result
            if equivalent(head.rows, head.columns, cand.result.rows, cand.result.columns):
                group.append(cand)
                break
        else:
            groups.append([cand])
    for number, group in enumerate(groups, 1):
        for cand in group:
            cand.group = number
    return groups


def _rank(group: list[Candidate]) -> tuple[int, int, bool, int]:
    """Largest group; then more columns; then SQL over Python; then the earliest plan."""
    return (len(group), max(len(c.result.columns) for c in group), any(not c.uses_python for c in group),
            -min(c.plan for c in group))


def decide(candidates: list[Candidate], equivalent: Equivalent) -> tuple[Candidate, dict[str, Any]]:
    """The winning candidate and the vote as reported (groups, why the winner won, every candidate)."""
    groups = group_candidates(candidates, equivalent)
    tie_break = None
    if groups:
        ranked = sorted(groups, key=_rank, reverse=True)
        best = ranked[0]
        if len(ranked) > 1 and len(ranked[1]) == len(best):
            runner = ranked[1]
            if len(best[0].result.columns) != len(runner[0].result.columns):
                tie_break = "more columns"
            elif any(not c.uses_python for c in best) != any(not c.uses_python for c in runner):
                tie_break = "SQL over Python"
            else:
                tie_break = "earliest plan"
        winner = next((c for c in best if not c.uses_python), best[0])
    else:  # nobody has rows: an empty answer beats no answer, else the first attempt's failure
        winner = next((c for c in candidates if c.result.status == "answered"), candidates[0])
    vote = {"plans": len(candidates), "winner": winner.plan, "groups": [[c.plan for c in g] for g in groups],
            "tie_break": tie_break, "candidates": [c.to_dict() for c in candidates]}
    return winner, vote


def run_plans(agent: PlanRunner, question: str, equivalent: Equivalent) -> AgentResult:
    """K concurrent attempts, then the vote by `equivalent`; the result is the winner's answer with every
    attempt in its trace."""
    count = agent.config.plans
    runs = [agent.start(question, plan=(i, count)) for i in range(1, count + 1)]
    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="smq-plan") as pool:
        results = list(pool.map(agent.attempt, runs))
    candidates = [Candidate(i, r, uses_python=any(t.tool == "python" for t in r.trace.turns))
                  for i, r in enumerate(results, 1)]
    winner, vote = decide(candidates, equivalent)
    first = results[0].trace
    trace = Trace(uuid.uuid4().hex, first.database, question, first.provider, first.model, first.dialect, first.role,
                  started_at=first.started_at)
    trace.turns = [turn for r in results for turn in r.trace.turns]
    trace.vote = vote
    chosen = winner.result
    trace.assumptions, trace.clarifications = chosen.assumptions, chosen.clarifications
    answer = chosen if chosen.status == "answered" else None
    result: AgentResult = agent.finish(trace, chosen.status, chosen.reason, answer)
    return result
