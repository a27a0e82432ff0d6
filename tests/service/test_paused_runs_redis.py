"""Paused /ask runs in Redis (service/paused_runs_redis.py), in process: two apps on one Redis stand for two
replicas (the real two-process case: test_replicas.py). A run rebuilt elsewhere keeps its configuration and
its budget; a run signed with another secret is not loaded; with Redis down runs stay in memory."""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from agent import AgentConfig  # noqa: E402
from agent.providers.scripted import ScriptedProvider, call  # noqa: E402
from service.app import create_app  # noqa: E402
from service.paused_runs_redis import RedisPausedRuns  # noqa: E402
from service.routes import ask  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ, agent_models, executor, expected_top, layer  # noqa: E402,F401

REDIS_URL = "redis://127.0.0.1:6379/0"
Q = "Customer country or supplier country?"
ASK = call("ask_user", "Ambiguous: whose country?", question=Q)
COMPILE = call("convertSmqToSql", "Compile the top three.", smq=TOP_SMQ)
FINAL = call("execute", "Rank them.", sql=FINAL_SQL)


@pytest.fixture()
def prefix() -> Iterator[str]:
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    name = f"smq-test-{uuid.uuid4().hex[:12]}"
    yield name
    for key in client.scan_iter(match=f"{name}:*"):
        client.delete(key)
    client.close()


def replica(agent_models: Path, tmp_path: Path, script: list[Any], **settings: Any) -> tuple[TestClient, ScriptedProvider]:
    app: FastAPI = create_app(Settings(models_dir=agent_models, open_access=True, max_rows=100, **settings))
    app.state.agent_config = AgentConfig(trace_dir=tmp_path / "traces", tips=False, profile=False)
    provider = ScriptedProvider(list(script))
    app.dependency_overrides[ask.get_provider_factory] = lambda: (lambda: provider)
    return TestClient(app), provider


def test_a_run_paused_on_one_app_resumes_on_another(agent_models, tmp_path, prefix, expected_top) -> None:
    shared = {"redis_url": REDIS_URL, "redis_prefix": prefix, "state_secret": "s3cret"}
    a, _ = replica(agent_models, tmp_path, [ASK], **shared)
    b, provider_b = replica(agent_models, tmp_path, [COMPILE, FINAL], **shared)
    with a, b:
        assert isinstance(a.app.state.paused_runs, RedisPausedRuns)
        paused = a.post("/v1/databases/shop/ask", json={"question": QUESTION, "clarify": True, "repair_rounds": 0}).json()
        assert paused["status"] == "needs_clarification"
        assert len(a.app.state.paused_runs) == 0  # in Redis, not in A's memory
        done = b.post(f"/v1/databases/shop/ask/{paused['run_id']}/answers", json={"answers": {Q: "the customer's"}})
        assert done.status_code == 200, done.text
        body = done.json()
        assert body["status"] == "answered" and [r[:2] for r in body["rows"]] == expected_top and body["turns"] == 3
        seen = provider_b.requests[0]["messages"]  # B's model read A's conversation and the answer
        assert seen[0].role == "user" and QUESTION in seen[0].content
        assert seen[-1].role == "tool" and seen[-1].result["answer"] == "the customer's"
        assert "ask_user" in provider_b.requests[0]["tools"]  # the run's configuration (clarify on) came along
        again = a.post(f"/v1/databases/shop/ask/{paused['run_id']}/answers", json={"answers": {Q: "x"}})
        assert again.status_code == 404


def test_a_run_signed_with_another_secret_is_not_loaded(agent_models, tmp_path, prefix) -> None:
    a, _ = replica(agent_models, tmp_path, [ASK], redis_url=REDIS_URL, redis_prefix=prefix, state_secret="one")
    b, provider_b = replica(agent_models, tmp_path, [COMPILE, FINAL], redis_url=REDIS_URL, redis_prefix=prefix,
                            state_secret="two")
    with a, b:
        run_id = a.post("/v1/databases/shop/ask", json={"question": QUESTION, "clarify": True}).json()["run_id"]
        refused = b.post(f"/v1/databases/shop/ask/{run_id}/answers", json={"answers": {Q: "the customer's"}})
        assert refused.status_code == 404 and provider_b.requests == []


def test_with_redis_down_runs_wait_in_memory(agent_models, tmp_path) -> None:
    client, _ = replica(agent_models, tmp_path, [ASK, COMPILE, FINAL], redis_url="redis://127.0.0.1:1/0")
    with client:
        paused = client.post("/v1/databases/shop/ask", json={"question": QUESTION, "clarify": True}).json()
        assert paused["status"] == "needs_clarification" and len(client.app.state.paused_runs) == 1
        done = client.post(f"/v1/databases/shop/ask/{paused['run_id']}/answers", json={"answers": {Q: "the customer's"}})
        assert done.status_code == 200 and done.json()["status"] == "answered"
