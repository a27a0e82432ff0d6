"""What a run produced, and the statuses it ends in: shared by the loop and plan voting (voting.py), so
neither has to import the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .trace import Trace

ANSWERED, GAVE_UP, ERROR = "answered", "gave_up", "error"
NEEDS_CLARIFICATION = "needs_clarification"  # a paused run (REST): answer its questions to resume it


@dataclass
class AgentResult:
    """What a run produced; `to_json()` is the shape every surface returns (CLI --json, REST)."""

    status: str  # answered | gave_up | error | needs_clarification
    sql: str | None
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    reason: str | None
    trace: Trace
    trace_path: Path | None = None
    assumptions: list[str] = field(default_factory=list)  # what the agent assumed instead of asking
    clarifications: list[dict[str, str]] = field(default_factory=list)  # questions the user answered
    questions: list[str] = field(default_factory=list)  # open questions of a paused run
    vote: dict[str, Any] | None = None  # plan voting: groups and every candidate
    paused: Any = None  # the run to `Agent.resume` (needs_clarification only; never serialized)

    @property
    def tokens(self) -> dict[str, Any]:
        return self.trace.tokens()

    def to_json(self, trace_ref: str | None = None) -> dict[str, Any]:
        ref = trace_ref if trace_ref is not None else (str(self.trace_path) if self.trace_path else None)
        body = {"status": self.status, "sql": self.sql, "columns": self.columns, "rows": self.rows,
                "truncated": self.truncated, "reason": self.reason, "trace": ref, "run_id": self.trace.run_id,
                "turns": len(self.trace.turns), "tokens": self.tokens, "assumptions": self.assumptions,
                "clarifications": self.clarifications}
        if self.questions:
            body["questions"] = self.questions
        if self.vote is not None:
            body["vote"] = self.vote
        return body
