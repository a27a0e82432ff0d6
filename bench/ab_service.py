"""Old build vs this build of the REST service, side by side, in server CPU per request (not a test).

    .venv/bin/python bench/ab_service.py [--base bbfd232] [--rounds 6] [--requests 600]

Wall-clock throughput on a shared 2-core machine varies between runs as much as the differences being
looked for (docs/performance.md). CPU time is steadier: this starts `smq serve` twice on copies of the
demo, one from this checkout and one from `git archive <base>` (same virtualenv: the old tree shadows the
editable install by being the working directory), and sends each the same requests one at a time, the two
servers alternating round by round (the result cache off: `--cache` leaves it on). Per request it reads the CPU time of
the server process and its children (every thread, DuckDB's worker processes included, bench/cpu.py) and, in this process, the driver's
own CPU for the same SQL (DuckDB cursor, fetchall). Reported per scenario: the median over rounds of
CPU µs per request for old and new, their ratio, and the service's overhead over the driver
(server CPU / driver CPU - 1) for each build.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cpu import process_cpu_ns, process_tree_cpu_ns  # noqa: E402
from http_load import Connection, build_post  # noqa: E402
from load_service import KEY, SMQS, prepare  # noqa: E402

SCENARIOS: list[tuple[str, str, list[dict[str, Any]]]] = [
    ("compile, one model", "compile", [{"smq": SMQS[0], "preview": False}]),
    ("query, one model", "query", [{"smq": SMQS[0]}]),
    ("query, by month", "query", [{"smq": SMQS[2]}]),
    ("query, mix of six", "query", [{"smq": smq} for smq in SMQS]),
]


def export(base: str, target: Path) -> Path:
    """The tree of commit `base`, unpacked (no git metadata, nothing changed in this checkout)."""
    archive = subprocess.run(["git", "archive", base], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def serve(tree: Path, settings: Any, cache: bool = False) -> subprocess.Popen:
    """`smq serve` from `tree`; the result cache off unless asked (a repeated query would be a hit, not a run)."""
    command = [sys.executable, "-m", "smq_cli.main", "serve", "--host", "127.0.0.1", "--port", str(settings.port),
               "--models-dir", str(settings.models_dir), "--api-keys", str(settings.api_keys_file),
               "--log-level", "warning"]
    env = {**os.environ, "PYTHONPATH": str(tree), **({} if cache else {"SMQ_RESULT_CACHE_TTL_S": "0"})}
    process = subprocess.Popen(command, cwd=tree, env=env, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{settings.port}/v1/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the service from {tree} did not start")


async def server_cpu_per_request(pid: int, port: int, endpoint: str, bodies: list[bytes], n: int) -> float:
    """µs of server CPU per request over n sequential requests (after 20 warm-up ones)."""
    requests = [build_post("127.0.0.1", port, f"/v1/databases/shop/{endpoint}", b, {"Authorization": f"Bearer {KEY}"})
                for b in bodies]
    connection = await Connection.open("127.0.0.1", port)
    try:
        for i in range(20):
            await connection.send(requests[i % len(requests)])
        before = process_tree_cpu_ns(pid)
        for i in range(n):
            reply = await connection.send(requests[i % len(requests)])
            if reply.status != 200:
                raise SystemExit(f"{endpoint} answered {reply.status}: {reply.body[:300]!r}")
        return (process_tree_cpu_ns(pid) - before) / n / 1000
    finally:
        await connection.close()


def driver_cpu_per_query(database: Path, sqls: list[str], n: int) -> float:
    """µs of CPU (this process, DuckDB's threads included) per query through the driver alone."""
    import duckdb

    conn = duckdb.connect(str(database), read_only=True)
    for i in range(20):
        conn.cursor().execute(sqls[i % len(sqls)]).fetchall()
    pid = os.getpid()
    before = process_cpu_ns(pid)
    for i in range(n):
        cursor = conn.cursor()
        cursor.execute(sqls[i % len(sqls)]).fetchall()
        cursor.close()
    spent = process_cpu_ns(pid) - before
    conn.close()
    return spent / n / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="bbfd232", help="the old build: a commit of this repository")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=600, help="requests per scenario, build and round")
    parser.add_argument("--cache", action="store_true", help="leave the result cache on (repeated queries become hits)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the two servers on the way out too
    with tempfile.TemporaryDirectory(prefix="smq-ab-") as tmp:
        work = Path(tmp)
        old_tree = export(args.base, work / "old-tree")
        builds = {}
        for name, tree in (("old", old_tree), ("new", ROOT)):
            (work / name).mkdir()
            settings, target = prepare(work / name)
            builds[name] = (serve(tree, settings, args.cache), settings, target)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{builds['new'][1].port}",
                              headers={"Authorization": f"Bearer {KEY}"}) as client:
                sql_of = {json.dumps(smq, sort_keys=True): client.post("/v1/databases/shop/compile",
                                                                        json={"smq": smq, "preview": False}).json()["sql"]
                          for smq in SMQS}
            cpu: dict[tuple[str, str], list[float]] = {}
            for round_ in range(args.rounds):
                order = ("old", "new") if round_ % 2 == 0 else ("new", "old")
                for label, endpoint, bodies in SCENARIOS:
                    encoded = [json.dumps(b).encode() for b in bodies]
                    for name in order:
                        process, settings, _ = builds[name]
                        cpu.setdefault((label, name), []).append(asyncio.run(
                            server_cpu_per_request(process.pid, settings.port, endpoint, encoded, args.requests)))
                    if endpoint == "query":
                        sqls = [sql_of[json.dumps(b["smq"], sort_keys=True)] for b in bodies]
                        cpu.setdefault((label, "driver"), []).append(
                            driver_cpu_per_query(builds["new"][2].duckdb_path, sqls, args.requests))
                print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
        finally:
            for process, _, _ in builds.values():
                process.terminate()
                process.wait(timeout=10)
    print(f"base {args.base}, {args.rounds} rounds x {args.requests} requests, server CPU µs per request (median of rounds)")
    print(f"{'scenario':<22} {'old':>8} {'new':>8} {'new/old':>8} {'driver':>8} {'ovh old':>8} {'ovh new':>8}")
    for label, endpoint, _ in SCENARIOS:
        old, new = statistics.median(cpu[(label, "old")]), statistics.median(cpu[(label, "new")])
        line = f"{label:<22} {old:>8.0f} {new:>8.0f} {new / old:>8.3f}"
        if (label, "driver") in cpu:
            driver = statistics.median(cpu[(label, "driver")])
            line += f" {driver:>8.0f} {old / driver - 1:>8.0%} {new / driver - 1:>8.0%}"
        print(line)
        spread = {name: (min(cpu[(label, name)]), max(cpu[(label, name)])) for name in ("old", "new")}
        print(f"{'':<22} range old {spread['old'][0]:.0f}-{spread['old'][1]:.0f}, new {spread['new'][0]:.0f}-{spread['new'][1]:.0f}")


if __name__ == "__main__":
    main()
