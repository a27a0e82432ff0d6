"""What running DuckDB queries in a worker process costs: the same queries on the demo, in process and isolated.

    PYTHONPATH=. python bench/executor_isolation.py [ROUNDS]

Prints, per query, the fastest time of each and their ratio (one run, alternating, so the machine's noise is shared).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from smq_db.demo.build import ensure_demo
from smq_db.executors.duckdb import DuckDBExecutor
from smq_db.executors.limits import ResourceLimits
from smq_db.executors.worker import IsolatedExecutor

QUERIES = {
    "one row": "SELECT count(*) AS n FROM orders",
    "1,000 rows": "SELECT order_id, order_date, status FROM orders ORDER BY order_id LIMIT 1000",
    "10,000 rows": "SELECT * FROM order_items LIMIT 10000",
}


def fastest(executor: object, sql: str, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        executor.execute(sql, max_rows=10_000, timeout_s=30)  # type: ignore[attr-defined]
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    folder = Path(__file__).resolve().parents[1] / "semantic_models" / "shop"
    ensure_demo(folder)
    path = folder / "data" / "shop.duckdb"
    inside = DuckDBExecutor(path, limits=ResourceLimits(isolation="none"))
    isolated = IsolatedExecutor("duckdb", path, dialect="duckdb", limits=ResourceLimits(workers=1))
    try:
        for name, sql in QUERIES.items():
            a = b = float("inf")
            for _ in range(3):  # alternate, so both see the same machine
                a = min(a, fastest(inside, sql, rounds))
                b = min(b, fastest(isolated, sql, rounds))
            print(f"{name:>12}: in process {a * 1000:7.2f} ms, worker {b * 1000:7.2f} ms, ratio {b / a:5.2f}x")
    finally:
        inside.close()
        isolated.close()


if __name__ == "__main__":
    main()
