"""The REST service against its floor, the in-process driver, on the demo's small queries (not a test).

    PYTHONPATH=. .venv/bin/python bench/service_floor.py [--rounds 12] [--requests 40] [--base COMMIT]

Starts `smq serve` (uvicorn, one process, a key, the demo on DuckDB in its worker processes, the result cache on
as deployed) on a temporary copy of the demo, and in this process opens the same database file with the DuckDB
driver alone. Then, one request at a time on one keep-alive connection (bench/http_load.BlockingConnection: a few
µs of client per request), for each SMQ, every scenario in every round so all see the same machine:

* driver, known: `cursor.execute(sql).fetchall()` of the SQL the service runs for the SMQ;
* service, known: `POST /query` of that SMQ with `Cache-Control: no-cache` (compiled SQL cached, the query run
  and its result stored again: a result-cache miss of an SMQ seen before);
* driver, new: the SQL of a new SMQ each time (the same SMQ with `limit` 1000 + i: one more LIMIT, same rows);
* service, new: `POST /query` of that new SMQ (compiled, checked, typed and keyed for the first time);
* service, health: `GET /v1/health`, the HTTP exchange, middleware and routing with no work: the framework's floor.

With `--base`, a second `smq serve` from that commit (`git archive`) answers the same requests in the same rounds.
Reported per scenario: the median and the fastest quartile of its wall times (ms), the median over rounds of
service / driver (each round's medians), Server-Timing's `total` and `db` (the service's own view), and the
CPU of the server and its worker processes per request against the driver's CPU (this process, DuckDB's
threads included). The load average is printed: a loaded machine is slower, its ratios less so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cpu import process_cpu_ns, process_tree_cpu_ns  # noqa: E402
from http_load import BlockingConnection, build_post, server_timing  # noqa: E402
from load_service import KEY, SMQS, prepare, start  # noqa: E402

CASES: dict[str, dict[str, Any]] = {"one model": SMQS[0], "by month": SMQS[2]}


def new_smq(smq: dict[str, Any], i: int) -> dict[str, Any]:
    """An SMQ no cache has seen, answering the same rows as `smq`."""
    return {**smq, "limit": 1000 + i}


class Server:
    """One `smq serve` and a keep-alive connection to it."""

    def __init__(self, name: str, process: subprocess.Popen, port: int) -> None:
        self.name, self.process, self.port = name, process, port
        self.http = BlockingConnection("127.0.0.1", port)

    def query(self, smq: dict[str, Any], fresh: bool) -> bytes:
        headers = {"Authorization": f"Bearer {KEY}"}
        if fresh:
            headers["Cache-Control"] = "no-cache"
        return build_post("127.0.0.1", self.port, "/v1/databases/shop/query", json.dumps({"smq": smq}).encode(), headers)

    def health(self) -> bytes:
        return f"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode()

    def measure(self, requests: list[bytes]) -> tuple[list[float], float, list[dict[str, float]]]:
        walls, timings = [], []
        before = process_tree_cpu_ns(self.process.pid)
        for request in requests:
            started = time.perf_counter()
            reply = self.http.send(request)
            walls.append((time.perf_counter() - started) * 1000)
            if reply.status != 200:
                raise SystemExit(f"{self.name} answered {reply.status}: {reply.body[:300]!r}")
            timings.append(server_timing(reply.headers))
        return walls, (process_tree_cpu_ns(self.process.pid) - before) / len(requests) / 1e6, timings


class Bench:
    def __init__(self, servers: list[Server], database: Path, layer: Any) -> None:
        import duckdb

        self.servers = servers
        self.layer = layer
        self.cursor = duckdb.connect(str(database), read_only=True).cursor()
        self.counter = 0
        self.results: dict[tuple[str, str], dict[str, list]] = {}

    def driver(self, sqls: list[str]) -> tuple[list[float], float, list[dict[str, float]]]:
        walls = []
        before = process_cpu_ns(os.getpid())  # this process only: the servers are its children
        for sql in sqls:
            started = time.perf_counter()
            self.cursor.execute(sql).fetchall()
            walls.append((time.perf_counter() - started) * 1000)
        return walls, (process_cpu_ns(os.getpid()) - before) / len(sqls) / 1e6, []

    def record(self, case: str, name: str, measured: tuple[list[float], float, list[dict[str, float]]]) -> None:
        walls, cpu, timings = measured
        entry = self.results.setdefault((case, name), {"walls": [], "medians": [], "cpu": [], "timings": []})
        entry["walls"] += walls
        entry["medians"].append(statistics.median(walls))
        entry["cpu"].append(cpu)
        entry["timings"] += timings

    def round(self, n: int) -> None:
        for case, smq in CASES.items():
            fresh = [new_smq(smq, self.counter + i) for i in range(n)]
            self.counter += n
            self.record(case, "driver known", self.driver([self.layer.compile(smq)] * n))
            self.record(case, "driver new", self.driver([self.layer.compile(s) for s in fresh]))
            for server in self.servers:
                self.record(case, f"{server.name} known", server.measure([server.query(smq, fresh=True)] * n))
                self.record(case, f"{server.name} new", server.measure([server.query(s, fresh=False) for s in fresh]))
        for server in self.servers:
            self.record("-", f"{server.name} health", server.measure([server.health()] * n))

    def report(self) -> None:
        print(f"{'query':<10} {'scenario':<22} {'median':>7} {'p25':>7} {'x driver':>8} {'total':>7} {'db':>7} "
              f"{'CPU ms':>7} {'CPU x':>6}")
        for (case, name), entry in self.results.items():
            kind = name.rsplit(" ", 1)[-1]
            driver = self.results.get((case, f"driver {kind}"))
            ratio = cpu_ratio = ""
            if driver is not None:
                ratio = f"{statistics.median(s / d for s, d in zip(entry['medians'], driver['medians'])):7.2f}x"
                cpu_ratio = f"{statistics.median(s / d for s, d in zip(entry['cpu'], driver['cpu'])):5.2f}x"
            total = db = ""
            if entry["timings"]:
                total = f"{statistics.median(t['total'] for t in entry['timings']):7.3f}"
                db = f"{statistics.median(t.get('db', 0.0) for t in entry['timings']):7.3f}" if case != "-" else ""
            quartile = statistics.quantiles(entry["walls"], n=4)[0]
            print(f"{case:<10} {name:<22} {statistics.median(entry['walls']):7.3f} {quartile:7.3f} {ratio:>8} {total:>7} "
                  f"{db:>7} {statistics.median(entry['cpu']):7.3f} {cpu_ratio:>6}")


def serve_tree(tree: Path, settings: Any) -> subprocess.Popen:
    """`smq serve` from another tree (the base commit), on the same copy of the demo."""
    import httpx

    command = [sys.executable, "-m", "smq_cli.main", "serve", "--host", "127.0.0.1", "--port", str(settings.port),
               "--models-dir", str(settings.models_dir), "--api-keys", str(settings.api_keys_file), "--log-level", "warning"]
    process = subprocess.Popen(command, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{settings.port}/v1/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the service from {tree} did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--requests", type=int, default=40, help="requests per scenario and round")
    parser.add_argument("--base", help="also serve this commit (git archive) and measure it in the same rounds")
    args = parser.parse_args()
    from engine import load_layer

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="smq-floor-") as tmp:
        settings, target = prepare(Path(tmp) / "this")
        layer = load_layer(settings.models_dir / "shop")
        processes = [("service", start(settings), settings.port)]
        if args.base:
            base_tree = Path(tmp) / "base-tree"
            base_tree.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base], capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
            base_settings, _ = prepare(Path(tmp) / "base")
            processes.append((args.base, serve_tree(base_tree, base_settings), base_settings.port))
        try:
            servers = [Server(name, process, port) for name, process, port in processes]
            for server in servers:  # the SQL the bench's driver runs is the one the service runs
                reply = json.loads(server.http.send(server.query(SMQS[0], fresh=True)).body)
                assert reply["sql"] == layer.compile(SMQS[0]), f"{server.name} runs other SQL than the bench's driver"
            bench = Bench(servers, target.duckdb_path, layer)
            bench.round(10)  # warm-up: workers started, code paths compiled
            bench.results.clear()
            for round_ in range(args.rounds):
                bench.round(args.requests)
                print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr)
        finally:
            for _, process, _ in processes:
                process.terminate()
                process.wait(timeout=10)
    load_after = os.getloadavg()
    print(f"{args.rounds} rounds x {args.requests} requests per scenario; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after (1 min), {os.cpu_count()} cores; times in ms")
    bench.report()


if __name__ == "__main__":
    main()
