"""The result cache: rows of a query served again, without the database, while they are fresh.

Key: (database, layer version, access role, the SQL that runs, the row cap, the database's refresh value).
The role is in the key even though the SQL already differs per role, so one role's rows can never answer
another's request whatever the compiler does. The refresh value is the answer of the database's
`cache.refresh_key` query (database.yml), run again at most every SMQ_CACHE_REFRESH_CHECK_S: when the data
changes, so does the value, and with it every key. An entry lives SMQ_RESULT_CACHE_TTL_S (or the
database's `cache.ttl_seconds`; 0 turns the cache off for it).

Stores: in process by default (an LRU of SMQ_RESULT_CACHE_MAX_ENTRIES), Redis when SMQ_REDIS_URL is set, so
every worker and replica shares one cache. A Redis failure is a miss (counted in `errors`, logged once per
outage), never a failed request.

HTTP: a cached route's 200 carries a weak `ETag` (the result's digest, the query string and `Accept`) and
`Cache-Control: private, max-age=<ttl>` with the entry's `Age`; `If-None-Match` with that tag is answered 304
without a body.
`Server-Timing` gains `cache;desc=hit|miss;dur=<lookup ms>`. A request with `Cache-Control: no-cache` skips the
lookup (its fresh result replaces the entry). `app.state.result_cache.stats()` gives the
counters (hits, misses, entries, errors) to /v1/metrics.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pydantic_core
from fastapi import FastAPI, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.lru import LruCache
from smq_db.executors.base import InThread, QueryResult

from .redis_state import Breaker, redis_client, redis_errors
from .timing import record_timing_entry

if TYPE_CHECKING:
    from .deps import Database
    from .settings import Settings

log = logging.getLogger("smq.service")

CACHE_SCOPE_KEY = "smq.result_cache"  # set by `cached_rows`: the response's ETag and max-age
_FIELDS = tuple(f.name for f in dataclasses.fields(QueryResult))


@dataclasses.dataclass(frozen=True)
class CachedRows:
    result: QueryResult
    etag: str  # digest of the result's JSON
    stored_at: float = 0.0  # wall-clock time of the run (the `Age` of a hit)


def encode(entry: CachedRows) -> bytes:
    return pydantic_core.to_json({"etag": entry.etag, "stored_at": entry.stored_at,
                                  "result": entry.result.to_dict()})


def decode(raw: bytes) -> CachedRows:
    data = json.loads(raw)
    result = data["result"]
    return CachedRows(QueryResult(**{name: result[name] for name in _FIELDS if name in result}), data["etag"],
                      float(data.get("stored_at", 0.0)))


class MemoryStore:
    """This process's entries: the least recently used goes first beyond `max_entries`."""

    def __init__(self, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: LruCache[str, tuple[float, CachedRows]] = LruCache(max_entries)
        self.clock = clock

    def get(self, key: str) -> CachedRows | None:
        found = self._entries.get(key)
        if found is None:
            return None
        expires, entry = found
        if expires <= self.clock():
            self._entries.pop(key)
            return None
        return entry

    def put(self, key: str, entry: CachedRows, ttl_s: float) -> None:
        self._entries.put(key, (self.clock() + ttl_s, entry))

    def entries(self) -> int:
        now = self.clock()
        self._entries.remove_if(lambda _, value: value[0] <= now)
        return len(self._entries)


class RedisStore:
    """Entries in Redis with their TTL (`SET EX`); a sorted set of keys by expiry counts them for `entries`."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = f"{prefix}:result:"
        self.index = f"{prefix}:result-index"

    def get(self, key: str) -> CachedRows | None:
        raw = self.client.get(self.prefix + key)
        return None if raw is None else decode(raw)

    def put(self, key: str, entry: CachedRows, ttl_s: float) -> None:
        now = time.time()
        with self.client.pipeline(transaction=False) as pipe:
            pipe.set(self.prefix + key, encode(entry), px=max(1, int(ttl_s * 1000)))
            pipe.zadd(self.index, {key: now + ttl_s})
            pipe.zremrangebyscore(self.index, "-inf", now)
            seconds = max(1, int(ttl_s) + 1)  # the index lives as long as its longest entry
            pipe.expire(self.index, seconds, nx=True)
            pipe.expire(self.index, seconds, gt=True)
            pipe.execute()

    def entries(self) -> int:
        return int(self.client.zcount(self.index, f"({time.time()}", "+inf"))


class ResultCache:
    """Counters and rules around a store (`MemoryStore` or `RedisStore`); see the module's docstring."""

    def __init__(self, store: MemoryStore | RedisStore, *, ttl_s: float, max_entry_bytes: int = 1_048_576,
                 refresh_check_s: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.ttl_s = ttl_s
        self.max_entry_bytes = max_entry_bytes
        self.refresh_check_s = refresh_check_s
        self.clock = clock
        self.shared = isinstance(store, RedisStore)
        self.breaker = Breaker("result cache")
        self._hits = self._misses = self._local_errors = 0
        self._refresh: dict[tuple[str, str], tuple[float, str]] = {}  # (database, version) -> (checked at, value)
        self._lock = threading.Lock()

    def stats(self) -> dict[str, int]:
        """hits, misses, entries (in the store: shared ones with Redis), errors (Redis and refresh-key failures)."""
        entries = 0
        if not self.shared or self.breaker.usable():
            try:
                entries = self.store.entries()
            except redis_errors() as exc:
                self.breaker.failed(exc)
        return {"hits": self._hits, "misses": self._misses, "entries": entries,
                "errors": self.breaker.errors + self._local_errors}

    def ttl_for(self, database: Database) -> float:
        ttl = database.layer.semantic.cache.ttl_seconds
        return self.ttl_s if ttl is None else ttl

    def rows(self, request: Request, database: Database, sql: str, max_rows: int,
             run: Callable[[], QueryResult]) -> QueryResult:
        """The rows of `sql` for this caller: from the cache when fresh, else `run()` (and kept for the next one)."""
        ttl = self.ttl_for(database)
        if ttl <= 0:
            return run()
        started = time.perf_counter()
        key = self.key(request, database, sql, max_rows)
        fresh = _wants_fresh(request)  # Cache-Control: no-cache asks for a new run (which then is kept)
        entry = self._get(key) if key is not None and not fresh else None
        lookup_ms = (time.perf_counter() - started) * 1000
        if entry is not None:
            self._count(hit=True)
            request.scope["smq.cache_hit"] = True  # Server-Timing: no `db` time on a hit
            record_timing_entry(request.scope, f"cache;desc=hit;dur={lookup_ms:.3f}")
        else:
            self._count(hit=False)
            record_timing_entry(request.scope, f"cache;desc=miss;dur={lookup_ms:.3f}")
            entry = self._store(key, run(), ttl)
        age = max(0, int(time.time() - entry.stored_at))
        request.scope[CACHE_SCOPE_KEY] = {"etag": entry.etag, "max_age": int(ttl), "age": age}
        return entry.result

    async def rows_async(self, request: Request, database: Database, sql: str, max_rows: int,
                         run: Callable[[], Awaitable[QueryResult]], in_thread: InThread) -> QueryResult:
        """`rows` from the event loop: what may wait on the network (Redis, a due refresh-key query) or take
        long (hashing a large result) runs in `in_thread`; an in-process hit costs no thread."""
        ttl = self.ttl_for(database)
        if ttl <= 0:
            return await run()
        started = time.perf_counter()
        if self._refresh_due(database):
            key = await in_thread(functools.partial(self.key, request, database, sql, max_rows))
        else:
            key = self.key(request, database, sql, max_rows)
        fresh = _wants_fresh(request)
        entry = None
        if key is not None and not fresh:
            entry = await in_thread(functools.partial(self._get, key)) if self.shared else self._get(key)
        lookup_ms = (time.perf_counter() - started) * 1000
        if entry is not None:
            self._count(hit=True)
            request.scope["smq.cache_hit"] = True  # Server-Timing: no `db` time on a hit
            record_timing_entry(request.scope, f"cache;desc=hit;dur={lookup_ms:.3f}")
        else:
            self._count(hit=False)
            record_timing_entry(request.scope, f"cache;desc=miss;dur={lookup_ms:.3f}")
            result = await run()
            store = functools.partial(self._store, key, result, ttl)
            entry = await in_thread(store) if self.shared or large_result(result) else store()
        age = max(0, int(time.time() - entry.stored_at))
        request.scope[CACHE_SCOPE_KEY] = {"etag": entry.etag, "max_age": int(ttl), "age": age}
        return entry.result

    def _store(self, key: str | None, result: QueryResult, ttl: float) -> CachedRows:
        """The entry of a fresh result (its digest is the ETag), kept for the next request when it is small enough."""
        payload = pydantic_core.to_json(result.to_dict())  # asdict would deep-copy every row first: 30x slower
        entry = CachedRows(result, hashlib.sha256(payload).hexdigest()[:32], time.time())
        if key is not None and len(payload) <= self.max_entry_bytes:
            self._put(key, entry, ttl)
        return entry

    def _refresh_due(self, database: Database) -> bool:
        """Will `key` run the database's refresh-key query (the remembered value is missing or old)?"""
        if database.layer.semantic.cache.refresh_key is None:
            return False
        with self._lock:
            known = self._refresh.get((database.name, database.layer.semantic.version))
        return known is None or self.clock() - known[0] >= self.refresh_check_s

    def key(self, request: Request, database: Database, sql: str, max_rows: int) -> str | None:
        """The entry's key, or None when the database's refresh key cannot be read (the result is not cached)."""
        refresh = self._refresh_value(request, database)
        if refresh is None:
            return None
        parts = [database.name, database.layer.semantic.version, database.role, sql, max_rows, refresh]
        return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()

    def _refresh_value(self, request: Request, database: Database) -> str | None:
        query = database.layer.semantic.cache.refresh_key
        if query is None:
            return ""
        slot = (database.name, database.layer.semantic.version)
        now = self.clock()
        with self._lock:
            known = self._refresh.get(slot)
        if known is not None and now - known[0] < self.refresh_check_s:
            return known[1]
        from .deps import executor_for

        state = request.app.state.smq
        try:
            result = executor_for(state, database).execute(query, max_rows=1, timeout_s=state.settings.query_timeout_s)
        except Exception as exc:  # noqa: BLE001 - any database error: serve uncached, say so once per value
            with self._lock:
                self._local_errors += 1
            log.warning("cache.refresh_key of database '%s' failed (%s: %s); its results are not cached until it "
                        "works", database.name, type(exc).__name__, exc)
            return None
        value = json.dumps(result.rows[:1], default=str)
        with self._lock:
            self._refresh[slot] = (now, value)
        return value

    def _get(self, key: str) -> CachedRows | None:
        if not self.shared:
            return self.store.get(key)
        if not self.breaker.usable():
            self.breaker.skipped()
            return None
        try:
            entry = self.store.get(key)
        except redis_errors() + (ValueError, KeyError, TypeError) as exc:  # down, or an entry we cannot read
            self.breaker.failed(exc)
            return None
        self.breaker.ok()
        return entry

    def _put(self, key: str, entry: CachedRows, ttl_s: float) -> None:
        if not self.shared:
            self.store.put(key, entry, ttl_s)
            return
        if not self.breaker.usable():
            return  # the lookup already counted this request's error
        try:
            self.store.put(key, entry, ttl_s)
        except redis_errors() as exc:
            self.breaker.failed(exc)

    def _count(self, *, hit: bool) -> None:
        with self._lock:
            if hit:
                self._hits += 1
            else:
                self._misses += 1


def _wants_fresh(request: Request) -> bool:
    directives = request.headers.get("cache-control", "").lower()
    return "no-cache" in directives or "no-store" in directives


def cached_rows(request: Request, database: Database, sql: str, max_rows: int,
                run: Callable[[], QueryResult]) -> QueryResult:
    """The routes' hook: `run()`'s rows through the app's result cache (there is always one; TTL 0 turns it off)."""
    cache: ResultCache = request.app.state.result_cache
    return cache.rows(request, database, sql, max_rows, run)


async def cached_rows_async(request: Request, database: Database, sql: str, max_rows: int,
                            run: Callable[[], Awaitable[QueryResult]], in_thread: InThread) -> QueryResult:
    """`cached_rows` for a route on the event loop."""
    cache: ResultCache = request.app.state.result_cache
    return await cache.rows_async(request, database, sql, max_rows, run, in_thread)


LARGE_VALUES = 20_000  # a result of more values than this is hashed (and answered) in a thread, off the event loop


def large_result(result: QueryResult) -> bool:
    return result.row_count * max(1, len(result.columns)) > LARGE_VALUES


def representation_etag(scope: Scope, digest: str) -> str:
    """A weak tag for this result as this request asked for it (format parameters and `Accept` may differ)."""
    accept = next((value for name, value in scope.get("headers", ()) if name == b"accept"), b"")
    tag = hashlib.sha256(digest.encode() + b"\0" + scope.get("query_string", b"") + b"\0" + accept).hexdigest()[:32]
    return f'W/"{tag}"'


def _matches(if_none_match: str, etag: str) -> bool:
    wanted = {part.strip().removeprefix("W/") for part in if_none_match.split(",")}
    return "*" in wanted or etag.removeprefix("W/") in wanted


class CacheHeadersMiddleware:
    """Adds ETag and Cache-Control to a cached route's 200 and turns it into a 304 when `If-None-Match` matches."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if_none_match = next((v.decode("latin-1") for n, v in scope.get("headers", ()) if n == b"if-none-match"), None)
        not_modified = False

        async def cache_send(message: Message) -> None:
            nonlocal not_modified
            if message["type"] == "http.response.start":
                info = scope.get(CACHE_SCOPE_KEY)
                if info is not None and message["status"] == 200:
                    etag = representation_etag(scope, info["etag"])
                    headers = [(n, v) for n, v in message.get("headers", ()) if n not in (b"etag", b"cache-control", b"age")]
                    headers += [(b"etag", etag.encode()), (b"cache-control", f"private, max-age={info['max_age']}".encode()),
                                (b"age", str(info["age"]).encode())]
                    if not any(n == b"vary" for n, _ in headers):
                        headers.append((b"vary", b"Accept, Authorization"))
                    if if_none_match is not None and _matches(if_none_match, etag):
                        not_modified = True
                        headers = [(n, v) for n, v in headers if n not in (b"content-length", b"content-type",
                                                                          b"content-encoding")]
                        message = {**message, "status": 304, "headers": headers}
                    else:
                        message = {**message, "headers": headers}
            elif message["type"] == "http.response.body" and not_modified:
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(scope, receive, cache_send)


def build_cache(settings: Settings) -> ResultCache:
    """In process, or in Redis when SMQ_REDIS_URL is set."""
    store: MemoryStore | RedisStore
    if settings.redis_url:
        store = RedisStore(redis_client(settings.redis_url), settings.redis_prefix)
    else:
        store = MemoryStore(settings.result_cache_max_entries)
    return ResultCache(store, ttl_s=settings.result_cache_ttl_s, max_entry_bytes=settings.result_cache_max_entry_bytes,
                       refresh_check_s=settings.cache_refresh_check_s)


def install(app: FastAPI, settings: Settings) -> None:
    """`app.state.result_cache` and the ETag / 304 middleware."""
    app.state.result_cache = build_cache(settings)
    app.add_middleware(CacheHeadersMiddleware)
