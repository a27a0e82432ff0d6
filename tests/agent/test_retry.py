"""Backoff on rate limits and server errors: exponential, jittered, never shorter than Retry-After."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import AgentConfig, Hooks, run_agent
from agent.providers.base import ProviderError, parse_retry_after
from agent.providers.scripted import ScriptedProvider, call
from agent.retry import RetryPolicy, RetryStats, call_with_retries
from tests.agent.fixtures import FINAL_SQL, QUESTION, TOP_SMQ

COMPILE = call("convertSmqToSql", "compile", smq=TOP_SMQ)
FINAL = call("execute", "done", sql=FINAL_SQL)


def test_policy_delays_grow_and_honour_retry_after():
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0, jitter=0.5)
    assert [policy.delay(n, None, 0.0) for n in (1, 2, 3, 4, 5)] == [1.0, 2.0, 4.0, 8.0, 8.0]
    assert policy.delay(3, None, 1.0) == 2.0  # full jitter halves it
    assert policy.delay(1, 7.5, 0.0) == 7.5  # Retry-After wins when longer


def test_retry_after_header_forms():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None


def test_gives_up_after_max_attempts_and_not_on_client_errors():
    sleeps: list[float] = []
    attempts = []

    def flaky() -> None:
        attempts.append(1)
        raise ProviderError("overloaded", status=503)

    with pytest.raises(ProviderError, match="overloaded"):
        call_with_retries(flaky, RetryPolicy(max_attempts=3), sleep=sleeps.append, rand=lambda: 0.0)
    assert len(attempts) == 3 and sleeps == [1.0, 2.0]

    attempts.clear()

    def bad_request() -> None:
        attempts.append(1)
        raise ProviderError("bad key", status=400)

    with pytest.raises(ProviderError, match="bad key"):
        call_with_retries(bad_request, RetryPolicy(), sleep=sleeps.append)
    assert len(attempts) == 1


def test_no_wait_past_the_deadline():
    stats = RetryStats()
    with pytest.raises(ProviderError, match="no time left"):
        call_with_retries(lambda: (_ for _ in ()).throw(ProviderError("slow down", status=429, retry_after=60)),
                          RetryPolicy(), stats=stats, deadline=10.0, clock=lambda: 0.0, sleep=lambda s: None)
    assert stats.retries == 0


def test_rate_limit_then_success_in_a_run(layer, executor, tmp_path: Path):
    sleeps: list[float] = []
    script = [ProviderError("429 RESOURCE_EXHAUSTED", status=429, retry_after=2.0), COMPILE,
              ProviderError("500 INTERNAL", status=500), ProviderError("502", status=502), FINAL]
    result = run_agent(layer, executor, ScriptedProvider(script), QUESTION, AgentConfig(trace_dir=tmp_path),
                       hooks=Hooks(sleep=sleeps.append, rand=lambda: 0.0))
    assert result.status == "answered"
    assert sleeps == [2.0, 1.0, 2.0]  # Retry-After, then backoff 1 s, 2 s
    assert [t.retries for t in result.trace.turns] == [1, 2]
    assert "2 retries" in result.trace_path.read_text()


def test_provider_error_ends_the_run_as_error(layer, executor, tmp_path: Path):
    sleeps: list[float] = []
    script = [COMPILE] + [ProviderError("503 UNAVAILABLE", status=503)] * 5
    result = run_agent(layer, executor, ScriptedProvider(script), QUESTION, AgentConfig(trace_dir=tmp_path),
                       hooks=Hooks(sleep=sleeps.append, rand=lambda: 0.5))
    assert result.status == "error" and "503 UNAVAILABLE" in result.reason
    assert len(sleeps) == 4 and sleeps == sorted(sleeps)
    assert result.trace.turns[-1].outcome == "fatal" and result.trace.turns[-1].retries == 4
