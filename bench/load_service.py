"""Load benchmark of the REST service on the demo DuckDB database (not a test; run by hand).

    .venv/bin/python bench/load_service.py [--clients 8] [--seconds 5] [--max-requests 50000]

Starts the service as `smq serve` in a subprocess (127.0.0.1 on a free port, one API key, a
temporary copy of the demo layer and database; its own process so the load generator does not
share its GIL), then for each scenario runs N concurrent httpx
clients for a fixed time (and at most --max-requests requests) and prints throughput, p50/p99
latency and errors. Last, the service's overhead on `query`: the same SQL through the DuckDB
driver directly vs through POST /query, sequentially, median of --overhead-runs each.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.auth import hash_key  # noqa: E402
from service.demo.build import build_duckdb  # noqa: E402
from service.settings import Settings  # noqa: E402

KEY = "bench-key"
SMQS: list[dict[str, Any]] = [
    {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]},
    {"metrics": ["OrderItemsModel__revenue", "averageOrderValue"], "group_by": ["CustomersModel__segment"]},
    {"metrics": ["OrderItemsModel__revenue"], "group_by": ["OrdersModel__orderDate__month"], "limit": 24},
    {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"],
     "filters": ["OrdersModel__status = 'delivered'"], "order_by": ["-OrdersModel__orderCount"]},
    # heavier BI shapes: a fan-out deduplicated over every order line, and a daily running window
    {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["ProductsModel__category", "OrdersModel__orderDate__month"]},
    {"metrics": ["revenueLast7Days", "cumulativeRevenue"], "group_by": ["OrdersModel__orderDate__day"]},
]
SCENARIOS: list[tuple[str, str, Any]] = [
    ("compile (no preview)", "compile", lambda smq: {"smq": smq, "preview": False}),
    ("compile + preview", "compile", lambda smq: {"smq": smq}),
    ("query", "query", lambda smq: {"smq": smq}),
]


@dataclass
class Stats:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0


def prepare(workdir: Path) -> Settings:
    """A copy of the demo layer pointing at a freshly built database, and a keys file with one key."""
    layer = workdir / "models" / "shop"
    shutil.copytree(ROOT / "semantic_models" / "shop", layer, ignore=shutil.ignore_patterns("data"))
    database = build_duckdb(workdir / "shop.duckdb")
    config = yaml.safe_load((layer / "database.yml").read_text())
    config["connection"] = {"backend": "duckdb", "path": str(database)}
    (layer / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    keys = workdir / "keys.yml"
    keys.write_text(yaml.safe_dump({"keys": [{"name": "bench", "sha256": hash_key(KEY), "databases": ["*"]}]}))
    return Settings(models_dir=workdir / "models", api_keys_file=keys, host="127.0.0.1", port=free_port(),
                    log_level="warning")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(settings: Settings) -> subprocess.Popen:
    """`smq serve` on loopback, as deployed; returns once /v1/health answers."""
    command = [sys.executable, "-m", "smq_cli.main", "serve", "--host", "127.0.0.1", "--port", str(settings.port),
               "--models-dir", str(settings.models_dir), "--api-keys", str(settings.api_keys_file), "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{settings.port}/v1/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit("the service did not start within 30 s")
        time.sleep(0.1)


async def load(base: str, endpoint: str, body: Any, clients: int, seconds: float, max_requests: int) -> tuple[Stats, float]:
    stats = Stats()
    issued = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {KEY}"}, limits=limits,
                                 timeout=30) as client:
        stop_at = time.perf_counter() + seconds

        async def worker(n: int) -> None:
            nonlocal issued
            i = n
            while time.perf_counter() < stop_at and issued < max_requests:
                issued += 1
                smq = SMQS[i % len(SMQS)]
                i += 1
                t0 = time.perf_counter()
                try:
                    r = await client.post(f"/v1/databases/shop/{endpoint}", json=body(smq))
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                stats.latencies_ms.append((time.perf_counter() - t0) * 1000)
                stats.errors += not ok

        started = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(clients)))
        elapsed = time.perf_counter() - started
    return stats, elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def overhead(base: str, database: Path, runs: int) -> list[tuple[str, float, float]]:
    """(smq label, direct driver median ms, service median ms) per SMQ, sequential, warm."""
    import duckdb

    out = []
    conn = duckdb.connect(str(database), read_only=True)
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {KEY}"}) as client:
        for n, smq in enumerate(SMQS):
            sql = client.post("/v1/databases/shop/query", json={"smq": smq}).json()["sql"]
            direct, served = [], []
            for _ in range(runs):
                t0 = time.perf_counter()
                conn.cursor().execute(sql).fetchall()
                direct.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                assert client.post("/v1/databases/shop/query", json={"smq": smq}).status_code == 200
                served.append((time.perf_counter() - t0) * 1000)
            out.append((f"smq{n + 1}", statistics.median(direct), statistics.median(served)))
    conn.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each scenario")
    parser.add_argument("--max-requests", type=int, default=50_000, help="cap per scenario")
    parser.add_argument("--overhead-runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="smq-bench-") as tmp:
        settings = prepare(Path(tmp))
        server = start(settings)
        base = f"http://127.0.0.1:{settings.port}"
        try:
            print(f"service on {base}, {args.clients} concurrent clients, {args.seconds:g} s per scenario\n")
            print(f"{'scenario':<22} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
            for label, endpoint, body in SCENARIOS:
                asyncio.run(load(base, endpoint, body, args.clients, 0.5, 200))  # warm-up
                stats, elapsed = asyncio.run(load(base, endpoint, body, args.clients, args.seconds, args.max_requests))
                n = len(stats.latencies_ms)
                print(f"{label:<22} {n:>9} {n / elapsed:>8.0f} {percentile(stats.latencies_ms, 0.5):>8.2f} "
                      f"{percentile(stats.latencies_ms, 0.99):>8.2f} {stats.errors:>7}")
            print(f"\nservice overhead on query (sequential, median of {args.overhead_runs})")
            print(f"{'smq':<6} {'driver ms':>10} {'service ms':>11} {'ratio':>7} {'overhead ms':>12}")
            for label, direct, served in overhead(base, Path(tmp) / "shop.duckdb", args.overhead_runs):
                print(f"{label:<6} {direct:>10.2f} {served:>11.2f} {served / direct:>7.2f} {served - direct:>12.2f}")
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
