"""Load benchmark of the REST service on the demo database, DuckDB or PostgreSQL (not a test; run by hand).

    .venv/bin/python bench/load_service.py [--clients 8] [--seconds 5] [--workers 1] [--backend duckdb|postgres] [--scale 1]

Starts the service as `smq serve` in a subprocess (127.0.0.1 on a free port, one API key, a
temporary copy of the demo layer and database), then:

1. for compile, compile + preview and query, N concurrent keep-alive clients for a fixed time →
   requests, throughput, p50/p99 latency, errors, and the service's own time per request (the
   median of `Server-Timing` total - db);
2. the service's overhead on `query` over the driver (DuckDB, or PostgreSQL with --backend postgres): for each SMQ, and for the six in turn
   (the "mix"), N threads calling the driver on the same SQL (a cursor each, fetchall) vs N clients
   calling POST /query, same duration; overhead = driver throughput / service throughput - 1.

The load comes from a lean asyncio client (bench/http_load.py): a general HTTP client would spend
more CPU per request than the service does, on the same two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from http_load import Connection, build_post, server_timing  # noqa: E402

from service.auth import hash_key  # noqa: E402
from service.settings import Settings  # noqa: E402
from smq_db.demo.build import build_duckdb  # noqa: E402

KEY = "bench-key"
PG_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"
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
    server_overhead_ms: list[float] = field(default_factory=list)  # Server-Timing total - db
    errors: int = 0
    elapsed_s: float = 0.0

    @property
    def throughput(self) -> float:
        return len(self.latencies_ms) / self.elapsed_s if self.elapsed_s else 0.0


@dataclass
class Target:
    """The database the service and the driver baseline both query."""

    backend: str  # duckdb | postgres
    duckdb_path: Path | None = None
    pg_dsn: str | None = None
    pg_schema: str | None = None

    def connect(self) -> Any:
        """A driver connection for one baseline thread (DuckDB: a cursor of one shared read-only database)."""
        if self.backend == "duckdb":
            return _duckdb_database(self.duckdb_path).cursor()
        import psycopg

        conn = psycopg.connect(self.pg_dsn, autocommit=True)
        conn.execute(f'SET search_path TO "{self.pg_schema}"')
        return conn

    def drop(self) -> None:
        if self.backend == "postgres":
            import psycopg

            with psycopg.connect(self.pg_dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.pg_schema}" CASCADE')


_DUCKDB: dict[Path, Any] = {}


def _duckdb_database(path: Path | None) -> Any:
    import duckdb

    assert path is not None
    if path not in _DUCKDB:
        _DUCKDB[path] = duckdb.connect(str(path), read_only=True)
    return _DUCKDB[path]


# the fact tables copied `scale` times, keys shifted per copy: the same shapes at a realistic size
_AMPLIFY = {
    "orders": "o.order_id + s.k * 10000000, o.customer_ref, o.order_date, o.status, o.channel, o.shipped_at",
    "order_items": "o.order_id + s.k * 10000000, o.line_number, o.product_id, o.quantity, o.unit_price, o.discount",
    "payments": "o.payment_id + s.k * 10000000, o.order_id + s.k * 10000000, o.paid_at, o.amount, o.method",
}


def amplify(conn: Any, scale: int, schema: str | None = None) -> None:
    """Copy the facts (orders, their lines and payments) `scale` times in all; dimensions stay as they are."""
    if scale <= 1:
        return
    for table, columns in _AMPLIFY.items():
        name = f'"{schema}".{table}' if schema else table
        conn.execute(f"INSERT INTO {name} SELECT {columns} FROM {name} AS o, generate_series(1, {scale - 1}) AS s(k)")


def prepare(workdir: Path, backend: str = "duckdb", pg_dsn: str = PG_DSN, pool_size: int = 8,
            scale: int = 1) -> tuple[Settings, Target]:
    """A copy of the demo layer pointing at a freshly loaded database, and a keys file with one key."""
    layer = workdir / "models" / "shop"
    shutil.copytree(ROOT / "semantic_models" / "shop", layer, ignore=shutil.ignore_patterns("data"))
    config = yaml.safe_load((layer / "database.yml").read_text())
    if backend == "duckdb":
        database = build_duckdb(workdir / "shop.duckdb")
        if scale > 1:
            import duckdb

            with duckdb.connect(str(database)) as conn:
                amplify(conn, scale)
                conn.execute("CHECKPOINT")
        config["connection"] = {"backend": "duckdb", "path": str(database)}
        target = Target("duckdb", duckdb_path=database)
    else:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict

        from smq_db.demo.build import load_into

        schema = f"smq_bench_{os.getpid()}"
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            load_into(conn, "postgres", schema=schema)
            amplify(conn, scale, schema)
            conn.execute(f'ANALYZE "{schema}".orders, "{schema}".order_items, "{schema}".payments')
        parts = conninfo_to_dict(pg_dsn)
        config["dialect"] = "postgres"
        config["connection"] = {"backend": "postgres", "host": parts.get("host", "127.0.0.1"), "port": int(parts.get("port", 5432)),
                                "user": parts.get("user"), "database": parts.get("dbname"), "schema": schema,
                                "pool_size": pool_size}
        target = Target("postgres", pg_dsn=pg_dsn, pg_schema=schema)
    (layer / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    keys = workdir / "keys.yml"
    keys.write_text(yaml.safe_dump({"keys": [{"name": "bench", "sha256": hash_key(KEY), "databases": ["*"]}]}))
    settings = Settings(models_dir=workdir / "models", api_keys_file=keys, host="127.0.0.1", port=free_port(),
                        log_level="warning")
    return settings, target


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(settings: Settings, workers: int = 1) -> subprocess.Popen:
    """`smq serve` on loopback, as deployed; returns once /v1/health answers."""
    command = [sys.executable, "-m", "smq_cli.main", "serve", "--host", "127.0.0.1", "--port", str(settings.port),
               "--models-dir", str(settings.models_dir), "--api-keys", str(settings.api_keys_file), "--log-level", "warning",
               "--workers", str(workers)]
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


async def load(port: int, endpoint: str, bodies: list[bytes], clients: int, seconds: float,
               max_requests: int) -> Stats:
    """N keep-alive connections, each sending the bodies in turn, for `seconds` (lean client: see http_load)."""
    stats = Stats()
    requests = [build_post("127.0.0.1", port, f"/v1/databases/shop/{endpoint}", b, {"Authorization": f"Bearer {KEY}"})
                for b in bodies]
    connections = [await Connection.open("127.0.0.1", port) for _ in range(clients)]
    issued = 0
    stop_at = time.perf_counter() + seconds

    async def worker(n: int, connection: Connection) -> None:
        nonlocal issued
        i = n
        while time.perf_counter() < stop_at and issued < max_requests:
            issued += 1
            request = requests[i % len(requests)]
            i += 1
            t0 = time.perf_counter()
            try:
                reply = await connection.send(request)
            except (OSError, asyncio.IncompleteReadError):
                stats.errors += 1
                return
            stats.latencies_ms.append((time.perf_counter() - t0) * 1000)
            stats.errors += reply.status != 200
            timing = server_timing(reply.headers)
            if "db" in timing:
                stats.server_overhead_ms.append(timing["total"] - timing["db"])

    started = time.perf_counter()
    await asyncio.gather(*(worker(n, c) for n, c in enumerate(connections)))
    stats.elapsed_s = time.perf_counter() - started
    for connection in connections:
        await connection.close()
    return stats


def driver_load(target: Target, sqls: list[str], clients: int, seconds: float, max_requests: int) -> Stats:
    """The same work straight through the driver: N threads, each its own connection (DuckDB: cursor), fetchall."""
    stats = Stats()
    issued = 0
    stop_at = time.perf_counter() + seconds
    connections = [target.connect() for _ in range(clients)]

    def worker(n: int) -> None:
        nonlocal issued
        i = n
        conn = connections[n]
        while time.perf_counter() < stop_at and issued < max_requests:
            issued += 1
            sql = sqls[i % len(sqls)]
            i += 1
            t0 = time.perf_counter()
            conn.execute(sql).fetchall()
            stats.latencies_ms.append((time.perf_counter() - t0) * 1000)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stats.elapsed_s = time.perf_counter() - started
    for conn in connections:
        conn.close()
    return stats


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def compiled_sql(port: int) -> list[str]:
    """The SQL the service runs for each SMQ (what the driver baseline runs too)."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {KEY}"}) as client:
        return [client.post("/v1/databases/shop/query", json={"smq": smq}).json()["sql"] for smq in SMQS]


def row(label: str, stats: Stats) -> str:
    lat = stats.latencies_ms
    server = f"{statistics.median(stats.server_overhead_ms):>9.2f}" if stats.server_overhead_ms else f"{'':>9}"
    return (f"{label:<26} {len(lat):>8} {stats.throughput:>8.1f} {percentile(lat, 0.5):>8.2f} "
            f"{percentile(lat, 0.99):>8.2f} {stats.errors:>6} {server}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each scenario")
    parser.add_argument("--max-requests", type=int, default=50_000, help="cap per scenario")
    parser.add_argument("--workers", type=int, default=1, help="server processes (smq serve --workers)")
    parser.add_argument("--backend", choices=["duckdb", "postgres"], default="duckdb",
                        help="the demo on an embedded DuckDB file, or loaded into PostgreSQL (--pg-dsn)")
    parser.add_argument("--scale", type=int, default=1,
                        help="copy the demo's orders, lines and payments this many times (5,000 orders each)")
    parser.add_argument("--pg-dsn", default=PG_DSN, help=f"PostgreSQL to load the demo into (default: {PG_DSN})")
    args = parser.parse_args()
    header = f"{'scenario':<26} {'requests':>8} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} {'server ms':>9}"
    with tempfile.TemporaryDirectory(prefix="smq-bench-") as tmp:
        settings, target = prepare(Path(tmp), args.backend, args.pg_dsn, pool_size=max(4, args.clients), scale=args.scale)
        server = start(settings, args.workers)
        port = settings.port

        def run(endpoint: str, bodies: list[bytes], seconds: float = args.seconds) -> Stats:
            asyncio.run(load(port, endpoint, bodies, args.clients, 0.5, 200))  # warm-up
            return asyncio.run(load(port, endpoint, bodies, args.clients, seconds, args.max_requests))

        try:
            print(f"service on 127.0.0.1:{port} ({args.workers} worker(s)), {args.backend} x{args.scale}, "
                  f"{args.clients} concurrent clients, {args.seconds:g} s per scenario")
            print("(server ms: median of Server-Timing total - db, the service's own time per request)\n")
            print(header)
            for label, endpoint, body in SCENARIOS:
                stats = run(endpoint, [json.dumps(body(smq)).encode() for smq in SMQS])
                print(row(label, stats))

            sqls = compiled_sql(port)
            print(f"\nquery vs the {args.backend} driver on the same SQL, {args.clients} concurrent clients each")
            print(header + f" {'overhead':>9}")
            cases = [(f"smq{n + 1}", [smq], [sql]) for n, (smq, sql) in enumerate(zip(SMQS, sqls))]
            cases.append(("mix (all six in turn)", SMQS, sqls))
            for label, smqs, case_sql in cases:
                driver_load(target, case_sql, args.clients, 0.5, 200)  # warm-up
                direct = driver_load(target, case_sql, args.clients, args.seconds, args.max_requests)
                served = run("query", [json.dumps({"smq": smq}).encode() for smq in smqs])
                overhead = direct.throughput / served.throughput - 1 if served.throughput else float("inf")
                print(row(f"{label} driver", direct))
                print(row(f"{label} service", served) + f" {overhead:>8.1%}")
        finally:
            server.terminate()
            server.wait(timeout=10)
            target.drop()


if __name__ == "__main__":
    main()
