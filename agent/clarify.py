"""The clarification pool (PlanPool): questions the agent asks the user, and what became of them.

`ask_user {"question"}` adds a question to the run's pool; `drop_question {"question", "reason"}`
withdraws one, the reason being the assumption the agent makes instead. While a pooled question is
open (neither answered nor dropped) the run may not submit: `execute` is refused with the open
questions listed. That keeps an agent from asking and then answering before the user could reply.

Who answers depends on the surface, through an `Answerer`:

- `CallbackAnswerer` (interactive `smq ask`): the question is shown, the answer typed; the answer comes
  back as the tool's result at once. No answer (end of input, an empty line) leaves the question open
  and tells the agent to drop it with its assumption.
- `DeferredAnswerer` (REST): the run pauses after the call (`needs_clarification`) and resumes when the
  answers are posted; the answer then becomes the tool's result.
- `NoAnswerer` (the harness, scripts): no one can answer; the agent must drop the question, stating
  the assumption it makes.

With clarification off, the tools are not offered and the agent states its assumptions instead
(`execute`'s optional `assumptions`, or lines starting `Assumption:` in its reasoning).
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .providers.base import ToolSpec

ASK_USER, DROP_QUESTION = "ask_user", "drop_question"
CLARIFY_TOOLS = (ASK_USER, DROP_QUESTION)
MAX_QUESTIONS = 5  # per run: a pool is for the few questions that change the answer, not an interview
PoolOutcome = Literal["ok", "error", "refused", "paused"]  # how a pool call went (a ToolOutcome's outcome)
DEFER = "__deferred__"  # what a DeferredAnswerer returns: the run pauses until the answer is posted
NO_ONE_ANSWERS = ("no one can answer questions in this run: call drop_question with this question and, as the reason, "
                  "the assumption you make instead")

Status = Literal["open", "answered", "dropped"]


class Answerer(Protocol):
    def answer(self, question: str) -> str | None:
        """The user's answer; None when there is none (then the agent must drop the question); DEFER to pause."""
        ...


class NoAnswerer:
    """Nobody is there (evaluation, scripts): every question must be dropped with an assumption."""

    interactive = False

    def answer(self, question: str) -> str | None:
        return None


class DeferredAnswerer:
    """REST: the run pauses and the caller posts the answers later."""

    interactive = False

    def answer(self, question: str) -> str | None:
        return DEFER


class CallbackAnswerer:
    """A function asks a person (the terminal); thread-safe, and a question asked twice (by two voting plans)
    is answered once."""

    interactive = True

    def __init__(self, ask: Callable[[str], str | None]) -> None:
        self._ask = ask
        self._lock = threading.Lock()
        self._memo: dict[str, str | None] = {}

    def answer(self, question: str) -> str | None:
        key = normalize(question)
        with self._lock:
            if key not in self._memo:
                reply = self._ask(question)
                self._memo[key] = reply.strip() if isinstance(reply, str) and reply.strip() else None
            return self._memo[key]


def normalize(question: str) -> str:
    return re.sub(r"\s+", " ", question).strip().lower().rstrip("?. ")


@dataclass
class PooledQuestion:
    question: str
    status: Status = "open"
    answer: str | None = None
    reason: str | None = None
    turn: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.question, "status": self.status}
        if self.answer is not None:
            out["answer"] = self.answer
        if self.reason is not None:
            out["reason"] = self.reason
        return out


@dataclass
class QuestionPool:
    """One run's questions. `call` runs the two tools; `refusal` is why execute must wait."""

    answerer: Any = field(default_factory=NoAnswerer)
    questions: list[PooledQuestion] = field(default_factory=list)
    pending: PooledQuestion | None = None  # asked, waiting for a deferred answer (the run is paused)

    # -- state ---------------------------------------------------------------------------------------------
    def open(self) -> list[PooledQuestion]:
        return [q for q in self.questions if q.status == "open"]

    def find(self, question: str) -> PooledQuestion | None:
        """The pooled question a text names: the same words, or (when close enough) a paraphrase."""
        key = normalize(question)
        exact = [q for q in self.questions if normalize(q.question) == key]
        if exact:
            return exact[-1]
        keys = {normalize(q.question): q for q in self.questions}
        close = difflib.get_close_matches(key, list(keys), n=1, cutoff=0.75)
        return keys[close[0]] if close else None

    def snapshot(self) -> list[dict[str, Any]]:
        return [q.to_dict() for q in self.questions]

    def assumptions(self) -> list[str]:
        """What the agent assumed instead of asking: the reasons of dropped questions."""
        return [f"{q.reason} (instead of asking: {q.question})" for q in self.questions if q.status == "dropped" and q.reason]

    def clarifications(self) -> list[dict[str, str]]:
        return [{"question": q.question, "answer": q.answer} for q in self.questions if q.status == "answered" and q.answer]

    def refusal(self) -> str | None:
        """The message that refuses execute while questions are open; None when it may run."""
        waiting = self.open()
        if not waiting:
            return None
        listed = "; ".join(f"'{q.question}'" for q in waiting)
        return (f"execute refused: {len(waiting)} question(s) in the clarification pool are still open: {listed}. "
                "Use the answer when it comes, or call drop_question with the question and the assumption you make "
                "instead; then execute.")

    # -- tools -------------------------------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any], turn: int | None = None) -> tuple[dict[str, Any], PoolOutcome, str]:
        """(result, outcome, summary) of ask_user / drop_question; outcome `paused` asks the loop to pause."""
        text = args.get("question")
        if not isinstance(text, str) or not text.strip():
            return {"error": f'{name} takes {{"question": "..."}}' + (', "reason": "..."' if name == DROP_QUESTION else "")}, "error", "bad arguments"
        if name == ASK_USER:
            return self._ask(text.strip(), turn)
        return self._drop(text.strip(), args.get("reason"))

    def _ask(self, text: str, turn: int | None) -> tuple[dict[str, Any], PoolOutcome, str]:
        existing = self.find(text)
        if existing is not None and normalize(existing.question) == normalize(text):
            return ({"question": existing.question, **existing.to_dict(), "note": "this question is already in the pool"},
                    "ok", "asked again")
        if len(self.questions) >= MAX_QUESTIONS:
            return ({"error": f"the pool already holds {MAX_QUESTIONS} questions: decide the rest yourself and state "
                              "your assumptions"}, "refused", "question budget used up")
        entry = PooledQuestion(text, turn=turn)
        self.questions.append(entry)
        reply = self.answerer.answer(text)
        if reply == DEFER:
            self.pending = entry
            return {"question": text, "status": "open", "note": "sent to the user; the run waits for the answer"}, "paused", "waiting for the user"
        if reply is None:
            return {"question": text, "status": "open", "note": NO_ONE_ANSWERS}, "ok", "no one can answer"
        entry.status, entry.answer = "answered", reply
        return {"question": text, "status": "answered", "answer": reply}, "ok", f"answered: {reply}"

    def _drop(self, text: str, reason: Any) -> tuple[dict[str, Any], PoolOutcome, str]:
        if not isinstance(reason, str) or not reason.strip():
            return {"error": "drop_question needs a reason: the assumption you make instead of the answer"}, "error", "no reason"
        entry = self.find(text)
        if entry is None:
            listed = "; ".join(f"'{q.question}'" for q in self.open()) or "none"
            return {"error": f"no such question in the pool; open questions: {listed}"}, "error", "unknown question"
        if entry.status == "answered":
            return {"error": f"'{entry.question}' was already answered: {entry.answer}"}, "error", "already answered"
        entry.status, entry.reason = "dropped", reason.strip()
        return {"question": entry.question, "status": "dropped", "assumption": entry.reason,
                "open": [q.question for q in self.open()]}, "ok", f"dropped: {entry.reason}"

    # -- deferred answers (REST) ----------------------------------------------------------------------------
    def answer_posted(self, answers: dict[str, str | None]) -> tuple[dict[str, Any] | None, list[str]]:
        """Apply posted answers: the paused call's tool result, and notes about other open questions answered."""
        notes, pending_result = [], None
        for text, reply in answers.items():
            entry = self.find(text)
            if entry is None or entry.status != "open":
                continue
            if isinstance(reply, str) and reply.strip():
                entry.status, entry.answer = "answered", reply.strip()
                if entry is not self.pending:
                    notes.append(f"The user answered your earlier question '{entry.question}': {entry.answer}")
        if self.pending is not None:
            p = self.pending
            pending_result = ({"question": p.question, "status": "answered", "answer": p.answer} if p.status == "answered"
                              else {"question": p.question, "status": "open",
                                    "note": "the user gave no answer: call drop_question with this question and the assumption you make"})
            self.pending = None
        return pending_result, notes

    def unknown(self, answers: dict[str, Any]) -> list[str]:
        """Posted questions that match nothing open in the pool."""
        return [text for text in answers if (entry := self.find(text)) is None or entry.status != "open"]


def clarify_tool_specs(descriptions: dict[str, str]) -> list[ToolSpec]:
    """ask_user and drop_question as declared to the model (agent/tool_registry.py; descriptions from
    prompts/tools.yml)."""
    from .tool_registry import specs

    return specs((ASK_USER, DROP_QUESTION))


ASSUMPTION_LINE = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?assum(?:ption|ing)s?(?:\*\*)?\s*[:\-]\s*(.+)$", re.IGNORECASE | re.MULTILINE)


def assumptions_in(text: str) -> list[str]:
    """Lines of reasoning that state an assumption (`Assumption: ...`)."""
    return [m.group(1).strip() for m in ASSUMPTION_LINE.finditer(text or "") if m.group(1).strip()]
