"""The agent over REST: `POST /v1/databases/{db}/ask` and its server-sent-events twin `/ask/stream`.

The run uses the caller's role on every tool, the service's row cap and query timeout, and the
database's executor from the registry. The model comes from the environment (see agent/config.py);
without one the answer is a 503 problem naming the variables to set. Tests swap the model by
overriding the `get_provider_factory` dependency.

The reasoning switches (docs/reasoning.md) are request fields: `tips`, `profile`, `plans`,
`repair_rounds`, `clarify` (unset: the service's configuration). With `clarify: true` the agent may
ask the caller: the answer is then `{"status": "needs_clarification", "run_id", "questions": [...]}`
and the run waits in memory (TTL, capped) until `POST /v1/databases/{db}/ask/{run_id}/answers`
brings the answers; that request answers like `/ask` (or pauses again on a further question).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from agent import AgentConfig, AgentConfigError, AgentNotConfigured, Hooks, make_provider
from agent.clarify import DeferredAnswerer
from agent.config import MAX_PLANS
from agent.eval.equivalence import scorer_equivalence
from agent.loop import NEEDS_CLARIFICATION, Agent, AgentResult
from agent.providers.base import Provider
from agent.trace import Turn
from engine.lru import LruCache

from ..deps import Database, DatabaseDep, StateDep, executor_for
from ..errors import error_items, problem
from .schemas import Strict, problem_responses

if TYPE_CHECKING:
    from smq_db.executors import Executor

router = APIRouter(prefix="/v1/databases", tags=["agent"], responses=problem_responses(400, 401, 403, 404, 422, 503))

KEEPALIVE_S = 15.0  # an SSE comment while a model call is in flight keeps proxies from closing the stream
PAUSED_TTL_S = 15 * 60.0  # a run waiting for answers is forgotten after this long
PAUSED_MAX = 64  # runs waiting at once (the oldest is forgotten first): each holds a conversation in memory

ProviderFactory = Callable[[], Provider]


class AskRequest(Strict):
    question: str = Field(min_length=1, max_length=8000, description="the question, in plain language",
                          examples=["Which three countries placed the most orders in 2024?"])
    include_trace: bool = Field(False, description="also return the whole trace (every turn) as `trace_detail`")
    clarify: bool | None = Field(None, description="let the agent ask you questions (`needs_clarification`); false: it "
                                                   "states its assumptions instead (default: the service's setting)")
    tips: bool | None = Field(None, description="tips on compile results (default: the service's setting)")
    profile: bool | None = Field(None, description="profile warnings on compile results (default: the service's setting)")
    plans: int | None = Field(None, ge=1, le=MAX_PLANS, description="plan voting: attempts whose majority answer wins")
    repair_rounds: int | None = Field(None, ge=0, le=10, description="two-tier repair rounds (0: off)")


class AnswersRequest(Strict):
    answers: dict[str, str | None] = Field(description="question (as the agent asked it) -> answer; null or a missing "
                                                       "question: no answer, the agent states its assumption",
                                           examples=[{"Should cancelled orders count?": "No"}])
    include_trace: bool = Field(False, description="also return the whole trace (every turn) as `trace_detail`")


class AskResponse(BaseModel):
    status: str = Field(description="answered | gave_up | error | needs_clarification")
    sql: str | None = Field(description="the final SQL the agent executed")
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    reason: str | None = Field(None, description="why there is no answer (gave_up / error)")
    trace: str | None = Field(description="file name of the trace in the service's trace folder")
    run_id: str
    turns: int
    tokens: dict[str, Any] = Field(description="input/output/thinking/total, and per turn")
    assumptions: list[str] = Field(default_factory=list, description="what the agent assumed instead of asking")
    clarifications: list[dict[str, Any]] = Field(default_factory=list, description="questions you answered")
    questions: list[str] | None = Field(None, description="needs_clarification: the questions to answer at "
                                                          "/ask/{run_id}/answers")
    vote: dict[str, Any] | None = Field(None, description="plan voting: groups of equivalent answers and every candidate")
    trace_detail: dict[str, Any] | None = None


@dataclass
class _Paused:
    agent: Agent
    run: Any
    database: str
    principal: str
    role: str | None
    expires: float = 0.0


class PausedRuns:
    """Runs waiting for the caller's answers, in memory: expire after `ttl_s`, at most `cap` at once."""

    def __init__(self, ttl_s: float = PAUSED_TTL_S, cap: int = PAUSED_MAX, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self.cap, self.clock = ttl_s, cap, clock
        self._runs: LruCache[str, _Paused] = LruCache(cap)
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self.clock()
        self._runs.remove_if(lambda _, entry: entry.expires <= now)

    def put(self, run_id: str, entry: _Paused) -> None:
        """Keep a paused run for `ttl_s` from now (again from now when an answer left it waiting)."""
        with self._lock:
            self._expire()
            entry.expires = self.clock() + self.ttl_s
            self._runs.put(run_id, entry)

    def take(self, run_id: str, database: Database, rebuild: Callable[[AgentConfig], Agent] | None = None) -> _Paused | None:
        """The run, removed (one resume at a time), if it exists, has not expired and belongs to this caller.
        (`rebuild` makes this process's agent for a run paused elsewhere: service.paused_runs_redis.)"""
        with self._lock:
            self._expire()
            entry = self._runs.peek(run_id)
            if entry is None or (entry.database, entry.principal, entry.role) != (database.name, database.principal.name, database.role):
                return None
            return self._runs.pop(run_id)

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._runs)


_STORE_LOCK = threading.Lock()


def paused_runs(request: Request) -> PausedRuns:
    """The app's store of paused runs (created on first use)."""
    with _STORE_LOCK:
        store = getattr(request.app.state, "paused_runs", None)
        if not isinstance(store, PausedRuns):
            store = request.app.state.paused_runs = PausedRuns()
        return store


def get_agent_config(request: Request) -> AgentConfig:
    """`app.state.agent_config` when the app sets one, else the environment (read per request)."""
    config = getattr(request.app.state, "agent_config", None)
    return config if isinstance(config, AgentConfig) else AgentConfig.from_env()


ConfigDep = Annotated[AgentConfig, Depends(get_agent_config)]


def get_provider_factory(config: ConfigDep) -> ProviderFactory:
    """How a run gets its model; override this dependency to inject a scripted provider."""
    return lambda: make_provider(config)


FactoryDep = Annotated[ProviderFactory, Depends(get_provider_factory)]


def _not_configured(err: AgentNotConfigured | AgentConfigError, request: Request) -> JSONResponse:
    return problem(503, err.code, err.message, request.url.path, errors=error_items(err),
                   title="No language model is configured for the agent")


def _prepare(request: Request, database: Database, state: Any, config: AgentConfig,
             factory: ProviderFactory, body: AskRequest) -> tuple[Provider, Any, AgentConfig] | JSONResponse:
    """The provider, the executor and the run's configuration, or the problem that stops the request."""
    try:
        provider = factory()
    except (AgentNotConfigured, AgentConfigError) as err:
        return _not_configured(err, request)
    executor = executor_for(state, database)  # 503 problems when the backend is down
    settings = state.settings
    switches = {k: getattr(body, k) for k in ("clarify", "tips", "profile", "plans", "repair_rounds") if getattr(body, k) is not None}
    config = config.replace(max_rows=settings.max_rows, query_timeout_s=settings.query_timeout_s, **switches)
    return provider, executor, config


def _body(result: AgentResult, include_trace: bool) -> dict[str, Any]:
    body = result.to_json(trace_ref=result.trace_path.name if result.trace_path else None)
    if include_trace:
        body["trace_detail"] = result.trace.to_dict()
    return body


def _keep_if_paused(request: Request, database: Database, agent: Agent, result: AgentResult) -> None:
    if result.status == NEEDS_CLARIFICATION and result.paused is not None:
        paused_runs(request).put(result.trace.run_id, _Paused(agent, result.paused, database.name, database.principal.name,
                                                               database.role))


def _agent(database: Database, executor: Executor, provider: Provider, config: AgentConfig, hooks: Hooks | None = None) -> Agent:
    """The agent of one request; with clarification on, questions go back to the caller (the run pauses)."""
    return Agent(database.layer, executor, provider, config, role=database.role, hooks=hooks,
                 answerer=DeferredAnswerer() if config.clarify else None, equivalent=scorer_equivalence())


@router.post("/{db}/ask", response_model=AskResponse, response_model_exclude_none=False,
             summary="ask: the agent answers a question (explore with SMQs, then one read-only SQL)")
def ask(body: AskRequest, request: Request, database: DatabaseDep, state: StateDep, config: ConfigDep,
        factory: FactoryDep) -> Any:
    prepared = _prepare(request, database, state, config, factory, body)
    if isinstance(prepared, JSONResponse):
        return prepared
    provider, executor, config = prepared
    agent = _agent(database, executor, provider, config)
    result = agent.run(body.question)
    _keep_if_paused(request, database, agent, result)
    return AskResponse(**_body(result, body.include_trace))


@router.post("/{db}/ask/{run_id}/answers", response_model=AskResponse, response_model_exclude_none=False,
             responses=problem_responses(404),
             summary="answer the questions of a run that needs clarification; the run goes on")
def answer(run_id: str, body: AnswersRequest, request: Request, database: DatabaseDep, state: StateDep,
           factory: FactoryDep) -> Any:
    store = paused_runs(request)
    try:  # a run paused on another replica is rebuilt on this one's layer, executor and model
        entry = store.take(run_id, database, rebuild=lambda config: _agent(database, executor_for(state, database),
                                                                            factory(), config))
    except (AgentNotConfigured, AgentConfigError) as err:
        return _not_configured(err, request)
    if entry is None:
        return problem(404, "run_not_found", f"no run {run_id} is waiting for answers on '{database.name}' for this caller "
                                             f"(runs wait {PAUSED_TTL_S / 60:g} minutes, then they are forgotten)",
                       request.url.path, title="No such paused run")
    unknown = entry.run.pool.unknown(body.answers)
    if unknown:
        store.put(run_id, entry)
        open_questions = [q.question for q in entry.run.pool.open()]
        return problem(422, "unknown_question", f"not an open question of run {run_id}: {'; '.join(unknown)}; the open "
                                                f"questions are: {'; '.join(open_questions)}", request.url.path)
    result = entry.agent.resume(entry.run, body.answers, hooks=Hooks())
    _keep_if_paused(request, database, entry.agent, result)
    return AskResponse(**_body(result, body.include_trace))


def sse(event: str, data: dict[str, Any]) -> str:
    """One server-sent event; JSON on a single `data:` line."""
    return f"event: {event}\ndata: {json.dumps(data, default=str, separators=(',', ':'))}\n\n"


@router.post("/{db}/ask/stream", summary="ask, streamed: one `turn` event per turn, then a `result` event",
             response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "server-sent events: `turn` (one per turn), then `result` (the /ask body)"}})
def ask_stream(body: AskRequest, request: Request, database: DatabaseDep, state: StateDep, config: ConfigDep,
               factory: FactoryDep) -> Any:
    prepared = _prepare(request, database, state, config, factory, body)
    if isinstance(prepared, JSONResponse):
        return prepared
    provider, executor, config = prepared
    events: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()
    cancel = threading.Event()

    def on_turn(turn: Turn) -> None:
        events.put(("turn", turn.to_dict()))

    def work() -> None:
        try:
            agent = _agent(database, executor, provider, config, Hooks(on_turn=on_turn, cancel=cancel))
            result = agent.run(body.question)
            _keep_if_paused(request, database, agent, result)  # resumed at /ask/{run_id}/answers (not streamed)
            events.put(("result", _body(result, body.include_trace)))
        finally:
            events.put(None)

    def stream() -> Iterator[str]:
        worker = threading.Thread(target=work, name="smq-agent-run", daemon=True)
        worker.start()
        try:
            while True:
                try:
                    item = events.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if item is None:
                    return
                yield sse(*item)
        finally:
            cancel.set()  # the client went away: the run stops before its next model call

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
