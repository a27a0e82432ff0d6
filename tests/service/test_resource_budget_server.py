"""The attack round's requests against a real `smq serve` on the demo, the service process's memory read from
/proc/<pid>/status. Before the change `SELECT max(length(repeat('ab', 500000000)))` from a key with a role grew the
service from 99 MB to 1,658 MB before it was killed, `string_agg` over 3,000 strings of 1 MB likewise, a 200 MB cell
to 905 MB and a 10-million-element list to 1,774 MB. Now each is a 422 naming the limit, the process grows by less
than its budget, and other keys are served throughout.

The figures of one run are printed (`-s`) and quoted in docs/security.md."""

from __future__ import annotations

import concurrent.futures
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import auth, running_service

SERVICE_GROWTH_BUDGET_MB = 128  # the service's own share: one capped result (SMQ_MAX_RESULT_BYTES, 16 MiB) and its copies

ATTACKS = {
    "repeat 1 GB": "SELECT max(length(repeat('ab', 500000000))) AS n",
    "string_agg 3,000 x 1 MB": "SELECT length(string_agg(repeat('x', 1000000), ',')) AS n FROM (SELECT order_id FROM orders LIMIT 3000) o",
    "a 200 MB cell": "SELECT repeat('x', 200000000) AS s",
    "a 10-million-element list": "SELECT range(10000000) AS l",
}


def _status(pid: int) -> dict[str, int]:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        return {line.split(":")[0]: int(line.split()[1]) for line in status if line.startswith(("VmRSS", "VmHWM"))}


@pytest.fixture(scope="module")
def server(models_dir: Path, keys_file: Path) -> Any:
    started: list[subprocess.Popen] = []
    with running_service("--models-dir", str(models_dir), "--api-keys", str(keys_file), "--query-timeout", "20",
                         env={"SMQ_MAX_INFLIGHT_PER_KEY": "2"},
                         ready=lambda process: started.append(process) or True) as base:
        yield base, started[-1].pid


def test_the_attacks_are_refused_and_the_service_grows_less_than_its_budget(server: Any) -> None:
    base, pid = server
    with httpx.Client(base_url=base, timeout=120) as client:
        warm = client.post("/v1/databases/shop/execute", json={"sql": "SELECT count(*) AS n FROM orders"},
                           headers=auth("de-key"))
        assert warm.status_code == 200, warm.text
        before = _status(pid)
        seen = {}
        for name, sql in ATTACKS.items():
            started = time.monotonic()
            r = client.post("/v1/databases/shop/execute", json={"sql": sql}, headers=auth("de-key"))
            body = r.json()
            seen[name] = (r.status_code, body.get("code"), round(time.monotonic() - started, 1), _status(pid)["VmHWM"])
            assert r.status_code == 422, (name, r.status_code, body)
            assert body["code"] in ("resource_limit_exceeded", "result_too_large"), (name, body)
            assert "connection.limits.memory" in body["detail"] or "cap of" in body["detail"], body["detail"]
            served = client.post("/v1/databases/shop/query", json={"smq": {"metrics": ["OrdersModel__orderCount"]}},
                                 headers=auth("all-key"))
            assert served.status_code == 200 and served.json()["rows"] == [[5000]]  # another key, right after
        after = _status(pid)
    grown = (after["VmHWM"] - before["VmRSS"]) / 1024
    print(f"\nservice VmRSS before {before['VmRSS'] / 1024:.0f} MB, peak after {after['VmHWM'] / 1024:.0f} MB "
          f"(+{grown:.0f} MB); per attack (status, code, seconds, peak kB): {seen}")
    assert grown < SERVICE_GROWTH_BUDGET_MB, f"the service grew {grown:.0f} MB: {seen}"


def test_cube_routes_answer_429_while_the_keys_slots_are_taken(server: Any) -> None:
    base, _ = server
    slow = {"sql": "SELECT max(length(repeat('ab', 150000000))) AS n"}  # runs until its worker is stopped
    with httpx.Client(base_url=base, timeout=120) as client, concurrent.futures.ThreadPoolExecutor(2) as pool:
        holding = [pool.submit(client.post, "/v1/databases/shop/execute", json=slow, headers=auth("shop-key"))
                   for _ in range(2)]
        deadline = time.monotonic() + 30
        while True:  # both slow requests hold a slot once /query is refused for the key
            if client.get("/v1/databases", headers=auth("shop-key")).status_code == 429:
                break
            assert time.monotonic() < deadline, "the slow requests never held the key's slots"
            time.sleep(0.1)
        query = {"query": {"measures": ["OrdersModel.orderCount"]}}
        answers = [client.post("/cubejs-api/v1/load", json=query, headers={"Authorization": "shop-key"}),
                   client.post("/cubejs-api/v1/sql", json=query, headers={"Authorization": "shop-key"}),
                   client.get("/cubejs-api/v1/meta", headers={"Authorization": "shop-key"})]
        still_held = not all(f.done() for f in holding)
        for f in holding:
            f.result()
    assert still_held
    assert [a.status_code for a in answers] == [429, 429, 429], [a.text[:200] for a in answers]


def test_a_cross_site_reload_on_an_open_server_is_refused(models_dir: Path) -> None:
    with running_service("--open", "--models-dir", str(models_dir)) as base:
        refused = httpx.post(f"{base}/v1/reload", content=b"{}", headers={
            "Content-Type": "text/plain", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
        own = httpx.post(f"{base}/v1/reload", json={}, timeout=60)
    assert refused.status_code == 403 and refused.json()["code"] == "cross_site_request"
    assert own.status_code == 200
