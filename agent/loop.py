"""The think-act loop: each turn the model writes its reasoning and makes exactly one tool call.

    provider.complete(conversation) -> reasoning + one call -> tool runs under the guards -> result
    appended -> ... -> execute succeeds (answered) | a budget runs out (gave_up) | the model or the
    database fails for good (error)

The loop knows neither a vendor's wire format (providers/) nor how tools run (tools.py); it owns
the conversation, the budgets (turns, time, repairs), retries of model calls, and the trace. A run
always ends with a result and a trace, whatever went wrong.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from engine import Layer

from . import prompts
from .config import AgentConfig
from .guards import RunGuards
from .providers.base import Message, ModelResponse, Provider, ProviderError, ToolCall
from .retry import RetryStats, call_with_retries
from .tools import EXECUTE, SqlExecutor, ToolOutcome, Toolbox, tool_specs
from .trace import Trace, Turn

log = logging.getLogger("smq.agent")

ANSWERED, GAVE_UP, ERROR = "answered", "gave_up", "error"


@dataclass
class AgentResult:
    """What a run produced; `to_json()` is the shape every surface returns (CLI --json, REST)."""

    status: str  # answered | gave_up | error
    sql: str | None
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    reason: str | None
    trace: Trace
    trace_path: Path | None = None

    @property
    def tokens(self) -> dict[str, Any]:
        return self.trace.tokens()

    def to_json(self, trace_ref: str | None = None) -> dict[str, Any]:
        ref = trace_ref if trace_ref is not None else (str(self.trace_path) if self.trace_path else None)
        return {"status": self.status, "sql": self.sql, "columns": self.columns, "rows": self.rows,
                "truncated": self.truncated, "reason": self.reason, "trace": ref, "run_id": self.trace.run_id,
                "turns": len(self.trace.turns), "tokens": self.tokens}


@dataclass
class Hooks:
    """Injection points: a turn callback (streaming), a cancel flag, and time/random for fast tests."""

    on_turn: Callable[[Turn], None] | None = None
    cancel: threading.Event | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    rand: Callable[[], float] = random.random


def starting_context(layer: Layer, question: str, role: str | None = None) -> str:
    """The first user message: the database, its dialect, every model with its description, the question."""
    models = "\n".join(f"- {m['name']}: {' '.join(m['description'].split())}" for m in layer.model_list())
    role_note = (f"\nYou query as access role `{role}`: some rows and elements are hidden from you, and every tool "
                 "applies that role.\n") if role else ""
    return prompts.render("context.md", database=layer.name, dialect=layer.dialect,
                          description=" ".join((layer.description or "").split()), models=models,
                          role_note=role_note, question=question.strip())


def system_prompt(config: AgentConfig) -> str:
    return prompts.render("system.md", max_smq_calls=config.max_smq_calls, max_turns=config.max_turns)


class Agent:
    """One database, one provider, one configuration; `run(question)` may be called once per question."""

    def __init__(self, layer: Layer, executor: SqlExecutor, provider: Provider, config: AgentConfig, *,
                 role: str | None = None, hooks: Hooks | None = None) -> None:
        self.layer = layer
        self.executor = executor
        self.provider = provider
        self.config = config
        self.role = role
        self.hooks = hooks or Hooks()
        layer.role(role)  # an unknown role fails now, before any model call

    def run(self, question: str) -> AgentResult:
        config = self.config
        guards = RunGuards(self.layer.dialect, self.layer.models, config.max_smq_calls, config.max_repairs)
        toolbox = Toolbox(self.layer, self.executor, guards, role=self.role, max_rows=config.max_rows,
                          preview_rows=config.preview_rows, query_timeout_s=config.query_timeout_s,
                          extra_tools=config.tools)
        trace = Trace(uuid.uuid4().hex, self.layer.name, question, self.provider.name, self.provider.model,
                      self.layer.dialect, self.role)
        run = _Run(self, trace, toolbox, guards)
        try:
            status, reason, answer = run.loop(question)
        except Exception as exc:  # noqa: BLE001 - a bug must still end the run with a trace
            log.exception("agent run %s failed", trace.run_id)
            status, reason, answer = ERROR, f"internal error: {type(exc).__name__}: {exc}", None
        return self._finish(trace, status, reason, answer)

    def _finish(self, trace: Trace, status: str, reason: str | None, answer: ToolOutcome | None) -> AgentResult:
        trace.status, trace.reason = status, reason
        trace.finished_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        if answer is not None:
            trace.sql, trace.columns, trace.rows, trace.truncated = answer.sql, answer.columns, answer.rows, answer.truncated
        path = None
        if self.config.trace_dir is not None:
            try:
                path = trace.save(Path(self.config.trace_dir))
            except OSError as exc:
                log.warning("cannot write the trace of run %s: %s", trace.run_id, exc)
        return AgentResult(status, trace.sql, trace.columns, trace.rows, trace.truncated, reason, trace, path)


@dataclass
class _Run:
    """The mutable state of one run (kept off `Agent`, which stays reusable)."""

    agent: Agent
    trace: Trace
    toolbox: Toolbox
    guards: RunGuards
    messages: list[Message] = field(default_factory=list)

    def loop(self, question: str) -> tuple[str, str | None, ToolOutcome | None]:
        agent, config, hooks = self.agent, self.agent.config, self.agent.hooks
        system = system_prompt(config)
        tools = tool_specs(config.tools)
        self.messages.append(Message("user", starting_context(agent.layer, question, agent.role)))
        deadline = hooks.clock() + config.run_timeout_s
        for index in range(1, config.max_turns + 1):
            if hooks.cancel is not None and hooks.cancel.is_set():
                return ERROR, "cancelled by the caller", None
            left = deadline - hooks.clock()
            if left <= 0:
                return GAVE_UP, f"the run's time budget ({config.run_timeout_s:g} s) ran out", None
            turn = Turn(index)
            started = hooks.clock()
            stats = RetryStats()
            try:
                response = call_with_retries(
                    lambda: agent.provider.complete(system, self.messages, tools,
                                                    timeout_s=min(config.request_timeout_s, max(deadline - hooks.clock(), 1.0))),
                    config.retry, stats=stats, deadline=deadline, sleep=hooks.sleep, rand=hooks.rand, clock=hooks.clock)
            except ProviderError as err:
                turn.retries, turn.outcome, turn.summary = stats.retries, "fatal", f"model call failed: {err.message}"
                self._record(turn, started)
                return ERROR, f"the model call failed: {err.message}", None
            turn.retries = stats.retries
            outcome = self._turn(turn, response, config.max_turns - index)
            self._record(turn, started)
            if outcome is None:
                continue
            if outcome.outcome == "answered":
                return ANSWERED, None, outcome
            if outcome.outcome == "fatal":
                return ERROR, outcome.summary, None
            if outcome.outcome == "failed" and turn.tool == EXECUTE and not self.guards.note_failed_execute():
                return GAVE_UP, (f"the final SQL failed {self.guards.failed_executes} times "
                                 f"({config.max_repairs} repairs allowed): {outcome.summary}"), None
        return GAVE_UP, f"the step budget ({config.max_turns} turns) ran out before an answer", None

    def _turn(self, turn: Turn, response: ModelResponse, turns_left: int) -> ToolOutcome | None:
        """Apply one model response: run its first call, refuse the others, extend the conversation."""
        turn.reasoning, turn.thoughts, turn.usage = response.text, response.thoughts, response.usage
        self.messages.append(Message("assistant", response.text, tool_calls=response.tool_calls, raw=response.raw))
        if not response.tool_calls:
            why = f" (finish reason {response.finish_reason})" if response.finish_reason not in (None, "STOP", "stop") else ""
            turn.summary = f"no tool call{why}; the model was reminded to call one"
            self.messages.append(Message("user", prompts.text("no_tool_call.md").strip()))
            return None
        first, *extra = response.tool_calls
        outcome = self.toolbox.call(first)
        result = dict(outcome.result)
        if outcome.outcome != "answered" and turns_left <= 3:
            result["note"] = (f"{turns_left} turn(s) left in this run: finish with execute" if turns_left
                              else "this was the last turn")
        turn.tool, turn.arguments, turn.result = first.name, first.arguments, result
        turn.outcome, turn.summary = outcome.outcome, outcome.summary
        self.messages.append(_tool_message(first, result))
        for call in extra:
            turn.ignored_calls.append(call.name)
            self.messages.append(_tool_message(call, {"error": "only one tool call per turn is allowed: this call was not "
                                                               "run; make it again in your next turn if you still need it"}))
        return outcome

    def _record(self, turn: Turn, started: float) -> None:
        hooks = self.agent.hooks
        turn.elapsed_ms = round((hooks.clock() - started) * 1000, 1)
        self.trace.turns.append(turn)
        if hooks.on_turn is not None:
            try:
                hooks.on_turn(turn)
            except Exception:  # noqa: BLE001 - a failing listener must not break the run
                log.warning("on_turn callback failed", exc_info=True)


def _tool_message(call: ToolCall, result: dict[str, Any]) -> Message:
    return Message("tool", tool_call_id=call.id, name=call.name, result=result)


def run_agent(layer: Layer, executor: SqlExecutor, provider: Provider, question: str, config: AgentConfig | None = None, *,
              role: str | None = None, hooks: Hooks | None = None) -> AgentResult:
    """One question, one run: the convenience every surface uses."""
    return Agent(layer, executor, provider, config or AgentConfig(), role=role, hooks=hooks).run(question)
