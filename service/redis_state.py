"""State that replicas share through Redis (SMQ_REDIS_URL): the connection, its failure handling, and the
per-key concurrency quota with expiring leases.

Redis is a help, never a dependency of an answer: every user of it goes through a `Breaker`, which counts
failures, logs one warning per outage (and one line when Redis is back), and skips Redis for a few
seconds after a failure so a dead server costs one timeout, not one per request. While Redis is down the
quota counts in process (`InProcessQuota`), the result cache misses and paused runs stay in memory.

The quota (`RedisQuota`) keeps one sorted set per API key: members are leases (one per request in
progress), scores their expiry in Redis' own clock (`TIME`, so the replicas' clocks do not matter). A
process renews its leases every third of SMQ_QUOTA_LEASE_S from a daemon thread; a replica that crashed
stops renewing, and its slots free themselves after at most SMQ_QUOTA_LEASE_S.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .limits import ConcurrencyQuota, InProcessQuota

if TYPE_CHECKING:
    from .settings import Settings

log = logging.getLogger("smq.service")

CONNECT_TIMEOUT_S = 0.5
SOCKET_TIMEOUT_S = 2.0
RETRY_S = 5.0  # after a failure, Redis is not tried again for this long


def redis_client(url: str) -> Any:
    """A thread-safe redis-py client (a connection pool) with short timeouts: a dead Redis must not stall requests."""
    try:
        import redis
    except ImportError:
        from .errors import ServiceConfigError

        raise ServiceConfigError("SMQ_REDIS_URL is set but the redis package is missing: "
                                 "pip install 'smq-semantic-layer[service]'") from None
    return redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=SOCKET_TIMEOUT_S,
                                health_check_interval=30)


def redis_errors() -> tuple[type[BaseException], ...]:
    """What a Redis call raises when the server is away or answers nonsense."""
    import redis

    return (redis.RedisError, OSError)


class Breaker:
    """Failures of one use of Redis: counted, one warning per outage, and Redis skipped for `retry_s` after one."""

    def __init__(self, what: str, retry_s: float = RETRY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.what, self.retry_s, self.clock = what, retry_s, clock
        self.errors = 0
        self._until = 0.0
        self._down = False
        self._lock = threading.Lock()

    def usable(self) -> bool:
        """False while a recent failure says Redis is away (the caller falls back and should count an error)."""
        return self.clock() >= self._until

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            self.errors += 1
            self._until = self.clock() + self.retry_s
            first, self._down = not self._down, True
        if first:
            log.warning("Redis unavailable for the %s (%s: %s); falling back until it answers again (retried "
                        "every %g s)", self.what, type(exc).__name__, exc, self.retry_s)

    def skipped(self) -> None:
        with self._lock:
            self.errors += 1

    def ok(self) -> None:
        if self._down:
            with self._lock:
                back, self._down = self._down, False
            if back:
                log.warning("Redis answers again: the %s is shared again", self.what)


# KEYS[1]: the key's lease set; ARGV: limit, lease ms, lease id. Expired leases go first; 1 = slot taken.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1
"""
# KEYS[1]: a lease set; ARGV: lease ms, then lease ids still held: pushed forward (XX: a released one stays gone).
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return 1
"""
# KEYS[1]: a lease set; the number of leases not expired.
_COUNT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
"""

_LOCAL = "local"  # a slot taken from the in-process fallback while Redis was away


class RedisQuota:
    """`ConcurrencyQuota` shared by every process on one Redis: at most `limit` leases per key across replicas.

    `acquire`/`release` are called on the event loop and make one short Redis call each (no thread hop: a
    busy worker pool must not delay the 429). Without Redis they use `fallback`, this process's counter."""

    def __init__(self, limit: int, client: Any, prefix: str, lease_s: float = 30.0,
                 fallback: InProcessQuota | None = None) -> None:
        self.limit = limit
        self.client = client
        self.prefix = prefix
        self.lease_ms = max(1, int(lease_s * 1000))
        self.fallback = fallback or InProcessQuota(limit)
        self.breaker = Breaker("per-key quotas")
        self._held: dict[str, list[str]] = {}  # key -> this process's leases (or _LOCAL slots)
        self._lock = threading.Lock()
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._count = client.register_script(_COUNT)
        self._renewer: threading.Thread | None = None
        self._stop = threading.Event()

    def _key(self, key: str) -> str:
        return f"{self.prefix}:quota:{key}"

    async def acquire(self, key: str) -> bool:
        if self.breaker.usable():
            lease = uuid.uuid4().hex
            try:
                taken = bool(self._acquire(keys=[self._key(key)], args=[self.limit, self.lease_ms, lease]))
            except redis_errors() as exc:
                self.breaker.failed(exc)
            else:
                self.breaker.ok()
                if taken:
                    self._hold(key, lease)
                return taken
        else:
            self.breaker.skipped()
        if await self.fallback.acquire(key):
            self._hold(key, _LOCAL)
            return True
        return False

    async def release(self, key: str) -> None:
        with self._lock:
            leases = self._held.get(key)
            lease = leases.pop() if leases else None
            if leases == []:
                del self._held[key]
        if lease is None:
            return
        if lease == _LOCAL:
            await self.fallback.release(key)
            return
        try:
            self.client.zrem(self._key(key), lease)
        except redis_errors() as exc:  # the lease expires by itself
            self.breaker.failed(exc)

    def in_flight(self, key: str) -> int:
        """Slots of `key` in use across every replica (and this process's fallback)."""
        return int(self._count(keys=[self._key(key)])) + self.fallback.in_flight(key)

    def _hold(self, key: str, lease: str) -> None:
        with self._lock:
            self._held.setdefault(key, []).append(lease)
            if lease != _LOCAL and self._renewer is None:
                self._renewer = threading.Thread(target=self._renew_forever, name="smq-quota-leases", daemon=True)
                self._renewer.start()

    def renew(self) -> None:
        """Push this process's leases forward by a lease's length (the daemon thread calls it)."""
        with self._lock:
            held = {key: [lease for lease in leases if lease != _LOCAL] for key, leases in self._held.items()}
        for key, leases in held.items():
            if leases:
                try:
                    self._renew(keys=[self._key(key)], args=[self.lease_ms, *leases])
                except redis_errors() as exc:
                    self.breaker.failed(exc)

    def _renew_forever(self) -> None:
        while not self._stop.wait(self.lease_ms / 3000):
            self.renew()

    def close(self) -> None:
        self._stop.set()


def quota_for(settings: Settings) -> ConcurrencyQuota:
    """The service's quota: shared through Redis when SMQ_REDIS_URL is set, else this process's."""
    if not settings.redis_url:
        return InProcessQuota(settings.max_inflight_per_key)
    return RedisQuota(settings.max_inflight_per_key, redis_client(settings.redis_url), settings.redis_prefix,
                      lease_s=settings.quota_lease_s)
