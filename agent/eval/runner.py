"""Running instances: one attempt of one instance (agent or oracle SQL), and the pool of worker slots.

Each instance runs in its own thread, watched by one of N worker slots. An instance past its hard
timeout is abandoned (its cancel flag set, its late result discarded) and the slot moves on, so one
hung model call or query never stalls the run. Only the slot writes files, so an abandoned instance
can never overwrite anything. Nothing here raises for an instance's failure: every failure becomes
an outcome with a note, recorded in run.json.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EngineError

from ..config import AgentConfig
from ..loop import ANSWERED, ERROR, Hooks, run_agent
from ..providers.base import Message, ModelResponse, Provider, ProviderError, ToolSpec
from ..trace import to_markdown
from .connections import Connections
from .equivalence import scorer_equivalence
from .layers import LayerStore
from .manifest import TIMEOUT, InstanceRecord, Manifest, add_tokens
from .outputs import clear_outputs, failure_note, oracle_note, write_answer, write_note
from .progress import Progress
from .spec import EvalSpec
from .tasks import EvalInputError, Task, question_text, read_external_knowledge

log = logging.getLogger("smq.eval")

ProviderFactory = Callable[[Task], Provider]
ZERO_TOKENS = {"input": 0, "output": 0, "thinking": 0, "total": 0}


@dataclass
class _Outcome:
    """One attempt's result, produced in the instance thread and written by the worker slot."""

    status: str
    note_md: str
    sql: str | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    truncated: bool = False
    trace_json: dict[str, Any] | None = None
    tokens: dict[str, int] = field(default_factory=lambda: dict(ZERO_TOKENS))
    turns: int = 0
    attempts: int = 1
    error: str | None = None


class _WatchedProvider:
    """Passes calls through and remembers whether the last one failed with a retryable error (429, 5xx)."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.last_error: ProviderError | None = None

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec], *,
                 timeout_s: float | None = None) -> ModelResponse:
        try:
            response = self.inner.complete(system, messages, tools, timeout_s=timeout_s)
        except ProviderError as err:
            self.last_error = err
            raise
        self.last_error = None
        return response

    @property
    def failed_transiently(self) -> bool:
        return self.last_error is not None and self.last_error.retryable


@dataclass
class Context:
    spec: EvalSpec
    layers: LayerStore
    connections: Connections
    config: AgentConfig
    provider_factory: ProviderFactory | None
    documents_dir: Path | None
    sleep: Callable[[float], None]
    rand: Callable[[], float]
    clock: Callable[[], float]

    def backoff(self, attempt: int) -> float:
        """Wait before instance retry number `attempt` (1-based): base * 2^(attempt-1), capped, jittered down."""
        delay = min(self.spec.retry_max_s, self.spec.retry_base_s * (2 ** (attempt - 1)))
        return delay * (1.0 - 0.5 * self.rand())


# -- one instance ------------------------------------------------------------------------------
def _run_agent_instance(task: Task, backend: str, ctx: Context, cancel: threading.Event) -> _Outcome:
    layer = ctx.layers.get(task.db)
    target = ctx.connections.target(task, backend, layer)
    executor = ctx.connections.executor(target)
    question = question_text(task, read_external_knowledge(task, ctx.documents_dir))
    deadline = ctx.clock() + ctx.spec.timeout_s
    tokens, attempt = dict(ZERO_TOKENS), 0
    assert ctx.provider_factory is not None
    while True:
        attempt += 1
        provider = _WatchedProvider(ctx.provider_factory(task))
        config = ctx.config.replace(run_timeout_s=max(deadline - ctx.clock(), 1.0))
        result = run_agent(layer, executor, provider, question, config,
                           hooks=Hooks(cancel=cancel, sleep=ctx.sleep, rand=ctx.rand), equivalent=scorer_equivalence())
        tokens = add_tokens(tokens, result.tokens)
        if result.status == ERROR and provider.failed_transiently and attempt <= ctx.spec.retries and not cancel.is_set():
            delay = ctx.backoff(attempt)
            if ctx.clock() + delay < deadline:
                log.info("%s: model call failed (%s); instance retry %d in %.1f s", task.instance_id,
                         provider.last_error.message if provider.last_error else "", attempt, delay)
                ctx.sleep(delay)
                continue
        break
    trace = result.trace
    outcome = _Outcome(result.status, to_markdown(trace), trace_json=trace.to_dict(), tokens=tokens,
                       turns=len(trace.turns), attempts=attempt, error=result.reason)
    if result.status == ANSWERED:
        outcome.sql, outcome.columns, outcome.rows, outcome.truncated = result.sql, result.columns, result.rows, result.truncated
    return outcome


def _run_oracle_instance(task: Task, backend: str, ctx: Context, cancel: threading.Event) -> _Outcome:
    assert ctx.spec.oracle_sql_dir is not None
    path = ctx.spec.oracle_sql_dir / f"{task.instance_id}.sql"
    try:
        sql = path.read_text(encoding="utf-8")
    except OSError:
        raise EvalInputError(f"no oracle SQL for {task.instance_id}: expected {path}") from None
    layer = ctx.layers.find(task.db)
    target = ctx.connections.target(task, backend, layer)
    executor = ctx.connections.executor(target)
    try:
        result = executor.execute(sql, max_rows=ctx.spec.max_rows, timeout_s=ctx.spec.timeout_s)
    except EngineError as err:
        note = oracle_note(task.instance_id, task.db, backend, task.question, sql, None, None, err.formatted())
        return _Outcome(ERROR, note, error=f"the oracle SQL failed: {err.formatted()}")
    note = oracle_note(task.instance_id, task.db, backend, task.question, sql, result.columns, result.rows, None)
    return _Outcome(ANSWERED, note, sql=sql, columns=result.columns, rows=result.rows, truncated=result.truncated)


def _attempt(task: Task, backend: str, ctx: Context, cancel: threading.Event) -> _Outcome:
    """One instance, any failure turned into an error outcome with a note (never an exception)."""
    work = _run_oracle_instance if ctx.spec.mode == "oracle" else _run_agent_instance
    try:
        return work(task, backend, ctx, cancel)
    except EngineError as err:  # no layer, a broken layer, no database file, no connection, driver missing
        message = err.formatted()
    except Exception as exc:  # noqa: BLE001 - a bug fails its instance, not the run
        log.exception("instance %s failed", task.instance_id)
        message = f"internal error: {type(exc).__name__}: {exc}"
    return _Outcome(ERROR, failure_note(task.instance_id, task.db, backend, task.question, ERROR, message), error=message)


# -- the pool ------------------------------------------------------------------------------------
class Pool:
    """N worker slots; each runs an instance in a thread of its own and abandons it at the timeout."""

    def __init__(self, ctx: Context, manifest: Manifest, progress: Progress) -> None:
        self.ctx = ctx
        self.manifest = manifest
        self.progress = progress
        self.records: list[InstanceRecord] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._active: set[threading.Event] = set()

    def run(self, planned: Sequence[tuple[Task, str]]) -> list[InstanceRecord]:
        work: queue.Queue[tuple[Task, str]] = queue.Queue()
        for item in planned:
            work.put(item)
        slots = [threading.Thread(target=self._slot, args=(work,), name=f"eval-slot-{i}", daemon=True)
                 for i in range(min(self.ctx.spec.workers, len(planned)))]
        for slot in slots:
            slot.start()
        try:
            for slot in slots:
                while slot.is_alive():
                    slot.join(0.2)  # short joins keep Ctrl-C responsive
        except KeyboardInterrupt:
            self._stop.set()
            with self._lock:
                for cancel in self._active:
                    cancel.set()
            raise
        order = {task.instance_id: i for i, (task, _) in enumerate(planned)}
        return sorted(self.records, key=lambda r: order[r.instance_id])

    def _slot(self, work: queue.Queue[tuple[Task, str]]) -> None:
        while not self._stop.is_set():
            try:
                task, backend = work.get_nowait()
            except queue.Empty:
                return
            record = self._one(task, backend)
            with self._lock:
                self.records.append(record)
            self.progress.update(record)

    def _one(self, task: Task, backend: str) -> InstanceRecord:
        ctx = self.ctx
        cancel = threading.Event()
        holder: dict[str, _Outcome] = {}
        clear_outputs(ctx.spec.out_dir, task.instance_id)
        thread = threading.Thread(target=lambda: holder.setdefault("outcome", _attempt(task, backend, ctx, cancel)),
                                  name=f"eval-{task.instance_id}", daemon=True)
        with self._lock:
            self._active.add(cancel)
        started = ctx.clock()
        thread.start()
        thread.join(ctx.spec.hard_timeout_s)
        with self._lock:
            self._active.discard(cancel)
        outcome = holder.get("outcome")
        if outcome is None:  # still running: abandon it; whatever it returns later is never written
            cancel.set()
            message = f"no result after {ctx.spec.hard_timeout_s:g} s: the instance was abandoned"
            outcome = _Outcome(TIMEOUT, failure_note(task.instance_id, task.db, backend, task.question, TIMEOUT, message),
                               error=message)
        seconds = round(ctx.clock() - started, 3)
        record = InstanceRecord(task.instance_id, task.db, backend, outcome.status, seconds, outcome.tokens, outcome.turns,
                                outcome.attempts, len(outcome.rows) if outcome.status == ANSWERED else None,
                                outcome.truncated, outcome.error)
        try:
            if outcome.status == ANSWERED:
                write_answer(ctx.spec.out_dir, task.instance_id, outcome.sql or "", outcome.columns, outcome.rows,
                             outcome.note_md, outcome.trace_json)
            else:
                write_note(ctx.spec.out_dir, task.instance_id, outcome.note_md, outcome.trace_json)
        except OSError as exc:
            clear_outputs(ctx.spec.out_dir, task.instance_id)
            record.status, record.error = ERROR, f"cannot write the outputs: {exc}"
        self.manifest.record(record)
        return record
