"""engine.lru.LruCache: the one bounded cache behind compiled SQL, paged SQL, read-only verdicts, directive
indexes, MCP sessions and paused REST runs — the least recently used entry goes first, under one lock."""

from __future__ import annotations

import threading

import pytest

from engine.lru import LruCache


def test_the_least_recently_used_entry_is_forgotten_first():
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now more recent than b
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2


def test_peek_does_not_make_an_entry_recent():
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.peek("a") == 1
    cache.put("c", 3)
    assert "a" not in cache and cache.peek("b") == 2


def test_falsy_values_and_defaults_are_told_apart():
    cache: LruCache[str, int] = LruCache(4)
    cache.put("zero", 0)
    assert cache.get("zero", -1) == 0 and cache.get("missing", -1) == -1 and cache.get("missing") is None


def test_get_or_set_builds_once_and_counts_as_use():
    cache: LruCache[str, list[int]] = LruCache(2)
    first = cache.get_or_set("s", list)
    first.append(1)
    assert cache.get_or_set("s", list) == [1]
    cache.put("t", [])
    cache.get_or_set("s", list)  # s is recent again
    cache.put("u", [])
    assert "t" not in cache and cache.peek("s") == [1]


def test_pop_remove_if_and_clear():
    cache: LruCache[str, int] = LruCache(8)
    for i, key in enumerate("abcd"):
        cache.put(key, i)
    assert cache.pop("a") == 0 and cache.pop("a") is None
    cache.remove_if(lambda _, value: value % 2 == 1)
    assert "b" not in cache and "d" not in cache and cache.peek("c") == 2
    cache.clear()
    assert len(cache) == 0


def test_threads_sharing_a_cache_never_exceed_its_size():
    cache: LruCache[tuple[int, int], int] = LruCache(16)

    def work(thread: int) -> None:
        for i in range(2000):
            cache.put((thread, i), i)
            cache.get((thread, i - 1))
            cache.get_or_set((thread, -i), int)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 16


def test_a_cache_must_hold_something():
    with pytest.raises(ValueError, match="at least one entry"):
        LruCache(0)
