"""Result cache: latency of a hit against a miss, in process and on Redis (not a test; run by hand).

    .venv/bin/python bench/result_cache.py [--requests 40] [--scale 1] [--redis redis://127.0.0.1:6379/0]

Starts `smq serve` on a temporary copy of the demo (bench/load_service.py's `prepare`), once with the
in-process cache and once with SMQ_REDIS_URL (skipped when Redis does not answer), and for each of
load_service's six SMQs sends, one at a time on one keep-alive connection:

* misses: `Cache-Control: no-cache` (the query runs and its result replaces the entry: a real miss's cost);
* hits: the same request without it;
* revalidations: `If-None-Match` with the hit's ETag (a 304 without a body).

Prints the median client-side latency and `Server-Timing` total of each, the ratio miss / hit of the medians,
and the fastest miss and hit as the server timed them (less sensitive to a busy machine than medians).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from http_load import Connection, build_post, server_timing  # noqa: E402
from load_service import KEY, SMQS, prepare, start  # noqa: E402


async def measure(port: int, smq: dict, requests: int) -> dict[str, list[float]]:
    """Client ms and server ms of misses, hits and 304s for one SMQ."""
    body = json.dumps({"smq": smq}).encode()
    auth = {"Authorization": f"Bearer {KEY}"}
    path = "/v1/databases/shop/query"
    connection = await Connection.open("127.0.0.1", port)
    out: dict[str, list[float]] = {k: [] for k in ("miss", "miss_server", "hit", "hit_server", "304", "304_server")}
    etag, rows = "", 0
    try:
        for kind, headers in (("miss", {**auth, "Cache-Control": "no-cache"}), ("hit", auth), ("304", None)):
            for _ in range(requests):
                sent = headers if headers is not None else {**auth, "If-None-Match": etag}
                started = time.perf_counter()
                reply = await connection.send(build_post("127.0.0.1", port, path, body, sent))
                elapsed = (time.perf_counter() - started) * 1000
                want = 304 if kind == "304" else 200
                if reply.status != want:
                    raise SystemExit(f"{kind}: HTTP {reply.status}: {reply.body[:300]!r}")
                state = next((e for e in reply.headers.get("server-timing", "").split(", ") if e.startswith("cache;")), "")
                if kind in ("miss", "hit") and f"desc={kind}" not in state:
                    raise SystemExit(f"expected a cache {kind}, the server says {state!r}")
                if kind == "hit":
                    etag, rows = reply.headers["etag"], len(json.loads(reply.body)["rows"])
                out[kind].append(elapsed)
                out[f"{kind}_server"].append(server_timing(reply.headers)["total"])
    finally:
        await connection.close()
    out["rows"] = [float(rows)]
    return out


def run(label: str, settings: object, requests: int, env: dict[str, str]) -> None:
    os.environ.update(env)
    try:
        process = start(settings)  # type: ignore[arg-type]
    finally:
        for name in env:
            os.environ.pop(name, None)
    try:
        print(f"\n## {label}\n")
        print("| SMQ | rows | miss ms (server) | hit ms (server) | miss / hit | best miss / best hit (server) | 304 ms |")
        print("|---|---|---|---|---|---|---|")
        ratios = []
        for index, smq in enumerate(SMQS, 1):
            got = asyncio.run(measure(settings.port, smq, requests))  # type: ignore[attr-defined]
            med = {k: statistics.median(v) for k, v in got.items()}
            ratios.append(med["miss"] / med["hit"])
            best_miss, best_hit = min(got["miss_server"]), min(got["hit_server"])
            print(f"| {index} | {int(med['rows'])} | {med['miss']:.2f} ({med['miss_server']:.2f}) | "
                  f"{med['hit']:.2f} ({med['hit_server']:.2f}) | {ratios[-1]:.1f}x | "
                  f"{best_miss:.2f} / {best_hit:.2f} | {med['304']:.2f} |")
        print(f"\nmedian ratio miss / hit over the {len(SMQS)} SMQs: {statistics.median(ratios):.1f}x")
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=40, help="requests of each kind per SMQ")
    parser.add_argument("--scale", type=int, default=1, help="copies of the demo's facts (bench/load_service.py)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="Redis for the shared run ('' to skip)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings, _ = prepare(Path(tmp), scale=args.scale)
        base = {"SMQ_RESULT_CACHE_TTL_S": "3600"}
        run("in process (default)", settings, args.requests, base)
        if args.redis:
            try:
                import redis

                client = redis.Redis.from_url(args.redis)
                client.ping()
            except Exception as exc:  # noqa: BLE001 - the Redis half is optional
                print(f"\n(Redis run skipped: {exc})")
                return
            prefix = f"smq-bench-{uuid.uuid4().hex[:8]}"
            try:
                run(f"Redis ({args.redis})", settings, args.requests,
                    {**base, "SMQ_REDIS_URL": args.redis, "SMQ_REDIS_PREFIX": prefix})
            finally:
                for key in client.scan_iter(match=f"{prefix}:*"):
                    client.delete(key)


if __name__ == "__main__":
    main()
