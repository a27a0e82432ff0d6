"""Rollups over TPC-H at scale factor 1 (DuckDB): a dashboard's queries with and without rollups, in one run.

    PYTHONPATH=. .venv/bin/python bench/rollups_tpch.py [--scale 1] [--rounds 5] [--data DIR] [--tpchgen PATH]

The data is made by `tpchgen-cli` (PyPI, a bench-only tool: bench/requirements-tpch.txt; install it into a venv of
its own, e.g. `python3 -m venv .bench-venvs/tpch && .bench-venvs/tpch/bin/pip install -r bench/requirements-tpch.txt`),
as Parquet, then loaded into a DuckDB file, both in `--data` (default: $TMPDIR/smq-tpch-sf<N>, reused by later runs;
never in the repository). A semantic layer over lineitem, orders, customer, nation, region and part (revenue =
sum(l_extendedprice * (1 - l_discount)), TPC-H's own measures), rollups over it, then each query alternately with
rollups on and off through the layer's executor (bench/rollups.py's `dashboard`: the median of `--rounds` per side,
the rows of both sides checked equal).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.rollups import dashboard  # noqa: E402
from engine import load_layer  # noqa: E402
from smq_db.open import open_for_layer  # noqa: E402

TABLES = ("lineitem", "orders", "customer", "nation", "region", "part")
DATABASE = """name: tpch
description: TPC-H (scale factor {scale}) made by tpchgen-cli, for bench/rollups_tpch.py.
dialect: duckdb
connection: {{backend: duckdb, path: {path}, limits: {{isolation: none}}}}
"""
MODELS = {
    "lineitem.yml": """name: LineitemModel
description: One row per order line (TPC-H lineitem).
table: lineitem
primary_key: [l_orderkey, l_linenumber]
dimensions:
  - {name: returnFlag, type: string, expr: l_returnflag}
  - {name: lineStatus, type: string, expr: l_linestatus}
  - {name: shipMode, type: string, expr: l_shipmode}
  - {name: shipDate, type: date, expr: l_shipdate}
measures:
  - {name: quantity, agg: sum, expr: l_quantity}
  - {name: basePrice, agg: sum, expr: l_extendedprice}
  - {name: revenue, agg: sum, expr: l_extendedprice * (1 - l_discount)}
  - {name: charge, agg: sum, expr: l_extendedprice * (1 - l_discount) * (1 + l_tax)}
  - {name: averageQuantity, agg: avg, expr: l_quantity}
  - {name: averagePrice, agg: avg, expr: l_extendedprice}
  - {name: averageDiscount, agg: avg, expr: l_discount}
  - {name: lineCount, agg: count, expr: l_linenumber}
metrics:
  - {name: revenuePerUnit, type: ratio, numerator: LineitemModel__revenue, denominator: LineitemModel__quantity}
""",
    "orders.yml": """name: OrdersModel
description: One row per order (TPC-H orders).
table: orders
primary_key: o_orderkey
dimensions:
  - {name: orderDate, type: date, expr: o_orderdate}
  - {name: orderPriority, type: string, expr: o_orderpriority}
  - {name: orderStatus, type: string, expr: o_orderstatus}
measures:
  - {name: orderCount, agg: count, expr: o_orderkey}
  - {name: totalPrice, agg: sum, expr: o_totalprice}
""",
    "customer.yml": """name: CustomerModel
description: TPC-H customer.
table: customer
primary_key: c_custkey
dimensions:
  - {name: segment, type: string, expr: c_mktsegment}
""",
    "nation.yml": """name: NationModel
description: TPC-H nation.
table: nation
primary_key: n_nationkey
dimensions:
  - {name: nation, type: string, expr: n_name}
""",
    "region.yml": """name: RegionModel
description: TPC-H region.
table: region
primary_key: r_regionkey
dimensions:
  - {name: region, type: string, expr: r_name}
""",
    "part.yml": """name: PartModel
description: TPC-H part.
table: part
primary_key: p_partkey
dimensions:
  - {name: brand, type: string, expr: p_brand}
  - {name: partType, type: string, expr: p_type}
""",
}
EDGES = (("LineitemModel", "OrdersModel", "order", "l_orderkey", "o_orderkey"), ("LineitemModel", "PartModel", "part", "l_partkey", "p_partkey"),
         ("OrdersModel", "CustomerModel", "customer", "o_custkey", "c_custkey"),
         ("CustomerModel", "NationModel", "nation", "c_nationkey", "n_nationkey"),
         ("NationModel", "RegionModel", "region", "n_regionkey", "r_regionkey"))
JOINS = "joins:\n" + "".join(f"""  - from: {a}
    to: {b}
    key: {key}
    relationship: many_to_one
    type: left
    on:
      left: {left}
      right: {right}
""" for a, b, key, left, right in EDGES)
LINE_MEASURES = "[quantity, basePrice, revenue, charge, averageQuantity, averagePrice, averageDiscount, lineCount]"
ROLLUPS = f"""rollups:
  - name: lines_by_ship_day
    model: LineitemModel
    measures: {LINE_MEASURES}
    dimensions: [returnFlag, lineStatus, shipMode]
    time_dimension: shipDate
    grain: day
  - name: lines_by_order_day
    model: LineitemModel
    measures: [revenue, quantity]
    dimensions: [NationModel__nation, RegionModel__region, CustomerModel__segment]
    time_dimension: OrdersModel__orderDate
    grain: day
  - name: lines_by_order_month
    model: LineitemModel
    measures: [revenue, quantity]
    dimensions: [NationModel__nation, RegionModel__region, CustomerModel__segment]
    time_dimension: OrdersModel__orderDate
    grain: month
  - name: lines_by_part_type
    model: LineitemModel
    measures: [revenue, averageDiscount, quantity]
    dimensions: [PartModel__partType]
    time_dimension: OrdersModel__orderDate
    grain: year
  - name: orders_monthly
    model: OrdersModel
    measures: [orderCount, totalPrice]
    dimensions: [orderPriority, orderStatus, NationModel__nation]
    time_dimension: orderDate
    grain: month
"""
LINE = "LineitemModel__"
DASHBOARD = {
    "pricing summary (Q1)": {"metrics": [LINE + m for m in ("quantity", "basePrice", "revenue", "charge", "averageQuantity", "averagePrice",
                                                            "averageDiscount", "lineCount")],
                             "group_by": [LINE + "returnFlag", LINE + "lineStatus"], "filters": [LINE + "shipDate <= '1998-09-02'"]},
    "revenue by nation, Asia, 1994 (Q5)": {"metrics": [LINE + "revenue"], "group_by": ["NationModel__nation"],
                                            "filters": ["RegionModel__region = 'ASIA'", "OrdersModel__orderDate >= '1994-01-01'",
                                                        "OrdersModel__orderDate < '1995-01-01'"]},
    "revenue by year": {"metrics": [LINE + "revenue"], "group_by": ["OrdersModel__orderDate__year"]},
    "revenue by segment by quarter": {"metrics": [LINE + "revenue"], "group_by": ["CustomerModel__segment", "OrdersModel__orderDate__quarter"]},
    "revenue by region by month": {"metrics": [LINE + "revenue", LINE + "quantity"], "group_by": ["RegionModel__region", "OrdersModel__orderDate__month"]},
    "revenue per unit by nation": {"metrics": ["revenuePerUnit"], "group_by": ["NationModel__nation"]},
    "shipping modes by year (Q12-like)": {"metrics": [LINE + "lineCount", LINE + "revenue"],
                                          "group_by": [LINE + "shipMode", LINE + "shipDate__year"]},
    "average discount by part type": {"metrics": [LINE + "averageDiscount", LINE + "revenue"], "group_by": ["PartModel__partType"]},
    "orders by priority by quarter (Q4-like)": {"metrics": ["OrdersModel__orderCount"],
                                                "group_by": ["OrdersModel__orderPriority", "OrdersModel__orderDate__quarter"]},
    "orders and revenue by nation": {"metrics": ["OrdersModel__orderCount", "OrdersModel__totalPrice", LINE + "revenue"],
                                     "group_by": ["NationModel__nation"]},
}


def tpchgen(given: str | None) -> str:
    """The generator: --tpchgen, on PATH, or in .bench-venvs/tpch."""
    for candidate in (given, shutil.which("tpchgen-cli"), str(ROOT / ".bench-venvs" / "tpch" / "bin" / "tpchgen-cli")):
        if candidate and Path(candidate).is_file():
            return candidate
    sys.exit("tpchgen-cli not found: pip install -r bench/requirements-tpch.txt (into a venv of its own), or pass --tpchgen PATH")


def tpch_database(data: Path, scale: float, generator: str) -> Path:
    """TPC-H at `scale` as a DuckDB file in `data`, generated and loaded on first use."""
    database = data / "tpch.duckdb"
    if database.is_file():
        return database
    data.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    subprocess.run([generator, "parquet", "-s", str(scale), "--output-dir", str(data), "--tables", ",".join(TABLES)], check=True)
    building = data / "tpch.duckdb.building"
    building.unlink(missing_ok=True)
    with duckdb.connect(str(building)) as conn:
        for table in TABLES:
            conn.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet(?)", [str(data / f"{table}.parquet")])
        conn.execute("CHECKPOINT")
    os.replace(building, database)
    print(f"TPC-H SF{scale:g}: generated and loaded in {time.perf_counter() - started:.1f} s", flush=True)
    return database


def layer_folder(folder: Path, database: Path, scale: float) -> Path:
    target = folder / "tpch"
    (target / "models").mkdir(parents=True)
    (target / "database.yml").write_text(DATABASE.format(scale=f"{scale:g}", path=database))
    for name, text in MODELS.items():
        (target / "models" / name).write_text(text)
    (target / "joins.yml").write_text(JOINS)
    (target / "rollups.yml").write_text(ROLLUPS)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--data", type=Path, help="where the generated data is kept (default: $TMPDIR/smq-tpch-sf<scale>)")
    parser.add_argument("--tpchgen", help="the tpchgen-cli executable")
    args = parser.parse_args()
    data = args.data or Path(tempfile.gettempdir()) / f"smq-tpch-sf{args.scale:g}"
    database = tpch_database(data, args.scale, tpchgen(args.tpchgen))
    with duckdb.connect(str(database), read_only=True) as conn:
        counts = [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("lineitem", "orders", "customer")]  # type: ignore[index]
    print(f"TPC-H SF{args.scale:g}: {counts[0]:,} lines, {counts[1]:,} orders, {counts[2]:,} customers; "
          f"{database.stat().st_size / 2**20:,.0f} MiB")
    with tempfile.TemporaryDirectory() as tmp:
        layer = load_layer(layer_folder(Path(tmp), database, args.scale))
        executor = open_for_layer(layer)
        try:
            dashboard(layer, executor, args.rounds, DASHBOARD)
        finally:
            executor.close()


if __name__ == "__main__":
    main()
