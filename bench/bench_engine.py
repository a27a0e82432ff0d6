"""Compile and load benchmarks for the engine (prints figures; never run as a test).

    .venv/bin/python bench/bench_engine.py [--runs 200] [--models 1000]

Per query: min and median compile time, uncached (plan + render + generate every time) and
cached (the layer's LRU of compiled SQL). Then the cold load time of a generated layer of
1,000 models (YAML parse, validation, expression parsing), in a fresh process.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.synthetic_layer import write_synthetic_layer  # noqa: E402
from engine import load_layers  # noqa: E402

QUERIES: dict[str, dict] = {
    "one model": {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]},
    "one model, two grains": {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__month", "OrdersModel__channel"]},
    "2-hop join": {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]},
    "3-hop join": {"metrics": ["OrdersModel__orderCount"], "group_by": ["customer.nation.region.RegionsModel__region"]},
    "fan-out dedup": {"metrics": ["OrdersModel__orderCount"], "group_by": ["ProductsModel__category"]},
    "multi-fact (3 models)": {"metrics": ["OrderItemsModel__revenue", "PaymentsModel__amountPaid", "OrdersModel__orderCount"],
                              "group_by": ["OrdersModel__orderDate__month"]},
    "ratio across models": {"metrics": ["averageOrderValue"], "group_by": ["OrdersModel__channel"]},
    "derived": {"metrics": ["unpaidRevenue"], "group_by": ["OrdersModel__orderDate__quarter"]},
    "filtered metrics + filter": {"metrics": ["shippedOrderCount", "cardPayments"], "group_by": ["OrdersModel__channel"],
                                  "filters": ["OrdersModel__orderDate >= '2024-01-01'"]},
    "cumulative window": {"metrics": ["revenueLast7Days"], "group_by": ["OrdersModel__orderDate__day"],
                          "filters": ["OrdersModel__orderDate >= '2024-03-01'"]},
    "cumulative to-date + simple": {"metrics": ["ordersYearToDate", "OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__month"]},
    "role-playing paths": {"metrics": ["OrderItemsModel__revenue"],
                           "group_by": ["order.customer.nation.NationsModel__country", "product.supplier.nation.NationsModel__country"]},
    "having + order + limit": {"metrics": ["OrderItemsModel__revenue"], "group_by": ["ProductsModel__productName"],
                               "filters": ["OrderItemsModel__revenue > 20000"], "order_by": ["-OrderItemsModel__revenue"], "limit": 5},
    "row-filtered role": {"metrics": ["OrderItemsModel__revenue"], "group_by": ["OrdersModel__channel"], "__role": "corporate_analyst"},
}


def timed(fn, runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return min(samples) * 1e3, statistics.median(samples) * 1e3


def bench_compile(runs: int, dialect: str) -> list[tuple[str, float, float, float, float]]:
    layer = load_layers(ROOT / "semantic_models")["shop"]
    rows = []
    for name, q in QUERIES.items():
        smq = {k: v for k, v in q.items() if not k.startswith("__")}
        role = q.get("__role")
        layer.compile(smq, dialect=dialect, role=role)  # warm the role's filtered sources, imports
        u_min, u_med = timed(lambda: layer.compile(smq, dialect=dialect, role=role, use_cache=False), runs)
        c_min, c_med = timed(lambda: layer.compile(smq, dialect=dialect, role=role), runs)
        rows.append((name, u_min, u_med, c_min, c_med))
    return rows


LOAD_SNIPPET = """
import gc, sys, time
t0 = time.perf_counter()
from engine import load_layer
t1 = time.perf_counter()
layer = load_layer(sys.argv[1])
t2 = time.perf_counter()
gc.collect()  # the collector was paused while loading: count its first full pass too
t3 = time.perf_counter()
print(f"{t1 - t0:.4f} {t3 - t1:.4f} {len(layer.models)}")
"""


def bench_load(models: int, repeats: int = 3) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        root = write_synthetic_layer(Path(tmp), models)
        results = []
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", LOAD_SNIPPET, str(root / "synthetic")], capture_output=True, text=True,
                                 cwd=ROOT, check=True).stdout.split()
            results.append((float(out[0]), float(out[1]), int(out[2])))
        best = min(results, key=lambda r: r[1])
        return best[0], best[1], best[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--dialect", default="duckdb")
    args = ap.parse_args()
    print(f"compile times on the demo layer, dialect {args.dialect}, {args.runs} runs each (ms)")
    print(f"{'query':32} {'uncached min':>12} {'median':>8} {'cached min':>11} {'median':>8}")
    rows = bench_compile(args.runs, args.dialect)
    for name, u_min, u_med, c_min, c_med in rows:
        print(f"{name:32} {u_min:12.3f} {u_med:8.3f} {c_min:11.4f} {c_med:8.4f}")
    print(f"{'median of medians':32} {'':12} {statistics.median(r[2] for r in rows):8.3f} {'':11} {statistics.median(r[4] for r in rows):8.4f}")
    imports, load, n = bench_load(args.models)
    print(f"\ncold load of a generated layer of {n} models: {load:.3f} s (best of 3 fresh processes, including the first full GC pass; imports {imports:.3f} s)")


if __name__ == "__main__":
    main()
