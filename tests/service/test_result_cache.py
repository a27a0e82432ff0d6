"""The result cache (service/result_cache.py): hits and misses, never one role's rows for another, ETag/304,
TTL and database.yml `cache:` (ttl_seconds, refresh_key), the shared Redis store, and a Redis that is down."""

from __future__ import annotations

import logging
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from service.app import create_app
from service.result_cache import CachedRows, MemoryStore
from service.settings import Settings
from smq_db.executors.base import QueryResult
from tests.service.conftest import auth, copy_layer

ADMIN, DE = auth("admin-key"), auth("de-key")
REDIS_URL = "redis://127.0.0.1:6379/0"
BY_COUNTRY = {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"],
              "order_by": ["NationsModel__country"]}


def timing(response: Any) -> dict[str, str]:
    """Server-Timing entries by name: `cache;desc=hit;dur=0.1` -> {"cache": "desc=hit;dur=0.1"}."""
    out = {}
    for entry in response.headers["server-timing"].split(","):
        name, _, rest = entry.strip().partition(";")
        out[name] = rest
    return out


def cache_state(response: Any) -> str | None:
    entry = timing(response).get("cache")
    return entry.split(";")[0].removeprefix("desc=") if entry else None


def query(client: TestClient, smq: dict[str, Any] = BY_COUNTRY, key: dict[str, str] = ADMIN, db: str = "shop",
          **headers: str) -> Any:
    response = client.post(f"/v1/databases/{db}/query", json={"smq": smq}, headers={**key, **headers})
    assert response.status_code in (200, 304), response.text
    return response


@pytest.fixture()
def make_client(models_dir: Path, keys_file: Path) -> Iterator[Any]:
    """Apps of their own (a fresh cache each), closed at the end."""
    stack: list[TestClient] = []

    def make(models: Path = models_dir, **settings: Any) -> TestClient:
        client = TestClient(create_app(Settings(models_dir=models, api_keys_file=keys_file, **settings)))
        stack.append(client.__enter__())
        return client

    yield make
    for client in stack:
        client.__exit__(None, None, None)


@pytest.fixture()
def redis_prefix() -> Iterator[str]:
    """A prefix no other test run uses; its keys are deleted afterwards."""
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    prefix = f"smq-test-{uuid.uuid4().hex[:12]}"
    yield prefix
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)
    client.close()


def test_a_repeated_query_is_a_hit_without_the_database(make_client) -> None:
    client = make_client()
    first = query(client)
    second = query(client)
    assert cache_state(first) == "miss" and "db" in timing(first)
    assert cache_state(second) == "hit" and "db" not in timing(second)
    assert second.json() == first.json()
    assert client.app.state.result_cache.stats() == {"hits": 1, "misses": 1, "entries": 1, "errors": 0}
    fresh = query(client, **{"Cache-Control": "no-cache"})  # the caller asks for a new run
    assert cache_state(fresh) == "miss" and fresh.json()["rows"] == first.json()["rows"]


def test_a_page_is_its_own_entry(make_client) -> None:
    client = make_client()
    whole = client.post("/v1/databases/shop/query", json={"smq": BY_COUNTRY}, headers=ADMIN)
    page = client.post("/v1/databases/shop/query", json={"smq": BY_COUNTRY, "limit": 2, "offset": 1}, headers=ADMIN)
    again = client.post("/v1/databases/shop/query", json={"smq": BY_COUNTRY, "limit": 2, "offset": 1}, headers=ADMIN)
    assert [cache_state(r) for r in (whole, page, again)] == ["miss", "miss", "hit"]
    assert again.json()["rows"] == whole.json()["rows"][1:3] and again.json()["offset"] == 1


def test_one_roles_rows_never_answer_another_role(make_client) -> None:
    client = make_client()
    everyone = query(client)  # admin: every country, now cached
    germany = query(client, key=DE)  # the analyst's role filters to Germany: its own entry
    assert cache_state(germany) == "miss" and [r[0] for r in germany.json()["rows"]] == ["Germany"]
    assert len(everyone.json()["rows"]) > 1
    assert [r[0] for r in query(client, key=DE).json()["rows"]] == ["Germany"]  # a hit, of its own rows
    assert len(query(client).json()["rows"]) == len(everyone.json()["rows"])
    stats = client.app.state.result_cache.stats()
    assert stats["hits"] == 2 and stats["misses"] == 2 and stats["entries"] == 2


def test_the_role_is_in_the_key_even_for_the_same_sql(make_client) -> None:
    """Whatever the compiler writes, one role's key is never another's (the role is part of the key)."""
    client = make_client()
    cache, app_state = client.app.state.result_cache, client.app.state.smq
    from service.deps import Database

    entry = app_state.registry.entry("shop", ["shop"])
    layer = app_state.registry.layer(entry)
    request: Any = type("R", (), {"app": client.app})()
    keys = {role: cache.key(request, Database(entry, layer, None, role, None), "SELECT 1", 10)
            for role in (None, "de_analyst", "other")}
    assert len(set(keys.values())) == 3


def test_raw_sql_is_cached_per_role_too(make_client) -> None:
    client = make_client()
    sql = {"sql": "SELECT nation_name FROM nations ORDER BY nation_name"}
    first = client.post("/v1/databases/shop/execute", json=sql, headers=ADMIN)
    second = client.post("/v1/databases/shop/execute", json=sql, headers=ADMIN)
    assert [cache_state(r) for r in (first, second)] == ["miss", "hit"] and first.json() == second.json()
    assert second.headers["etag"] == first.headers["etag"]


def test_etag_and_if_none_match(make_client) -> None:
    client = make_client(result_cache_ttl_s=120)
    first = query(client)
    etag = first.headers["etag"]
    assert etag.startswith('W/"') and first.headers["cache-control"] == "private, max-age=120"
    assert first.headers["age"] == "0"
    same = query(client, **{"If-None-Match": etag})
    assert same.status_code == 304 and same.content == b"" and same.headers["etag"] == etag
    assert int(same.headers["age"]) in (0, 1)  # seconds since the entry was stored
    assert "cache" in timing(same)
    other = query(client, **{"If-None-Match": 'W/"something-else"'})
    assert other.status_code == 200 and other.json() == first.json()
    germany = query(client, key=DE)
    assert germany.headers["etag"] != etag  # other rows, other tag
    refused = client.post("/v1/databases/shop/query", json={"smq": {"metrics": ["Nope"]}}, headers=ADMIN)
    assert refused.status_code == 400 and "etag" not in refused.headers


def test_entries_expire_after_their_ttl() -> None:
    now = [0.0]
    store = MemoryStore(4, clock=lambda: now[0])
    entry = CachedRows(QueryResult(["x"], [[1]], False, 1.0, 1), "tag")
    store.put("k", entry, ttl_s=10)
    assert store.get("k") == entry and store.entries() == 1
    now[0] = 10.5
    assert store.get("k") is None and store.entries() == 0
    for index in range(6):  # bounded: the least recently used go
        store.put(f"k{index}", entry, ttl_s=10)
    assert store.entries() == 4 and store.get("k0") is None and store.get("k5") == entry


def layer_with_cache(root: Path, served_duckdb: Path, name: str, cache: dict[str, Any],
                     connection: dict[str, Any] | None = None, dialect: str = "duckdb") -> Path:
    target = copy_layer(root / name, name, connection or {"backend": "duckdb", "path": str(served_duckdb)}, dialect)
    config = yaml.safe_load((target / "database.yml").read_text(encoding="utf-8"))
    config["cache"] = cache
    (target / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return target


def test_database_ttl_zero_turns_the_cache_off(make_client, tmp_path: Path, served_duckdb: Path) -> None:
    layer_with_cache(tmp_path, served_duckdb, "shop", {"ttl_seconds": 0})
    layer_with_cache(tmp_path, served_duckdb, "other", {"ttl_seconds": 7})
    client = make_client(tmp_path)
    off = [query(client) for _ in range(2)]
    assert all(cache_state(r) is None and "etag" not in r.headers for r in off)
    on = [query(client, db="other") for _ in range(2)]
    assert [cache_state(r) for r in on] == ["miss", "hit"] and on[0].headers["cache-control"] == "private, max-age=7"


def test_a_new_refresh_value_means_new_keys(make_client, tmp_path: Path, demo_files: dict[str, Path]) -> None:
    """SQLite, so that the test can write while the service reads: the refresh key sees the new row."""
    db = Path(shutil.copy(demo_files["sqlite"], tmp_path / "shop.sqlite"))
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE loads (loaded_at INTEGER)")
        conn.execute("INSERT INTO loads VALUES (1)")
    models = tmp_path / "models"
    layer_with_cache(models, db, "shop", {"refresh_key": "SELECT max(loaded_at) FROM loads"},
                     {"backend": "sqlite", "path": str(db)}, dialect="sqlite")
    layer_with_cache(models, db, "other", {"refresh_key": "SELECT max(nothing) FROM no_such_table"},
                     {"backend": "sqlite", "path": str(db)}, dialect="sqlite")
    client = make_client(models, cache_refresh_check_s=10)
    now = [0.0]
    client.app.state.result_cache.clock = lambda: now[0]  # the refresh check's clock
    assert [cache_state(query(client)) for _ in range(2)] == ["miss", "hit"]
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO loads VALUES (2)")
    now[0] = 9.0
    assert cache_state(query(client)) == "hit"  # checked again at most every 10 s
    now[0] = 10.5
    assert [cache_state(query(client)) for _ in range(2)] == ["miss", "hit"]
    broken = [query(client, db="other") for _ in range(2)]  # a refresh key that fails: answered, not cached
    assert [cache_state(r) for r in broken] == ["miss", "miss"] and broken[1].json()["rows"]
    assert client.app.state.result_cache.stats()["errors"] == 2


def test_refresh_key_and_ttl_are_validated(tmp_path: Path, served_duckdb: Path) -> None:
    from engine import LayerValidationError, load_layer

    layer = layer_with_cache(tmp_path, served_duckdb, "shop", {"ttl_seconds": "soon", "refresh_key": "SELECT FROM WHERE",
                                                               "refresh": 5})
    with pytest.raises(LayerValidationError) as err:
        load_layer(layer)
    codes = {(e.code, e.location.field) for e in err.value.errors}
    assert {("invalid_shape", "cache.ttl_seconds"), ("invalid_expression", "cache.refresh_key"),
            ("unknown_key", "cache.refresh")} <= codes


# -- Redis ----------------------------------------------------------------------------------------------

def test_workers_share_entries_in_redis(make_client, redis_prefix: str) -> None:
    """Two apps (as two workers or replicas) on one Redis: what one ran, the other serves."""
    first, second = (make_client(redis_url=REDIS_URL, redis_prefix=redis_prefix) for _ in range(2))
    miss = query(first)
    hit = query(second)
    assert cache_state(miss) == "miss" and cache_state(hit) == "hit" and hit.json() == miss.json()
    assert hit.headers["etag"] == miss.headers["etag"]
    assert [r[0] for r in query(second, key=DE).json()["rows"]] == ["Germany"]  # still per role
    assert second.app.state.result_cache.stats() == {"hits": 1, "misses": 1, "entries": 2, "errors": 0}


def test_a_redis_that_is_down_costs_the_cache_only(make_client, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="smq.service")
    client = make_client(redis_url="redis://127.0.0.1:1/0")  # nothing listens on port 1
    answers = [query(client) for _ in range(3)]
    assert all(r.status_code == 200 and cache_state(r) == "miss" for r in answers)
    assert answers[0].json()["rows"] == answers[2].json()["rows"]
    stats = client.app.state.result_cache.stats()
    assert stats["hits"] == 0 and stats["misses"] == 3 and stats["errors"] >= 3 and stats["entries"] == 0
    logged = [r.getMessage() for r in caplog.records if "Redis unavailable for the result cache" in r.getMessage()]
    assert len(logged) == 1  # once per outage, not once per request
    assert client.get("/v1/databases", headers=ADMIN).status_code == 200  # the quota fell back to this process
