"""The agent over REST: `POST /v1/databases/{db}/ask` and its server-sent-events twin `/ask/stream`.

The run uses the caller's role on every tool, the service's row cap and query timeout, and the
database's executor from the registry. The model comes from the environment (see agent/config.py);
without one the answer is a 503 problem naming the variables to set. Tests swap the model by
overriding the `get_provider_factory` dependency.
"""

from __future__ import annotations

import json
import queue
import threading
from typing import Annotated, Any, Callable, Iterator

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from agent import AgentConfig, AgentConfigError, AgentNotConfigured, Hooks, make_provider, run_agent
from agent.loop import AgentResult
from agent.providers.base import Provider
from agent.trace import Turn

from ..deps import Database, DatabaseDep, StateDep, executor_for
from ..errors import error_items, problem
from .schemas import Strict, problem_responses

router = APIRouter(prefix="/v1/databases", tags=["agent"], responses=problem_responses(400, 401, 403, 404, 422, 503))

KEEPALIVE_S = 15.0  # an SSE comment while a model call is in flight keeps proxies from closing the stream

ProviderFactory = Callable[[], Provider]


class AskRequest(Strict):
    question: str = Field(min_length=1, max_length=8000, description="the question, in plain language",
                          examples=["Which three countries placed the most orders in 2024?"])
    include_trace: bool = Field(False, description="also return the whole trace (every turn) as `trace_detail`")


class AskResponse(BaseModel):
    status: str = Field(description="answered | gave_up | error")
    sql: str | None = Field(description="the final SQL the agent executed")
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    reason: str | None = Field(None, description="why there is no answer (gave_up / error)")
    trace: str | None = Field(description="file name of the trace in the service's trace folder")
    run_id: str
    turns: int
    tokens: dict[str, Any] = Field(description="input/output/thinking/total, and per turn")
    trace_detail: dict[str, Any] | None = None


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
             factory: ProviderFactory) -> tuple[Provider, Any, AgentConfig] | JSONResponse:
    """The provider, the executor and the run's configuration, or the problem that stops the request."""
    try:
        provider = factory()
    except (AgentNotConfigured, AgentConfigError) as err:
        return _not_configured(err, request)
    executor = executor_for(state, database)  # 503 problems when the backend is down
    settings = state.settings
    config = config.replace(max_rows=settings.max_rows, query_timeout_s=settings.query_timeout_s)
    return provider, executor, config


def _body(result: AgentResult, include_trace: bool) -> dict[str, Any]:
    body = result.to_json(trace_ref=result.trace_path.name if result.trace_path else None)
    if include_trace:
        body["trace_detail"] = result.trace.to_dict()
    return body


@router.post("/{db}/ask", response_model=AskResponse, response_model_exclude_none=False,
             summary="ask: the agent answers a question (explore with SMQs, then one read-only SQL)")
def ask(body: AskRequest, request: Request, database: DatabaseDep, state: StateDep, config: ConfigDep,
        factory: FactoryDep) -> Any:
    prepared = _prepare(request, database, state, config, factory)
    if isinstance(prepared, JSONResponse):
        return prepared
    provider, executor, config = prepared
    result = run_agent(database.layer, executor, provider, body.question, config, role=database.role)
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
    prepared = _prepare(request, database, state, config, factory)
    if isinstance(prepared, JSONResponse):
        return prepared
    provider, executor, config = prepared
    events: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()
    cancel = threading.Event()

    def on_turn(turn: Turn) -> None:
        events.put(("turn", turn.to_dict()))

    def work() -> None:
        try:
            result = run_agent(database.layer, executor, provider, body.question, config, role=database.role,
                               hooks=Hooks(on_turn=on_turn, cancel=cancel))
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
