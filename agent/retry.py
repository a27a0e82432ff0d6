"""Exponential backoff with jitter around one model call, honouring the server's Retry-After.

Rate limits (429) and server errors (5xx) are normal on hosted models; a run should ride them out
within its time budget instead of failing on the first one. `sleep` and `rand` are injectable so
tests run instantly and deterministically.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .providers.base import ProviderError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5  # including the first call
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.5  # the delay is scaled by a random factor in [1 - jitter, 1]

    def delay(self, attempt: int, retry_after: float | None, rand: float) -> float:
        """The wait before retry number `attempt` (1-based): backoff with jitter, never shorter than Retry-After."""
        backoff = min(self.max_delay_s, self.base_delay_s * (2 ** (attempt - 1)))
        backoff *= 1.0 - self.jitter * rand
        return max(backoff, retry_after or 0.0)


@dataclass
class RetryStats:
    """What the retries of one call cost: shown per turn in the trace."""

    retries: int = 0
    waited_s: float = 0.0
    errors: list[str] | None = None


def call_with_retries(fn: Callable[[], T], policy: RetryPolicy, *, stats: RetryStats | None = None,
                      deadline: float | None = None, sleep: Callable[[float], None] = time.sleep,
                      rand: Callable[[], float] = random.random, clock: Callable[[], float] = time.monotonic) -> T:
    """Call `fn`, retrying retryable ProviderErrors; the last error propagates when attempts or time run out."""
    stats = stats if stats is not None else RetryStats()
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except ProviderError as err:
            stats.errors = (stats.errors or []) + [err.message]
            if not err.retryable or attempt >= policy.max_attempts:
                raise
            wait = policy.delay(attempt, err.retry_after, rand())
            if deadline is not None and clock() + wait >= deadline:
                raise ProviderError(f"{err.message} (no time left in the run to wait {wait:.1f} s and retry)",
                                    status=err.status, retryable=False) from err
            stats.retries += 1
            stats.waited_s += wait
            sleep(wait)
