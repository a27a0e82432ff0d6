"""The think-act loop: each turn the model writes its reasoning and makes exactly one tool call.

    provider.complete(conversation) -> reasoning + one call -> tool runs under the guards -> result
    appended -> ... -> execute succeeds (answered) | a budget runs out (gave_up) | the model or the
    database fails for good (error)

The loop knows neither a vendor's wire format (providers/) nor how tools run (tools.py); it owns
the conversation, the budgets (turns, time, repairs), retries of model calls, and the trace. A run
always ends with a result and a trace, whatever went wrong.

Three reasoning mechanisms hang off the loop, each switched per run in `AgentConfig`
(docs/reasoning.md): tips and profiles on compile results (tips/, profiling.py, attached by the
Toolbox); the clarification pool (clarify.py: `ask_user`/`drop_question`, execute waits for open
questions, a REST run pauses as `needs_clarification` and `resume`s with the answers); plan voting
(voting.py: `plans` attempts, majority answer) and two-tier repair (repair.py: a suspicious result
goes back for a code fix or a `replan`).
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot

from engine import Layer
from engine.access.readpolicy import policy_for
from smq_db.executors import Executor

from . import prompts
from .clarify import CLARIFY_TOOLS, DeferredAnswerer, NoAnswerer, QuestionPool, assumptions_in, clarify_tool_specs
from .config import AgentConfig
from .guards import RunGuards
from .profiling import Profiler
from .providers.base import Message, ModelResponse, Provider, ProviderError, ToolCall, ToolSpec
from .repair import REPLAN, RepairState, replan_spec
from .result import ANSWERED, ERROR, GAVE_UP, NEEDS_CLARIFICATION, AgentResult
from .retry import RetryStats, call_with_retries
from .sandbox import offered_tools
from .tips import TipRetriever, render
from .tool_registry import execute_in_run_spec
from .tools import EXECUTE, Toolbox, ToolOutcome, tool_specs
from .trace import Trace, Turn
from .voting import Equivalent, plain_equivalent, run_plans

log = logging.getLogger("smq.agent")

@dataclass
class Hooks:
    """Injection points: a turn callback (streaming), a cancel flag, and time/random for fast tests."""

    on_turn: Callable[[Turn], None] | None = None
    cancel: threading.Event | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    rand: Callable[[], float] = random.random


def starting_context(layer: Layer, question: str, role: str | None = None, plan: tuple[int, int] | None = None) -> str:
    """The first user message: the database, its dialect, every model with its description, the question
    (and, for plan voting, which plan of how many this attempt is)."""
    models = "\n".join(f"- {m['name']}: {' '.join(m['description'].split())}" for m in layer.model_list())
    role_note = (f"\nYou query as access role `{role}`: some rows and elements are hidden from you, and every tool "
                 "applies that role.\n") if role else ""
    text = prompts.render("context.md", database=layer.name, dialect=layer.dialect,
                          description=" ".join((layer.description or "").split()), models=models,
                          role_note=role_note, question=question.strip())
    if plan is not None:
        index, count = plan
        name = "plan_first.md" if index == 1 else "plan_other.md"
        text = text.rstrip() + "\n\n" + prompts.render(name, index=index, count=count, others=count - 1).strip() + "\n"
    return text


def system_prompt(config: AgentConfig, dialect: str = "") -> str:
    """The system prompt, with a section for each reasoning mechanism the run switches on."""
    text = prompts.render("system.md", max_smq_calls=config.max_smq_calls, max_turns=config.max_turns)
    sections = ["clarify_on.md" if config.clarify else "clarify_off.md"]
    if config.tips or config.profile_enabled(dialect):
        sections.append("checks.md")
    if config.repair_rounds > 0:
        sections.append("repair.md")
    extra = [prompts.render(name, repair_rounds=config.repair_rounds).strip() for name in sections]
    return text.rstrip() + "\n\n" + "\n\n".join(extra) + "\n"


def execute_spec(spec: ToolSpec) -> ToolSpec:
    """execute as the agent declares it: the `sql` of docs/agent.md's execute, plus an optional list of the assumptions made
    (declared in agent/tool_registry.py)."""
    return execute_in_run_spec()


class Agent:
    """One database, one provider, one configuration; `run(question)` may be called once per question.

    `answerer` decides who answers `ask_user` (clarify.py): nobody by default, a person at the terminal,
    or a REST client later (the run pauses; `resume` continues it with the answers). `equivalent` decides
    when two voting plans gave the same answer: the surfaces pass the scorer's rules
    (`agent.eval.equivalence.scorer_equivalence`), which the runtime itself never imports; without it,
    sorted rows are compared (`voting.plain_equivalent`).
    """

    def __init__(self, layer: Layer, executor: Executor, provider: Provider, config: AgentConfig, *,
                 role: str | None = None, hooks: Hooks | None = None, answerer: Any = None,
                 equivalent: Equivalent | None = None) -> None:
        self.layer = layer
        self.executor = executor
        self.provider = provider
        self.config = config
        self.role = role
        self.hooks = hooks or Hooks()
        self.answerer = answerer or NoAnswerer()
        self.equivalent = equivalent or plain_equivalent
        layer.role(role)  # an unknown role fails now, before any model call

    def run(self, question: str) -> AgentResult:
        if self.config.plans > 1:
            return run_plans(self, question, self.equivalent)
        return self.drive(self.start(question))

    def start(self, question: str, plan: tuple[int, int] | None = None) -> _Run:
        """A run's state, ready to loop: guards, tools (with tips and profiling as configured), pool, trace."""
        config = self.config
        guards = RunGuards(self.layer.dialect, self.layer.models, config.max_smq_calls, config.max_repairs,
                           policy=policy_for(self.layer.semantic))
        tips = TipRetriever(question, self.layer.dialect, cap=config.max_tips) if config.tips else None
        profiler = (Profiler(self.layer, self.executor, role=self.role, timeout_s=config.query_timeout_s)
                    if config.profile_enabled(self.layer.dialect) else None)
        toolbox = Toolbox(self.layer, self.executor, guards, role=self.role, max_rows=config.max_rows,
                          preview_rows=config.preview_rows, query_timeout_s=config.query_timeout_s,
                          extra_tools=offered_tools(config.tools, self.role), tips=tips, profiler=profiler)
        answerer = self.answerer
        if plan is not None and isinstance(answerer, DeferredAnswerer):
            answerer = NoAnswerer()  # voting attempts cannot pause one by one: they state assumptions instead
        pool = QuestionPool(answerer) if config.clarify else None
        trace = Trace(uuid.uuid4().hex, self.layer.name, question, self.provider.name, self.provider.model,
                      self.layer.dialect, self.role)
        return _Run(self, trace, toolbox, guards, question=question, plan=plan, pool=pool,
                    repair=RepairState(config.repair_rounds))

    def attempt(self, run: _Run) -> AgentResult:
        """Loop one run to its end without writing a trace file (plan voting writes one trace for all)."""
        return self.drive(run, save=False)

    def drive(self, run: _Run, *, save: bool = True) -> AgentResult:
        """Loop until the run ends or pauses; the result carries the run to resume when it paused."""
        try:
            status, reason, answer = run.loop()
        except Exception as exc:  # noqa: BLE001 - a bug must still end the run with a trace
            log.exception("agent run %s failed", run.trace.run_id)
            status, reason, answer = ERROR, f"internal error: {type(exc).__name__}: {exc}", None
        run.trace.pool = run.pool.snapshot() if run.pool is not None else None
        run.trace.assumptions = run.assumptions()
        run.trace.clarifications = run.pool.clarifications() if run.pool is not None else []
        result = self.finish(run.trace, status, reason, answer, save=save)
        if status == NEEDS_CLARIFICATION and run.pool is not None:
            result.questions = [q.question for q in run.pool.open()]
            result.paused = run
        return result

    def resume(self, run: _Run, answers: dict[str, str | None], hooks: Hooks | None = None) -> AgentResult:
        """Continue a paused run with the user's answers (question -> answer; a missing answer leaves it open).

        `hooks` replace the first request's (its stream, and with it its cancel flag, are gone)."""
        if hooks is not None:
            self.hooks = hooks
        run.resume(answers)
        return self.drive(run)

    def finish(self, trace: Trace, status: str, reason: str | None, answer: Any, *, save: bool = True) -> AgentResult:
        trace.status, trace.reason = status, reason
        trace.finished_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        if answer is not None:
            trace.sql, trace.columns, trace.rows, trace.truncated = answer.sql, answer.columns, answer.rows, answer.truncated
        path = None
        if save and self.config.trace_dir is not None:
            try:
                path = trace.save(Path(self.config.trace_dir))
            except OSError as exc:
                log.warning("cannot write the trace of run %s: %s", trace.run_id, exc)
        return AgentResult(status, trace.sql, trace.columns, trace.rows, trace.truncated, reason, trace, path,
                           assumptions=list(trace.assumptions), clarifications=list(trace.clarifications), vote=trace.vote)


@dataclass
class _Run:
    """The mutable state of one run (kept off `Agent`, which stays reusable); it survives a pause."""

    agent: Agent
    trace: Trace
    toolbox: Toolbox
    guards: RunGuards
    question: str = ""
    plan: tuple[int, int] | None = None
    pool: QuestionPool | None = None
    repair: RepairState = field(default_factory=RepairState)
    messages: list[Message] = field(default_factory=list)
    next_index: int = 1
    deadline: float | None = None
    paused_at: float | None = None
    pending: tuple[ToolCall, Turn] | None = None  # the ask_user call a paused run waits on
    stated: list[str] = field(default_factory=list)  # assumptions stated in reasoning or with execute

    def assumptions(self) -> list[str]:
        dropped = self.pool.assumptions() if self.pool is not None else []
        return list(dict.fromkeys(self.stated + dropped))

    def tools(self) -> list[ToolSpec]:
        """The tools this turn: the three core tools (execute may carry assumptions), the exploration tools, the
        pool's two, and `replan` once there is something to repair."""
        config = self.agent.config
        specs = [execute_spec(s) if s.name == EXECUTE else s
                 for s in tool_specs(offered_tools(config.tools, self.agent.role))]
        descriptions = prompts.tool_descriptions()
        if self.pool is not None:
            specs += clarify_tool_specs(descriptions)
        if self.repair.offered:
            specs.append(replan_spec(descriptions))
        return specs

    def loop(self) -> tuple[str, str | None, ToolOutcome | None]:
        agent, config, hooks = self.agent, self.agent.config, self.agent.hooks
        system = system_prompt(config, agent.layer.dialect)
        if not self.messages:
            self.messages.append(Message("user", starting_context(agent.layer, self.question, agent.role, self.plan)))
            self.deadline = hooks.clock() + config.run_timeout_s
        deadline = self.deadline if self.deadline is not None else hooks.clock() + config.run_timeout_s
        for index in range(self.next_index, config.max_turns + 1):
            self.next_index = index + 1
            if hooks.cancel is not None and hooks.cancel.is_set():
                return ERROR, "cancelled by the caller", None
            left = deadline - hooks.clock()
            if left <= 0:
                return GAVE_UP, f"the run's time budget ({config.run_timeout_s:g} s) ran out", None
            turn = Turn(index, plan=self.plan[0] if self.plan else None)
            started = hooks.clock()
            stats = RetryStats()
            tools = self.tools()
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
            if outcome.outcome == "paused":
                self.paused_at = hooks.clock()
                return NEEDS_CLARIFICATION, "waiting for the user's answer to: " + "; ".join(
                    q.question for q in (self.pool.open() if self.pool else [])), None
            if outcome.outcome == "answered":
                return ANSWERED, None, outcome
            if outcome.outcome == "fatal":
                return ERROR, outcome.summary, None
            if outcome.outcome == "failed" and turn.tool == EXECUTE and not self.guards.note_failed_execute():
                return GAVE_UP, (f"the final SQL failed {self.guards.failed_executes} times "
                                 f"({config.max_repairs} repairs allowed): {outcome.summary}"), None
        return GAVE_UP, f"the step budget ({config.max_turns} turns) ran out before an answer", None

    def resume(self, answers: dict[str, str | None]) -> None:
        """Put the posted answers into the conversation: the paused call's result, then notes on other questions."""
        if self.pool is None or self.pending is None:
            raise RuntimeError("this run is not waiting for answers")
        call, turn = self.pending
        result, notes = self.pool.answer_posted(answers)
        result = result or {"question": call.arguments.get("question"), "status": "open"}
        turn.result, turn.pool = result, self.pool.snapshot()
        turn.summary = f"answered: {result['answer']}" if result.get("status") == "answered" else "the user gave no answer"
        self.messages.append(_tool_message(call, result))
        if notes:
            self.messages.append(Message("user", "\n".join(notes)))
        self.pending = None
        if self.paused_at is not None and self.deadline is not None:
            self.deadline += self.agent.hooks.clock() - self.paused_at  # waiting for the user is not the run's time
        self.paused_at = None

    def _turn(self, turn: Turn, response: ModelResponse, turns_left: int) -> ToolOutcome | None:
        """Apply one model response: run its first call, refuse the others, extend the conversation."""
        turn.reasoning, turn.thoughts, turn.usage = response.text, response.thoughts, response.usage
        self.stated.extend(a for a in assumptions_in(response.text) if a not in self.stated)
        self.messages.append(Message("assistant", response.text, tool_calls=response.tool_calls, raw=response.raw))
        if not response.tool_calls:
            why = f" (finish reason {response.finish_reason})" if response.finish_reason not in (None, "STOP", "stop") else ""
            turn.summary = f"no tool call{why}; the model was reminded to call one"
            self.messages.append(Message("user", prompts.text("no_tool_call.md").strip()))
            return None
        first, *extra = response.tool_calls
        outcome = self._call(first, turn)
        result = dict(outcome.result)
        if outcome.outcome not in ("answered", "paused") and turns_left <= 3:
            result["note"] = (f"{turns_left} turn(s) left in this run: finish with execute" if turns_left
                              else "this was the last turn")
        turn.tool, turn.arguments, turn.result = first.name, first.arguments, result
        turn.outcome, turn.summary = outcome.outcome, outcome.summary
        turn.tips, turn.profiles = outcome.meta.get("tips", []), outcome.meta.get("profiles", [])
        if outcome.outcome == "paused":
            self.pending = (first, turn)  # the tool's answer is the user's: it is added when the run resumes
        else:
            self.messages.append(_tool_message(first, result))
        for call in extra:
            turn.ignored_calls.append(call.name)
            self.messages.append(_tool_message(call, {"error": "only one tool call per turn is allowed: this call was not "
                                                               "run; make it again in your next turn if you still need it"}))
        return outcome

    def _call(self, call: ToolCall, turn: Turn) -> ToolOutcome:
        """Run one call: the pool's tools and replan here, execute behind the pool and the repair check."""
        if call.name in CLARIFY_TOOLS and self.pool is not None and not call.argument_error:
            result, verdict, summary = self.pool.call(call.name, call.arguments, turn.index)
            turn.pool = self.pool.snapshot()
            return ToolOutcome(result, verdict, summary)
        if call.name == REPLAN and self.repair.offered and not call.argument_error:
            reason = call.arguments.get("reason")
            result, verdict, summary = self.repair.replan(reason if isinstance(reason, str) and reason.strip() else "(no reason given)")
            if verdict == "ok":
                self.guards.failed_executes = 0  # a new plan gets its own budget of code fixes
            return ToolOutcome(result, verdict, summary)
        if call.name != EXECUTE:
            return self.toolbox.call(call)
        if self.pool is not None and (refusal := self.pool.refusal()):
            return ToolOutcome({"error": refusal}, "refused", "questions still open")
        stated = call.arguments.get("assumptions")
        if isinstance(stated, list):
            self.stated.extend(str(a).strip() for a in stated if str(a).strip() and str(a).strip() not in self.stated)
        outcome = self.toolbox.call(call)
        if outcome.outcome == "answered":
            return self._review(outcome)
        if outcome.outcome == "failed":
            self.repair.note_failed()
            self._repair_hints(outcome, call.arguments.get("sql"))
        return outcome

    def _review(self, outcome: ToolOutcome) -> ToolOutcome:
        """A result that looks wrong goes back to the model (two-tier repair) instead of ending the run."""
        dialect = self.agent.layer.dialect
        problem = self.repair.review(outcome.sql or "", outcome.columns, outcome.rows, dialect)
        if problem is None:
            return outcome
        body: dict[str, Any] = {"columns": outcome.columns, "rows": outcome.rows[:10], "row_count": len(outcome.rows),
                                "problem": f"this result looks wrong: {problem}"}
        rejected = ToolOutcome(body, "rejected", f"result sent back: {problem}")
        self._repair_hints(rejected, outcome.sql)
        body["next"] = self.repair.next_steps()
        return rejected

    def _repair_hints(self, outcome: ToolOutcome, sql: Any) -> None:
        """Profile warnings (repeated if need be) and repair tips for the final SQL, added to a failed or rejected execute."""
        if not isinstance(sql, str):
            return
        try:
            tree = sqlglot.parse_one(sql, read=self.agent.layer.dialect)
        except sqlglot.errors.ParseError:
            tree = None
        toolbox = self.toolbox
        if tree is not None and toolbox.profiler is not None and outcome.outcome == "rejected":
            report = toolbox.profiler.inspect(tree, repeat=True)
            if report.warnings:
                outcome.result["warnings"] = report.warnings[:5]
            outcome.meta["profiles"] = report.profiles
        if toolbox.tips is not None:
            found = toolbox.tips.retrieve(tree, None, outcome.outcome)
            if found:
                outcome.result["tips"] = render(found)
                outcome.meta["tips"] = [t.id for t in found]
        if outcome.outcome == "failed" and self.repair.enabled and self.repair.left:
            outcome.result["next"] = "fix the SQL and execute again; if the plan itself is wrong, call replan with the reason"

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


def run_agent(layer: Layer, executor: Executor, provider: Provider, question: str, config: AgentConfig | None = None, *,
              role: str | None = None, hooks: Hooks | None = None, answerer: Any = None,
              equivalent: Equivalent | None = None) -> AgentResult:
    """One question, one run (or `config.plans` voting attempts): the convenience every surface uses."""
    return Agent(layer, executor, provider, config or AgentConfig(), role=role, hooks=hooks, answerer=answerer,
                 equivalent=equivalent).run(question)
