"""Two-tier repair (FlexSQL): a suspicious answer goes back either to the code or to the plan.

A run used to end at the first `execute` the database accepted, even when the rows were plainly
wrong: no rows at all, a column of NULLs, a negative count. With repair on, such a result is not
accepted at once. The model gets the rows, the reason they look wrong (and, with profiling, what the
data says about the filters) and two ways on:

1. **code fix** — the plan is right, the SQL has a bug (a misspelt value, a wrong join key): fix it
   and `execute` again;
2. **replan** — the plan is wrong (wrong tables, join path or reading of the question): call
   `replan {"reason"}`; the run goes back to planning, with a fresh budget of execute repairs, told
   to choose a different plan than the rejected one.

Failed executes (the database rejects the SQL) offer the same two ways. Rounds are bounded
(`AgentConfig.repair_rounds`, default 3): each rejected result and each replan takes one; when none
is left, the next result is accepted as it is. Executing the very same SQL again after a rejection
also accepts it: the model has looked and insists (an empty answer can be right).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlglot

from .providers.base import ToolSpec

REPLAN = "replan"
COUNT_COLUMN = re.compile(r"(^|_|\b)(count|cnt|num|number|n|qty|quantity|total_orders|orders|how_many)(s)?($|_|\b)", re.I)


def implausibility(columns: list[str], rows: list[list[Any]]) -> str | None:
    """Why a result looks wrong, or None: no rows, a column that is NULL in every row, a single row of zeros
    (a count over a filter that matched nothing), negative counts."""
    if not rows:
        return "the query returned no rows"
    for i, name in enumerate(columns):
        values = [row[i] for row in rows if i < len(row)]
        if values and all(v is None for v in values):
            return f"column '{name}' is NULL in every row"
    if len(rows) == 1 and rows[0] and all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0)
                                          for v in rows[0]):
        return "the only row is all zeros or NULLs: a filter probably matched nothing"
    for i, name in enumerate(columns):
        if COUNT_COLUMN.search(name or ""):
            negative = [row[i] for row in rows if isinstance(row[i], (int, float)) and not isinstance(row[i], bool) and row[i] < 0]
            if negative:
                return f"column '{name}' looks like a count but holds negative values ({negative[0]})"
    return None


def same_sql(a: str | None, b: str | None, dialect: str) -> bool:
    """Whether two SQL texts are the same query (formatting aside)."""
    if a is None or b is None:
        return False
    try:
        return sqlglot.transpile(a, read=dialect)[0] == sqlglot.transpile(b, read=dialect)[0]
    except sqlglot.errors.ParseError:
        return " ".join(a.split()) == " ".join(b.split())


@dataclass
class RepairState:
    """One run's repair rounds: how many are left, and the result last sent back."""

    rounds: int = 3
    used: int = 0
    offered: bool = False  # the replan tool is declared once the run has something to repair
    rejected_sql: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # what went back, for the trace

    @property
    def enabled(self) -> bool:
        return self.rounds > 0

    @property
    def left(self) -> int:
        return max(0, self.rounds - self.used)

    def review(self, sql: str, columns: list[str], rows: list[list[Any]], dialect: str) -> str | None:
        """The problem that sends this result back, or None to accept it."""
        if not self.enabled or self.left == 0:
            return None
        if same_sql(sql, self.rejected_sql, dialect):
            return None  # the model looked at the problem and executed the same SQL again: accept
        problem = implausibility(columns, rows)
        if problem is None:
            return None
        self.used += 1
        self.offered = True
        self.rejected_sql = sql
        self.history.append({"tier": "check", "round": self.used, "problem": problem})
        return problem

    def note_failed(self) -> None:
        if self.enabled:
            self.offered = True

    def replan(self, reason: str) -> tuple[dict[str, Any], Literal["ok", "error", "refused"], str]:
        """(result, outcome, summary) of a replan call."""
        if not self.enabled:
            return {"error": "replanning is off for this run"}, "error", "replan off"
        if self.left == 0:
            return ({"error": f"all {self.rounds} repair rounds are used: fix the SQL and execute, or execute your best "
                              "answer"}, "refused", "no rounds left")
        self.used += 1
        self.history.append({"tier": "replan", "round": self.used, "reason": reason})
        rejected = f" The rejected plan's last SQL was:\n{self.rejected_sql}" if self.rejected_sql else ""
        return ({"status": "replanning", "round": self.used, "rounds": self.rounds,
                 "instruction": "Go back to planning. Write a new plan that differs from the rejected one where it was "
                                "wrong (other models or tables, another join path, another reading of the question), "
                                "check it with convertSmqToSql, then execute. Your budget of execute repairs starts "
                                "afresh." + rejected},
                "ok", f"replanning (round {self.used} of {self.rounds}): {reason}")

    def next_steps(self) -> str:
        return (f"Fix the SQL and execute again if the plan is right; call replan with the reason if the plan itself is "
                f"wrong; executing the same SQL again accepts this result. {self.left} repair round(s) left.")


def replan_spec(descriptions: dict[str, str]) -> ToolSpec:
    """replan as declared to the model (agent/tool_registry.py; descriptions from prompts/tools.yml)."""
    from .tool_registry import specs

    return specs((REPLAN,))[0]
