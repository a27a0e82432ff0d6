"""Replicas sharing state through Redis (SMQ_REDIS_URL): two real `smq serve` processes on one models folder,
one keys file and the local Redis, under a key prefix of their own. A run paused on A resumes on B, a
result A ran is a hit on B; the per-key quota counts across processes and frees a crashed one's slots.

The agent's model is a scripted OpenAI-compatible endpoint (tests/service/test_playground.py's FakeModel:
it answers from the conversation alone, so either replica may make the next call)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from service.redis_state import RedisQuota, redis_client
from tests.service.conftest import auth, running_service
from tests.service.test_playground import QUESTION_ASKED, FakeModel

REDIS_URL = "redis://127.0.0.1:6379/0"
ADMIN, SHOP = auth("admin-key"), auth("shop-key")
BY_STATUS = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}


@pytest.fixture(scope="module")
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


@pytest.fixture(scope="module")
def replicas(models_dir: Path, keys_file: Path, prefix: str,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with FakeModel() as model, ExitStack() as stack:
        env = {"SMQ_REDIS_URL": REDIS_URL, "SMQ_REDIS_PREFIX": prefix, "SMQ_STATE_SECRET": "test-secret",
               "SMQ_PROVIDER": "openai", "OPENAI_BASE_URL": model.url, "SMQ_MODEL": "scripted",
               "SMQ_TRACE_DIR": str(tmp_path_factory.mktemp("traces")), "SMQ_AGENT_TIPS": "0", "SMQ_AGENT_PROFILE": "0"}
        args = ("--models-dir", str(models_dir), "--api-keys", str(keys_file))
        a, b = (stack.enter_context(running_service(*args, env=env)) for _ in range(2))
        yield a, b


def server_cache(response: httpx.Response) -> str:
    entry = next(e for e in response.headers["server-timing"].split(", ") if e.startswith("cache;"))
    return entry.split(";")[1].removeprefix("desc=")


def test_a_run_paused_on_one_replica_resumes_on_the_other(replicas: tuple[str, str]) -> None:
    a, b = replicas
    asked = httpx.post(f"{a}/v1/databases/shop/ask", headers=SHOP, timeout=60,
                       json={"question": "Top three countries by orders: whose country do you mean?", "clarify": True})
    assert asked.status_code == 200, asked.text
    paused = asked.json()
    assert paused["status"] == "needs_clarification" and paused["questions"] == [QUESTION_ASKED]
    run_id = paused["run_id"]
    stranger = httpx.post(f"{b}/v1/databases/shop/ask/{run_id}/answers", headers=ADMIN, timeout=60,
                          json={"answers": {QUESTION_ASKED: "the customer's"}})
    assert stranger.status_code == 404  # another key: the run is not its to resume
    done = httpx.post(f"{b}/v1/databases/shop/ask/{run_id}/answers", headers=SHOP, timeout=60,
                      json={"answers": {QUESTION_ASKED: "the customer's"}, "include_trace": True})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["status"] == "answered" and body["run_id"] == run_id and len(body["rows"]) == 3
    assert body["clarifications"] == [{"question": QUESTION_ASKED, "answer": "the customer's"}] and body["turns"] == 3
    again = httpx.post(f"{a}/v1/databases/shop/ask/{run_id}/answers", headers=SHOP, timeout=60,
                       json={"answers": {QUESTION_ASKED: "x"}})
    assert again.status_code == 404  # resumed once, on whichever replica


def test_a_result_run_on_one_replica_is_a_hit_on_the_other(replicas: tuple[str, str]) -> None:
    a, b = replicas
    first = httpx.post(f"{a}/v1/databases/shop/query", json={"smq": BY_STATUS}, headers=ADMIN, timeout=30)
    second = httpx.post(f"{b}/v1/databases/shop/query", json={"smq": BY_STATUS}, headers=ADMIN, timeout=30)
    assert first.status_code == second.status_code == 200
    assert server_cache(first) == "miss" and server_cache(second) == "hit" and second.json() == first.json()
    revalidated = httpx.post(f"{a}/v1/databases/shop/query", json={"smq": BY_STATUS}, timeout=30,
                             headers={**ADMIN, "If-None-Match": second.headers["etag"]})
    assert revalidated.status_code == 304 and revalidated.content == b""


# -- the quota, on Redis --------------------------------------------------------------------------------

def test_the_quota_counts_across_processes(prefix: str) -> None:
    """Two quotas on one Redis stand for two replicas: together they hold at most `limit` slots of a key."""
    async def scenario() -> None:
        a = RedisQuota(2, redis_client(REDIS_URL), prefix)
        b = RedisQuota(2, redis_client(REDIS_URL), prefix)
        assert await a.acquire("k") and await b.acquire("k")
        assert not await a.acquire("k") and not await b.acquire("k")
        assert await a.acquire("other")  # per key
        assert a.in_flight("k") == 2
        await b.release("k")
        assert await a.acquire("k") and a.in_flight("k") == 2
        for _ in range(2):
            await a.release("k")
        await a.release("other")
        await b.release("k")  # nothing held: no effect
        assert a.in_flight("k") == 0 and a.in_flight("other") == 0
        a.close()
        b.close()

    asyncio.run(scenario())


def test_a_crashed_replicas_slots_free_themselves(prefix: str) -> None:
    """Leases are renewed while their process lives; one that stops renewing loses them after a lease."""
    async def scenario() -> None:
        alive = RedisQuota(1, redis_client(REDIS_URL), prefix, lease_s=1.0)
        crashed = RedisQuota(1, redis_client(REDIS_URL), prefix, lease_s=1.0)
        other = RedisQuota(1, redis_client(REDIS_URL), prefix, lease_s=1.0)
        assert await alive.acquire("held") and await crashed.acquire("lost")
        crashed.close()  # no more renewals: as if the process had died
        time.sleep(2.5)  # two and a half leases: the living one was renewed meanwhile (every 0.33 s)
        assert not await other.acquire("held")
        assert await other.acquire("lost")
        alive.close()
        other.close()

    asyncio.run(scenario())


def test_a_redis_that_is_down_leaves_the_quota_in_process() -> None:
    async def scenario() -> list[bool]:
        quota = RedisQuota(1, redis_client("redis://127.0.0.1:1/0"), "smq-test-down")
        taken = [await quota.acquire("k"), await quota.acquire("k")]
        await quota.release("k")
        taken.append(await quota.acquire("k"))
        assert quota.breaker.errors >= 1
        return taken

    assert asyncio.run(scenario()) == [True, False, True]
