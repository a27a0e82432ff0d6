"""The SQL API over the PostgreSQL protocol against `/query` over HTTP: queries per second, p50 and p99.

Starts one `smq serve --open --pg-port` on the demo (free loopback ports), then runs the same small grouped
query (orders by channel) through both, alternating rounds so both see the same machine load:
  * wire, simple protocol: psycopg ClientCursor (one Q message per query);
  * wire, extended protocol: psycopg server-side binding (Parse/Bind/Describe/Execute/Sync), prepared;
  * HTTP: POST /v1/databases/shop/query with httpx (keep-alive), result cache off (SMQ_RESULT_CACHE_TTL_S=0),
each with 1 client and with N concurrent clients (threads). Bounded in count and time; prints a table.

    .venv/bin/python bench/sql_api.py --queries 300 --clients 4
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SQL = 'SELECT channel, MEASURE("orderCount") AS orders FROM "OrdersModel" GROUP BY 1 ORDER BY 1'
SQL_PARAM = 'SELECT channel, MEASURE("orderCount") AS orders FROM "OrdersModel" WHERE status <> %s GROUP BY 1 ORDER BY 1'
SMQ = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"], "order_by": ["OrdersModel__channel"]}
SMQ_PARAM = {**SMQ, "filters": ["OrdersModel__status <> 'x'"]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start() -> tuple[subprocess.Popen, int, int]:
    http, pg = free_port(), free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SMQ_")}, "SMQ_RESULT_CACHE_TTL_S": "0"}
    server = subprocess.Popen([sys.executable, "-m", "smq_cli.main", "serve", "--open", "--port", str(http),
                               "--pg-port", str(pg), "--log-level", "warning"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{http}/v1/health", timeout=1).status_code == 200:
                return server, http, pg
        except httpx.HTTPError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("the service did not start")


def run(make: Callable[[], Callable[[], None]], queries: int, clients: int) -> tuple[float, list[float]]:
    """(queries per second, latencies in ms) of `queries` calls split over `clients` threads."""
    latencies: list[float] = []
    lock = threading.Lock()
    per_client = max(1, queries // clients)

    def worker() -> None:
        call = make()
        mine = []
        for _ in range(per_client):
            started = time.perf_counter()
            call()
            mine.append((time.perf_counter() - started) * 1000)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    return len(latencies) / (time.perf_counter() - started), latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=300, help="queries per measurement (default 300)")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients of the second round (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best of each is kept")
    args = parser.parse_args()

    import httpx
    import psycopg

    server, http, pg = start()
    dsn = f"host=127.0.0.1 port={pg} dbname=shop user=bench sslmode=disable"

    def simple() -> Callable[[], None]:
        conn = psycopg.connect(dsn, autocommit=True, cursor_factory=psycopg.ClientCursor)
        return lambda: conn.execute(SQL).fetchall() and None

    def extended() -> Callable[[], None]:
        conn = psycopg.connect(dsn, autocommit=True)
        return lambda: conn.execute(SQL_PARAM, ("x",), prepare=True).fetchall() and None

    def rest() -> Callable[[], None]:
        client = httpx.Client(base_url=f"http://127.0.0.1:{http}", timeout=60)
        return lambda: client.post("/v1/databases/shop/query", json={"smq": SMQ}).raise_for_status() and None

    def rest_param() -> Callable[[], None]:
        client = httpx.Client(base_url=f"http://127.0.0.1:{http}", timeout=60)
        return lambda: client.post("/v1/databases/shop/query", json={"smq": SMQ_PARAM}).raise_for_status() and None

    ways = {"wire, simple protocol": simple, "wire, extended (prepared, $1)": extended, "HTTP /query": rest,
            "HTTP /query (the $1 query's SMQ)": rest_param}
    try:
        for make in ways.values():  # warm up: connections, compile caches
            run(make, 20, 1)
        best: dict[tuple[str, int], tuple[float, list[float]]] = {}
        for _ in range(args.rounds):
            for clients in (1, args.clients):
                for name, make in ways.items():
                    qps, lat = run(make, args.queries, clients)
                    if (name, clients) not in best or qps > best[(name, clients)][0]:
                        best[(name, clients)] = (qps, lat)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"{args.queries} queries per measurement, best of {args.rounds} rounds\n")
    print("| path | clients | queries/s | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for (name, clients), (qps, lat) in best.items():
        lat = sorted(lat)
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"| {name} | {clients} | {qps:.0f} | {statistics.median(lat):.2f} | {p99:.2f} |")
    for clients in (1, args.clients):
        ratio = best[("wire, simple protocol", clients)][0] / best[("HTTP /query", clients)][0]
        print(f"\nwire (simple) / HTTP queries per second, {clients} client(s): {ratio:.2f}")


if __name__ == "__main__":
    main()
