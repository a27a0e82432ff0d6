"""Rollups: a dashboard's queries answered from rollups and from the facts, in one run (docs/performance.md).

    PYTHONPATH=. .venv/bin/python bench/rollups.py [--scale 50] [--rounds 7]

The demo database with its facts copied `--scale` times (DuckDB), a layer declaring three daily rollups (orders,
order lines, payments), the rollups built (time and size reported), then each dashboard query run alternately with
rollups on and off (`compiled_sql(..., rollups=...)` through the layer's executor, in process), the median of
`--rounds` per side; the rows of both sides are checked equal. Reports per query and the median speed-up.
TPC-H SF1 needs DuckDB's tpch extension, which cannot be installed offline for DuckDB 2.0 (no wheel of it for
this release): not run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load_service import amplify  # noqa: E402
from engine import load_layer  # noqa: E402
from smq_db import rollups  # noqa: E402
from smq_db.compiled import compiled_sql  # noqa: E402
from smq_db.demo.build import build_duckdb  # noqa: E402
from smq_db.open import open_for_layer  # noqa: E402

ROLLUPS = """
rollups:
  - name: orders_daily
    model: OrdersModel
    measures: [orderCount, customerCount]
    dimensions: [channel, status, CustomersModel__segment, NationsModel__country]
    time_dimension: orderDate
    grain: day
    partition_by: month
    refresh: {every: 1h}
  - name: items_daily
    model: OrderItemsModel
    measures: [revenue, grossRevenue, discountAmount, unitsSold, lineCount, averageUnitPrice]
    dimensions: [OrdersModel__channel, ProductsModel__category]
    time_dimension: OrdersModel__orderDate
    grain: day
    refresh: {every: 1h}
  - name: payments_daily
    model: PaymentsModel
    measures: [amountPaid, paymentCount]
    dimensions: [method]
    time_dimension: paidAt
    grain: day
    refresh: {every: 1h}
"""
DASHBOARD = {
    "orders by month": {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__month"]},
    "orders by channel and status": {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel", "OrdersModel__status"]},
    "orders by country, 2024": {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"],
                                "filters": ["OrdersModel__orderDate >= '2024-01-01'"]},
    "revenue by category by quarter": {"metrics": ["OrderItemsModel__revenue"],
                                       "group_by": ["ProductsModel__category", "OrdersModel__orderDate__quarter"]},
    "revenue per unit by channel": {"metrics": ["revenuePerUnit", "discountShare"], "group_by": ["OrdersModel__channel"]},
    "average unit price by category": {"metrics": ["OrderItemsModel__averageUnitPrice"], "group_by": ["ProductsModel__category"]},
    "payments by method by month": {"metrics": ["PaymentsModel__amountPaid", "PaymentsModel__paymentCount"],
                                    "group_by": ["PaymentsModel__method", "PaymentsModel__paidAt__month"]},
    "orders and revenue by channel": {"metrics": ["OrdersModel__orderCount", "OrderItemsModel__revenue"],
                                      "group_by": ["OrdersModel__channel"]},
    "orders year to date by month": {"metrics": ["ordersYearToDate"], "group_by": ["OrdersModel__orderDate__month"]},
    "revenue last 7 days, by day of Dec 2024": {"metrics": ["revenueLast7Days"], "group_by": ["OrdersModel__orderDate__day"],
                                                "filters": ["OrdersModel__orderDate >= '2024-12-01'"]},
    "revenue by year": {"metrics": ["OrderItemsModel__revenue", "OrderItemsModel__unitsSold"],
                        "group_by": ["OrdersModel__orderDate__year"]},
    # mixed (docs/rollups.md#mixed-queries): one aggregation from a rollup, its sibling from the facts
    "customers (facts) and revenue (rollup) by channel": {"metrics": ["OrdersModel__customerCount", "OrderItemsModel__revenue"],
                                                          "group_by": ["OrdersModel__channel"]},
    "orders (rollup) and payments (facts) by country": {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"],
                                                        "group_by": ["NationsModel__country"]},
}


def layer_at(folder: Path, scale: int) -> Path:
    target = folder / "shop"
    shutil.copytree(ROOT / "semantic_models" / "shop", target, ignore=shutil.ignore_patterns("data"))
    data = build_duckdb(folder / "warehouse.duckdb")
    if scale > 1:
        conn = duckdb.connect(str(data))
        amplify(conn, scale)
        conn.execute("CHECKPOINT")
        conn.close()
    text = (target / "database.yml").read_text().replace("path: data/shop.duckdb", f"path: {data}\n  limits: {{isolation: none}}")
    (target / "database.yml").write_text(text.replace("demo: shop", ""))
    (target / "rollups.yml").write_text(ROLLUPS)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        folder = layer_at(Path(tmp), args.scale)
        data = Path(tmp) / "warehouse.duckdb"
        rows = duckdb.connect(str(data), read_only=True).execute("SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM order_items), "
                                                                 "(SELECT count(*) FROM payments)").fetchone()
        print(f"demo x{args.scale}: {rows[0]:,} orders, {rows[1]:,} order lines, {rows[2]:,} payments; "
              f"{data.stat().st_size / 2**20:,.0f} MiB (made in {time.perf_counter() - started:.1f} s)")
        layer = load_layer(folder)
        executor = open_for_layer(layer)
        started = time.perf_counter()
        built = rollups.build(layer, executor)
        build_s = time.perf_counter() - started
        size = rollups.store_path(layer).stat().st_size
        print(f"build: {build_s:.2f} s for {len(built)} rollups, {sum(b.rows for b in built):,} rows, store {size / 2**20:.2f} MiB "
              f"({', '.join(f'{b.name} {b.rows:,} rows {b.seconds:.2f} s' for b in built)})")
        print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print()
        print("| query | rollup | facts ms | rollup ms | speed-up |\n|---|---|---:|---:|---:|")
        ups = []
        for name, smq in DASHBOARD.items():
            on_sql, off_sql = compiled_sql(layer, smq, rollups=True), compiled_sql(layer, smq, rollups=False)
            routed = layer.compile_routed(smq)
            used = routed.rollups
            times: dict[bool, list[float]] = {True: [], False: []}
            answers = {}
            for _ in range(args.rounds):
                for on, sql in ((False, off_sql), (True, on_sql)):
                    t = time.perf_counter()
                    answers[on] = executor.execute(sql, max_rows=100_000, timeout_s=600).rows
                    times[on].append((time.perf_counter() - t) * 1000)
            assert sorted(map(repr, answers[True])) == sorted(map(repr, answers[False])) or _close(answers), name
            on_ms, off_ms = statistics.median(times[True]), statistics.median(times[False])
            ups.append(off_ms / on_ms)
            print(f"| {name} | {', '.join(sorted(set(used))) or '(facts)'}{' (mixed)' if routed.store == 'mixed' else ''} | {off_ms:,.1f} | {on_ms:,.2f} | {off_ms / on_ms:,.0f}x |")
        print(f"\nmedian speed-up: {statistics.median(ups):,.0f}x (min {min(ups):,.0f}x, max {max(ups):,.0f}x)")
        executor.close()


def _close(answers: dict[bool, list[list]]) -> bool:
    """The same rows, numbers equal to 1e-9 relative (a sum re-added in another order)."""
    def key(row: list) -> list:
        return [repr(v) if not isinstance(v, float) else "" for v in row]

    a, b = sorted(answers[True], key=key), sorted(answers[False], key=key)
    return len(a) == len(b) and all(
        all((abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))) if isinstance(x, float) and isinstance(y, (int, float)) else x == y
            for x, y in zip(r, s)) for r, s in zip(a, b))


if __name__ == "__main__":
    main()
