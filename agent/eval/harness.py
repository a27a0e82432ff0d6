"""The Spider 2.0 evaluation harness: a run spec in, a folder of `<id>.sql/.csv/.md` and `run.json` out.

    spec = EvalSpec(tasks_file=..., select="local*", out_dir=Path("runs/lite-flash"), sqlite_dir=...)
    summary = run_eval(spec)                                  # the agent, model from the environment
    summary = run_eval(spec, provider_factory=lambda task: ScriptedProvider([...]))   # tests, same path

Each selected instance is routed to its backend by its id (`route_instance`), answered by the
think-act agent over its database's semantic layer (or, with `oracle_sql_dir`, by running a given
SQL file, which checks the harness and the scorer against the gold without a model), and its
outputs are written as Spider 2.0 expects them, ready for `smq eval score`.

Why it is built this way:
* Threads, not processes: an instance spends its time waiting on a model or a database. The pool
  and the per-instance work live in runner.py; what a run needs, in spec.py.
* Everything that can be wrong with the run as a whole (task file, selector, folders, no model, a
  backend without a connection) fails before the first instance starts, with exit code 2 or 3;
  everything that can go wrong with one instance fails only that instance, recorded in run.json.
* Rate limits: the agent loop already retries each model call (429/5xx, with backoff). When those
  retries run out, the whole instance is tried again after an exponential backoff, a bounded
  number of times, within its timeout.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import EngineError

from ..config import AgentConfig
from ..loop import ANSWERED, ERROR, GAVE_UP
from .connections import HOW_TO, Connections
from .layers import LayerStore
from .manifest import TIMEOUT, InstanceRecord, Manifest, add_tokens, now_iso
from .progress import NoProgress, Progress
from .runner import ZERO_TOKENS, Context, Pool, ProviderFactory
from .selector import select_tasks
from .spec import EvalNotConfigured, EvalSpec
from .tasks import EvalInputError, Task, load_tasks

__all__ = ["EvalInputError", "EvalNotConfigured", "EvalSpec", "ProviderFactory", "RunSummary", "run_eval"]


@dataclass
class RunSummary:
    """What a run did; `text()` is the report printed at the end."""

    out_dir: Path
    mode: str
    selected: int
    skipped: list[str]
    records: list[InstanceRecord]
    seconds: float
    started_at: str
    finished_at: str

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.records)

    @property
    def tokens(self) -> dict[str, int]:
        total = dict(ZERO_TOKENS)
        for r in self.records:
            total = add_tokens(total, r.tokens)
        return total

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "selected": self.selected, "ran": len(self.records), "skipped": len(self.skipped),
                "answered": self.count(ANSWERED), "gave_up": self.count(GAVE_UP), "error": self.count(ERROR),
                "timeout": self.count(TIMEOUT), "tokens": self.tokens, "seconds": round(self.seconds, 3),
                "started_at": self.started_at, "finished_at": self.finished_at}

    def text(self, failures_shown: int = 10) -> str:
        t = self.tokens
        lines = [
            f"eval run ({self.mode}): {self.selected} selected, {len(self.records)} run, "
            f"{len(self.skipped)} skipped (already finished in {self.out_dir})",
            f"  done (answered) {self.count(ANSWERED)}   failed: gave up {self.count(GAVE_UP)}, "
            f"errors {self.count(ERROR)}, timeouts {self.count(TIMEOUT)}",
            f"  tokens {t['total']} (input {t['input']}, output {t['output']}, thinking {t['thinking']})   "
            f"time {self.seconds:.1f} s" if self.mode == "agent" else f"  time {self.seconds:.1f} s",
        ]
        failed = [r for r in self.records if r.status != ANSWERED]
        for r in failed[:failures_shown]:
            lines.append(f"  {r.instance_id}: {r.status}: {_one_line(r.error or '')}")
        if len(failed) > failures_shown:
            lines.append(f"  ... {len(failed) - failures_shown} more (see run.json)")
        truncated = [r.instance_id for r in self.records if r.truncated]
        if truncated:
            lines.append(f"  truncated at the row cap (raise --max-rows): {', '.join(truncated)}")
        return "\n".join(lines)


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- the run -------------------------------------------------------------------------------------
def _check_spec(spec: EvalSpec) -> None:
    if spec.workers < 1:
        raise EvalInputError(f"--workers must be at least 1, got {spec.workers}")
    if not spec.timeout_s > 0:
        raise EvalInputError(f"--timeout must be positive, got {spec.timeout_s:g}")
    if spec.retries < 0 or spec.max_rows < 1:
        raise EvalInputError("--retries must be >= 0 and --max-rows >= 1")
    for flag, folder in (("--models-dir", spec.models_dir), ("--sqlite-dir", spec.sqlite_dir),
                         ("--oracle-sql", spec.oracle_sql_dir), ("--documents", spec.documents_dir)):
        if folder is not None and not Path(folder).is_dir():
            raise EvalInputError(f"{flag}: folder not found: {folder}")


def _plan(tasks: Sequence[Task], ctx: Context) -> list[tuple[Task, str]]:
    """Route every instance to its backend and check that each backend used has a connection."""
    from smq_db.executors import ConfigError, route_instance

    planned: list[tuple[Task, str]] = []
    missing: dict[str, list[str]] = {}
    for task in tasks:
        layer = ctx.layers.find(task.db)
        try:
            backend = route_instance(task.instance_id)
        except ConfigError as err:
            fallback = str((layer.semantic.connection or {}).get("backend") or "") if layer is not None else ""
            if not fallback:
                raise EvalInputError(f"{err.message}; give database '{task.db}' a layer with a connection to run it") from None
            backend = fallback
        if not ctx.connections.configured(backend, layer):
            missing.setdefault(backend, []).append(task.instance_id)
        planned.append((task, backend))
    if missing:
        lines = [f"{len(ids)} {backend} instance(s) ({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''}) have no "
                 f"connection: {HOW_TO.get(backend, 'give their layer a connection')}" for backend, ids in missing.items()]
        raise EvalNotConfigured("; ".join(lines))
    return planned


def _model_name(config: AgentConfig) -> str | None:
    try:
        return config.model_name
    except EngineError:
        return config.model


def _provider_factory(config: AgentConfig) -> ProviderFactory:
    """A factory of real providers; raises AgentNotConfigured (naming the env vars) before any work starts."""
    from ..providers import make_provider

    make_provider(config)  # fails now, not once per instance
    return lambda task: make_provider(config)


def run_eval(spec: EvalSpec, *, provider_factory: ProviderFactory | None = None, progress: Progress | None = None,
             sleep: Callable[[float], None] = time.sleep, rand: Callable[[], float] = random.random,
             clock: Callable[[], float] = time.monotonic) -> RunSummary:
    """Run the selected instances and write their outputs; raises EvalInputError, EvalNotConfigured,
    AgentNotConfigured before anything runs. `provider_factory` (one provider per instance attempt)
    replaces the configured model, e.g. with scripted providers in tests."""
    _check_spec(spec)
    tasks = select_tasks(load_tasks(spec.tasks_file), spec.select)
    base = spec.agent_config or (AgentConfig() if spec.mode == "oracle" else AgentConfig.from_env())
    config = base.replace(trace_dir=None, max_rows=spec.max_rows)
    provider_name, model_name = (config.provider, _model_name(config)) if spec.mode == "agent" else (None, None)
    if spec.mode == "agent" and provider_factory is None:
        provider_factory = _provider_factory(config)
    elif spec.mode == "agent":
        provider_name, model_name = "custom", None  # a caller's factory (tests: scripted providers)
    documents = spec.documents_dir
    if documents is None and (Path(spec.tasks_file).parent / "documents").is_dir():
        documents = Path(spec.tasks_file).parent / "documents"
    connections = Connections(spec.sqlite_dir, spec.snowflake_connection, spec.bigquery_connection, pool_size=spec.workers)
    ctx = Context(spec, LayerStore(spec.models_dir), connections, config, provider_factory, documents, sleep, rand, clock)
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    started_at, started = now_iso(), clock()
    header = {"tool": "smq eval run", "format": 1, "tasks_file": str(spec.tasks_file), "select": spec.select,
              "mode": spec.mode, "provider": provider_name, "model": model_name, "workers": spec.workers,
              "timeout_s": spec.timeout_s, "started_at": started_at}
    manifest = Manifest(spec.out_dir, header)
    skipped = [] if spec.overwrite else [t.instance_id for t in tasks if manifest.is_finished(t.instance_id)]
    done = set(skipped)
    to_run = [t for t in tasks if t.instance_id not in done]
    planned = _plan(to_run, ctx)
    progress = progress or NoProgress()
    progress.start(len(planned), len(skipped))
    try:
        records = Pool(ctx, manifest, progress).run(planned) if planned else []
    finally:
        progress.close()
        connections.close()
    summary = RunSummary(spec.out_dir, spec.mode, len(tasks), skipped, records, clock() - started, started_at, now_iso())
    manifest.finish(summary.to_dict())
    return summary
