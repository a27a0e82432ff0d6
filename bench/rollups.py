"""Rollups: a dashboard's queries answered from rollups and from the facts, in one run (docs/performance.md).

    PYTHONPATH=. .venv/bin/python bench/rollups.py [--scale 50] [--rounds 7] [--backend duckdb|postgres]
        [--storage embedded|warehouse]

The demo database with its facts copied `--scale` times (DuckDB, or PostgreSQL in a schema of its own, dropped
after), a layer declaring three daily rollups (orders, order lines, payments), the rollups built (time and size
reported) into the embedded DuckDB store or (`--storage warehouse`, PostgreSQL) into a schema of the warehouse, then
each dashboard query run alternately with rollups on and off (`compiled_sql(..., rollups=...)` through the layer's
executor, in process), the median of `--rounds` per side; the rows of both sides are checked equal. Reports per
query and the median speed-up. TPC-H: bench/rollups_tpch.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load_service import PG_DSN, amplify  # noqa: E402
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


@contextlib.contextmanager
def layer_at(folder: Path, scale: int, backend: str = "duckdb", storage: str = "embedded") -> Iterator[Path]:
    """The demo layer over its facts copied `scale` times on `backend`, its rollups declared (a PostgreSQL schema of
    this run's, dropped on exit)."""
    target = folder / "shop"
    shutil.copytree(ROOT / "semantic_models" / "shop", target, ignore=shutil.ignore_patterns("data"))
    text = (target / "database.yml").read_text()
    store = ""
    if backend == "duckdb":
        data = build_duckdb(folder / "warehouse.duckdb")
        if scale > 1:
            conn = duckdb.connect(str(data))
            amplify(conn, scale)
            conn.execute("CHECKPOINT")
            conn.close()
        connection: dict[str, Any] = {"backend": "duckdb", "path": str(data), "limits": {"isolation": "none"}}
    else:
        import psycopg

        from smq_db.demo.build import load_into

        schema = f"smq_bench_rollups_{os.getpid()}"
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            load_into(conn, "postgres", schema=schema)
            amplify(conn, scale, schema)
            conn.execute(f'ANALYZE "{schema}".orders, "{schema}".order_items, "{schema}".payments')
        connection = {"backend": "postgres", "url": PG_DSN, "schema": schema}
        text = text.replace("dialect: duckdb", "dialect: postgres", 1)
        if storage == "warehouse":  # the same login writes here; a deployment gives the build a login of its own
            store = "storage: " + json.dumps({"warehouse": True, "schema": schema + "_rollups",
                                              "connection": {"backend": "postgres", "url": PG_DSN}}) + "\n"
    text = re.sub(r"^connection:\n(?:  .*\n)+", f"connection: {json.dumps(connection)}\n", text, count=1, flags=re.M)
    (target / "database.yml").write_text(text)
    (target / "rollups.yml").write_text(store + ROLLUPS)
    try:
        yield target
    finally:
        if backend == "postgres":
            import psycopg

            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                for name in (schema, schema + "_rollups"):
                    conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def store_bytes(layer: Any, executor: Any) -> int:
    """The rollups' size: the embedded file, or their tables in the warehouse (PostgreSQL's relation sizes)."""
    if layer.rollups_embedded:
        return rollups.store_path(layer).stat().st_size
    schema = layer.semantic.rollups.storage.schema
    found = executor.execute("SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n "
                             f"ON n.oid = c.relnamespace WHERE n.nspname = '{schema}' AND c.relkind = 'r'").rows
    return int(found[0][0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--backend", choices=("duckdb", "postgres"), default="duckdb")
    parser.add_argument("--storage", choices=("embedded", "warehouse"), default="embedded",
                        help="where the rollups live (warehouse: PostgreSQL only)")
    args = parser.parse_args()
    if args.storage == "warehouse" and args.backend != "postgres":
        parser.error("--storage warehouse needs --backend postgres")
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        with layer_at(Path(tmp), args.scale, args.backend, args.storage) as folder:
            layer = load_layer(folder)
            executor = open_for_layer(layer)
            try:
                counts = executor.execute("SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM order_items), "
                                          "(SELECT count(*) FROM payments)").rows[0]
                print(f"demo x{args.scale} on {args.backend}: {counts[0]:,} orders, {counts[1]:,} order lines, {counts[2]:,} payments "
                      f"(made in {time.perf_counter() - started:.1f} s); rollups: {args.storage} store")
                dashboard(layer, executor, args.rounds)
            finally:
                executor.close()


def dashboard(layer: Any, executor: Any, rounds: int, queries: dict[str, dict] | None = None) -> None:
    """Build the layer's rollups, then each query with rollups on and off, alternating; a Markdown table."""
    started = time.perf_counter()
    built = rollups.build(layer, executor)
    build_s = time.perf_counter() - started
    size = store_bytes(layer, executor)
    print(f"build: {build_s:.2f} s for {len(built)} rollups, {sum(b.rows for b in built):,} rows, store {size / 2**20:.2f} MiB "
          f"({', '.join(f'{b.name} {b.rows:,} rows {b.seconds:.2f} s' for b in built)})")
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print("| query | rollup | facts ms | rollup ms | speed-up |\n|---|---|---:|---:|---:|")
    ups = []
    for name, smq in (queries or DASHBOARD).items():
        on_sql, off_sql = compiled_sql(layer, smq, rollups=True), compiled_sql(layer, smq, rollups=False)
        routed = layer.compile_routed(smq)
        used = routed.rollups
        times: dict[bool, list[float]] = {True: [], False: []}
        answers = {}
        for _ in range(rounds):
            for on, sql in ((False, off_sql), (True, on_sql)):
                t = time.perf_counter()
                answers[on] = executor.execute(sql, max_rows=100_000, timeout_s=600).rows
                times[on].append((time.perf_counter() - t) * 1000)
        assert sorted(map(repr, answers[True])) == sorted(map(repr, answers[False])) or _close(answers), name
        on_ms, off_ms = statistics.median(times[True]), statistics.median(times[False])
        ups.append(off_ms / on_ms)
        print(f"| {name} | {', '.join(sorted(set(used))) or '(facts)'}{' (mixed)' if routed.store == 'mixed' else ''} | {off_ms:,.1f} | {on_ms:,.2f} | {off_ms / on_ms:,.0f}x |")
    print(f"\nmedian speed-up: {statistics.median(ups):,.0f}x (min {min(ups):,.0f}x, max {max(ups):,.0f}x)")
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


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
