"""One small thread-safe LRU mapping for every bounded cache in smq.

Compiled SQL per layer (facade.Layer), paged SQL (paging.py), read-only verdicts (smq_db/readonly.py),
directive indexes (agent/directives), MCP sessions and paused REST runs each keep "the last N things,
forgetting the least recently used". They all use this class, so eviction and locking are written once.
`functools.lru_cache` does not fit them: their keys are built from arguments that are not hashable as
given (an SMQ dict, an executor), their values are sometimes built outside the lock, and some are removed
or expired by the caller.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")

_MISSING = object()


class LruCache(Generic[K, V]):
    """At most `max_size` entries; `get` and `put` make an entry the most recent, the oldest goes first.

    Every method takes one lock, so a cache can be shared by threads (uvicorn's workers, voting plans).
    A value built outside the lock may be built twice by two threads; the second `put` wins, harmlessly.
    """

    def __init__(self, max_size: int) -> None:
        if max_size < 1:
            raise ValueError(f"an LRU cache holds at least one entry, got max_size={max_size}")
        self.max_size = max_size
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    @overload
    def get(self, key: K) -> V | None: ...

    @overload
    def get(self, key: K, default: D) -> V | D: ...

    def get(self, key: K, default: object = None) -> object:
        """The value (now the most recently used), or `default`."""
        with self._lock:
            value = self._data.get(key, _MISSING)
            if value is _MISSING:
                return default
            self._data.move_to_end(key)
            return value

    def peek(self, key: K) -> V | None:
        """The value without making it recent (None when absent)."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: K, value: V) -> None:
        """Store `value` as the most recent entry, forgetting the least recent ones beyond `max_size`."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            self._evict()

    def get_or_set(self, key: K, factory: Callable[[], V]) -> V:
        """The value, or `factory()` stored under the lock (for cheap values that must be built once)."""
        with self._lock:
            value = self._data.get(key, _MISSING)
            if value is _MISSING:
                value = self._data[key] = factory()
                self._evict()
            self._data.move_to_end(key)
            return value  # type: ignore[return-value]

    def pop(self, key: K) -> V | None:
        """Remove and return the value (None when absent)."""
        with self._lock:
            return self._data.pop(key, None)

    def remove_if(self, predicate: Callable[[K, V], bool]) -> None:
        """Forget every entry for which `predicate(key, value)` holds (an expiry sweep)."""
        with self._lock:
            for key in [k for k, v in self._data.items() if predicate(k, v)]:
                del self._data[key]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def _evict(self) -> None:
        while len(self._data) > self.max_size:
            self._data.popitem(last=False)
