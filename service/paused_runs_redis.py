"""Paused /ask runs in Redis (SMQ_REDIS_URL): a run paused on one replica resumes on any other.

A paused run is the agent's state (`agent.loop._Run`: conversation, trace, question pool, guards, repair
state). It is pickled without what belongs to the process: the Agent, its layer (and the layer's models),
its executor and its model provider are written as references and replaced, on the replica that resumes
the run, by that replica's own (`rebuild(config)` makes the agent from the paused run's configuration). The
run's clock readings (monotonic, per host) travel as "seconds left", not as times.

Entries are signed (HMAC-SHA256 with SMQ_STATE_SECRET) and checked before anything is unpickled: only a
replica that knows the secret can write a run the others will load. They expire with the run's TTL; `take`
deletes the entry it read (one resume at a time, across replicas). When Redis is away, runs stay in this
process's memory (the in-process store this class extends), as without Redis.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import pickle
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .redis_state import Breaker, redis_client, redis_errors
from .routes.ask import PAUSED_MAX, PAUSED_TTL_S, PausedRuns, _Paused

if TYPE_CHECKING:
    from fastapi import FastAPI

    from agent import AgentConfig
    from agent.loop import Agent

    from .deps import Database
    from .settings import Settings

log = logging.getLogger("smq.service")

MAGIC = b"smq-run-1\n"


class _Pickler(pickle.Pickler):
    """Writes the process's own objects (agent, layer, models, executor, provider) as references."""

    def __init__(self, file: io.BytesIO, agent: Agent) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        semantic = agent.layer.semantic
        self._refs: dict[int, Any] = {id(agent): "agent", id(agent.layer): "layer", id(semantic): "semantic",
                                      id(agent.executor): "executor", id(agent.provider): "provider"}
        self._refs.update({id(model): ("model", name) for name, model in semantic.models.items()})

    def persistent_id(self, obj: Any) -> Any:
        return self._refs.get(id(obj))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, agent: Agent) -> None:
        super().__init__(file)
        self.agent = agent

    def persistent_load(self, pid: Any) -> Any:
        agent = self.agent
        if isinstance(pid, tuple) and pid[0] == "model":
            return agent.layer.semantic.models[pid[1]]
        return {"agent": agent, "layer": agent.layer, "semantic": agent.layer.semantic, "executor": agent.executor,
                "provider": agent.provider}[pid]


def dump_run(agent: Agent, run: Any) -> bytes:
    """The configuration, then the run with references to the agent's process-local parts."""
    left = None
    if run.deadline is not None and run.paused_at is not None:
        left = run.deadline - run.paused_at
    buf = io.BytesIO()
    pickle.dump((agent.config, left), buf, protocol=pickle.HIGHEST_PROTOCOL)
    saved = run.deadline, run.paused_at
    run.deadline = run.paused_at = None  # monotonic readings mean nothing on another host
    try:
        _Pickler(buf, agent).dump(run)
    finally:
        run.deadline, run.paused_at = saved
    return buf.getvalue()


def load_run(data: bytes, rebuild: Callable[[AgentConfig], Agent]) -> tuple[Agent, Any]:
    """The agent (this process's, from the run's configuration) and the run bound to it."""
    buf = io.BytesIO(data)
    config, left = pickle.load(buf)
    agent = rebuild(config)
    run = _Unpickler(buf, agent).load()
    if left is not None:
        now = agent.hooks.clock()
        run.paused_at, run.deadline = now, now + left
    return agent, run


class RedisPausedRuns(PausedRuns):
    """`PausedRuns` kept in Redis for every replica; this process's memory while Redis is away."""

    def __init__(self, client: Any, prefix: str, secret: bytes, ttl_s: float = PAUSED_TTL_S, cap: int = PAUSED_MAX) -> None:
        super().__init__(ttl_s, cap)
        self.client = client
        self.prefix = f"{prefix}:paused-run:"
        self.secret = secret
        self.breaker = Breaker("paused /ask runs")

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self.secret, body, hashlib.sha256).hexdigest().encode()

    def put(self, run_id: str, entry: _Paused) -> None:
        meta = json.dumps({"database": entry.database, "principal": entry.principal, "role": entry.role}).encode()
        body = meta + b"\n" + dump_run(entry.agent, entry.run)
        if self.breaker.usable():
            try:
                self.client.set(self.prefix + run_id, MAGIC + self._sign(body) + b"\n" + body, px=int(self.ttl_s * 1000))
            except redis_errors() as exc:
                self.breaker.failed(exc)
            else:
                self.breaker.ok()
                return
        else:
            self.breaker.skipped()
        super().put(run_id, entry)

    def take(self, run_id: str, database: Database,
             rebuild: Callable[[AgentConfig], Agent] | None = None) -> _Paused | None:
        """The run if it waits for this caller, here or in Redis (then rebuilt on this replica's agent)."""
        local = super().take(run_id, database)
        if local is not None or rebuild is None or not self.breaker.usable():
            return local
        key = self.prefix + run_id
        try:
            raw = self.client.get(key)
        except redis_errors() as exc:
            self.breaker.failed(exc)
            return None
        if raw is None or not raw.startswith(MAGIC):
            return None
        signature, _, body = raw[len(MAGIC):].partition(b"\n")
        if not hmac.compare_digest(signature, self._sign(body)):
            log.warning("paused run %s in Redis has a wrong signature (another SMQ_STATE_SECRET?); ignored", run_id)
            return None
        meta_line, _, data = body.partition(b"\n")
        meta = json.loads(meta_line)
        if (meta["database"], meta["principal"], meta["role"]) != (database.name, database.principal.name, database.role):
            return None
        agent, run = load_run(data, rebuild)  # before the delete: a run that cannot be rebuilt here stays
        try:
            if self.client.delete(key) != 1:
                return None  # another replica took it in the meantime
        except redis_errors() as exc:
            self.breaker.failed(exc)
            return None
        return _Paused(agent, run, meta["database"], meta["principal"], meta["role"], expires=time.monotonic() + self.ttl_s)


def install(app: FastAPI, settings: Settings) -> None:
    """With SMQ_REDIS_URL: `app.state.paused_runs` in Redis (ask.paused_runs uses it)."""
    if not settings.redis_url:
        return
    secret = settings.state_secret
    if not secret:  # an unsigned pickle in Redis would let whoever can write to Redis run code on the replicas
        log.warning("SMQ_STATE_SECRET is not set: paused /ask runs stay in this process (a run paused here resumes "
                    "only here); set the same secret on every replica to share them through Redis")
        return
    app.state.paused_runs = RedisPausedRuns(redis_client(settings.redis_url), settings.redis_prefix, secret.encode())
