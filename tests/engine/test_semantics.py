"""Semantics that need hand-made data: zero denominators, NULL groups, join types, COUNT(*),
floating-point division in derived metrics. Runs on an in-memory DuckDB and SQLite."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from engine import load_layer

from ..conftest import SHARED
from .conftest import write_layer

DATA = [
    "CREATE TABLE orders (id INT, odate DATE, status VARCHAR, freight DECIMAL(10,2), cust_ref VARCHAR)",
    "INSERT INTO orders VALUES (1, '2024-01-01', 'shipped', 10, 'a'), (2, '2024-01-02', 'open', 0, ' A '),"
    " (3, '2024-02-01', NULL, 5, 'zz'), (4, '2024-02-03', 'open', 1, NULL)",
    "CREATE TABLE items (order_id INT, line INT, qty INT, price DECIMAL(10,2), supp_id INT)",
    "INSERT INTO items VALUES (1, 1, 2, 5, 1), (1, 2, 1, 7, 1), (2, 1, 3, 1, 2)",
    "CREATE TABLE customers (id INT, code VARCHAR, name VARCHAR, segment VARCHAR, nation_id INT)",
    "INSERT INTO customers VALUES (1, 'A', 'Ann', 'x', 1), (2, 'B', 'Bob', NULL, 2)",
    "CREATE TABLE nations (id INT, name VARCHAR)",
    "INSERT INTO nations VALUES (1, 'DE'), (2, 'FR')",
    "CREATE TABLE suppliers (id INT, name VARCHAR, nation_id INT)",
    "INSERT INTO suppliers VALUES (1, 's1', 1), (2, 's2', 2)",
    "CREATE TABLE spine (d DATE)",
    "INSERT INTO spine SELECT CAST(x AS DATE) FROM range(DATE '2023-12-01', DATE '2024-03-31', INTERVAL 1 DAY) t(x)",
]


@pytest.fixture
def db():
    conn = duckdb.connect()
    for statement in DATA:
        conn.execute(statement)
    yield lambda sql: conn.execute(sql).fetchall()
    conn.close()


def layer_with(tmp_path: Path, **files: str):
    return load_layer(write_layer(tmp_path, {k.replace("__", "/") + ".yml": v for k, v in files.items()}) / "mini")


def test_zero_denominator_gives_null_and_division_is_floating(tmp_path: Path, db) -> None:
    layer = layer_with(tmp_path, models__orders="""
        name: OrderModel
        table: orders
        primary_key: id
        dimensions:
          - {name: orderDate, type: date, expr: odate}
          - {name: status, type: string}
        measures:
          - {name: orderCount, agg: count, expr: id}
          - {name: freight, agg: sum, expr: freight}
        metrics:
          - {name: freightPerOrder, type: ratio, numerator: OrderModel__orderCount, denominator: OrderModel__freight}
          - {name: half, type: derived, expr: "OrderModel__orderCount / 2"}
          - {name: cumOrders, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate}
    """)
    rows = db(layer.compile({"metrics": ["freightPerOrder", "half"], "group_by": ["OrderModel__status"]}))
    by_status = {r[0]: r[1:] for r in rows}
    assert by_status["open"] == (2 / 1, 1.0)
    assert by_status["shipped"] == (1 / 10, 0.5)  # integer counts, floating division
    assert by_status[None] == (1 / 5, 0.5)  # NULL is a group like any other
    zero = db(layer.compile({"metrics": ["freightPerOrder"], "filters": ["OrderModel__orderDate = '2024-01-02'"]}))
    assert zero == [(None,)]


def test_left_join_keeps_unmatched_rows_in_the_null_group(tmp_path: Path, db) -> None:
    layer = load_layer(write_layer(tmp_path, {}) / "mini")
    rows = db(layer.compile({"metrics": ["OrderModel__orderCount"], "group_by": ["CustomerModel__segment"]}))
    # orders 1 and 2 match customer A (dirty ' A ' cleaned), 3 and 4 match nobody
    assert rows == [("x", 2), (None, 2)]


def test_inner_join_drops_unmatched_rows(tmp_path: Path, db) -> None:
    layer = layer_with(tmp_path, joins="""
        joins:
          - {from: OrderModel, to: CustomerModel, key: customer, relationship: many_to_one, type: inner, on: {left: UPPER(TRIM(cust_ref)), right: code}}
          - {from: ItemModel, to: OrderModel, key: order, relationship: many_to_one, on: {left: order_id, right: id}}
    """)
    rows = db(layer.compile({"metrics": ["OrderModel__orderCount"], "group_by": ["CustomerModel__segment"]}))
    assert rows == [("x", 2)]
    # without the dimension, no join and every order counts
    assert db(layer.compile({"metrics": ["OrderModel__orderCount"]})) == [(4,)]


def test_count_without_expression_counts_rows(tmp_path: Path, db) -> None:
    layer = load_layer(write_layer(tmp_path, {}) / "mini")
    assert db(layer.compile({"metrics": ["CustomerModel__customerCount"]})) == [(2,)]
    # across a fan-out it still counts each customer once per group: customer A now has two open orders
    db("INSERT INTO orders VALUES (5, '2024-02-04', 'open', 0, 'a ')")
    rows = db(layer.compile({"metrics": ["CustomerModel__customerCount"], "group_by": ["OrderModel__status"]}))
    assert dict(rows) == {"shipped": 1, "open": 1, None: 1}


def test_cumulative_fills_gaps_from_the_spine(tmp_path: Path, db) -> None:
    layer = load_layer(write_layer(tmp_path, {}) / "mini")
    rows = db(layer.compile({"metrics": ["cumOrders"], "group_by": ["OrderModel__orderDate__day"],
                             "filters": ["OrderModel__orderDate <= '2024-01-05'"]}))
    assert [(str(d), v) for d, v in rows] == [
        ("2024-01-01", 1), ("2024-01-02", 2), ("2024-01-03", 2), ("2024-01-04", 2), ("2024-01-05", 2)]


def test_sqlite_grains_match_iso_weeks_and_quarters(tmp_path: Path) -> None:
    layer = load_layer(write_layer(tmp_path, {}) / "mini")
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE orders (id INT, odate TEXT, status TEXT, freight REAL, cust_ref TEXT)")
    days = ["2024-01-01", "2024-01-07", "2024-01-08", "2023-12-31", "2024-03-31", "2024-04-01", "2024-12-31"]
    conn.executemany("INSERT INTO orders VALUES (?, ?, 'x', 0, 'a')", list(enumerate(days)))
    for grain, expected in {
        "week": ["2024-01-01", "2024-01-01", "2024-01-08", "2023-12-25", "2024-03-25", "2024-04-01", "2024-12-30"],
        "month": ["2024-01-01", "2024-01-01", "2024-01-01", "2023-12-01", "2024-03-01", "2024-04-01", "2024-12-01"],
        "quarter": ["2024-01-01", "2024-01-01", "2024-01-01", "2023-10-01", "2024-01-01", "2024-04-01", "2024-10-01"],
        "year": ["2024-01-01", "2024-01-01", "2024-01-01", "2023-01-01", "2024-01-01", "2024-01-01", "2024-01-01"],
    }.items():
        sql = layer.compile({"metrics": ["OrderModel__orderCount"], "group_by": [f"OrderModel__orderDate__{grain}"]}, dialect="sqlite")
        got = dict(conn.execute(sql).fetchall())
        want: dict[str, int] = {}
        for day in expected:
            want[day] = want.get(day, 0) + 1
        assert got == want, grain


NORTHWIND = SHARED / "data" / "sqlite" / "northwind.sqlite"


@pytest.mark.shared_data(NORTHWIND)
def test_quoted_names_on_real_northwind(tmp_path: Path) -> None:
    """Table and column names with spaces (SQLite's [brackets]) survive into the compiled SQL."""
    root = tmp_path / "layers"
    files = {
        "database.yml": "name: northwind\ndialect: sqlite\nconnection: {backend: sqlite, path: x.sqlite}\n",
        "models/orders.yml": """
            name: OrdersModel
            table: Orders
            primary_key: OrderID
            dimensions:
              - {name: orderYear, type: string, expr: "strftime('%Y', OrderDate)"}
              - {name: orderDate, type: timestamp, expr: OrderDate}
              - {name: shipCountry, type: string, expr: ShipCountry}
            measures:
              - {name: orderCount, agg: count, expr: OrderID}
              - {name: freight, agg: sum, expr: Freight}
        """,
        "models/details.yml": """
            name: OrderLinesModel
            table: "[Order Details]"
            primary_key: [OrderID, ProductID]
            measures:
              - {name: sales, agg: sum, expr: "[UnitPrice] * [Quantity] * (1 - [Discount])"}
        """,
        "joins.yml": """
            joins:
              - {from: OrderLinesModel, to: OrdersModel, key: order, relationship: many_to_one, on: {left: OrderID, right: OrderID}}
        """,
    }
    from .conftest import MINI

    layer = load_layer(write_layer(root, {**{k: None for k in MINI}, **files}, name="northwind") / "northwind")
    conn = sqlite3.connect(f"file:{NORTHWIND}?mode=ro", uri=True)
    sql = layer.compile({"metrics": ["OrderLinesModel__sales", "OrdersModel__freight"], "group_by": ["OrdersModel__orderDate__year"],
                         "filters": ["OrdersModel__shipCountry = 'Germany'"]}, dialect="sqlite")
    assert '"Order Details"' in sql
    got = conn.execute(sql).fetchall()
    expected = conn.execute("""
        SELECT DATE(o.OrderDate, 'start of year'),
               (SELECT SUM(d.UnitPrice * d.Quantity * (1 - d.Discount)) FROM [Order Details] d JOIN Orders o2 ON d.OrderID = o2.OrderID
                WHERE o2.ShipCountry = 'Germany' AND DATE(o2.OrderDate, 'start of year') = DATE(o.OrderDate, 'start of year')),
               SUM(o.Freight)
        FROM Orders o WHERE o.ShipCountry = 'Germany' GROUP BY 1 ORDER BY 1""").fetchall()
    assert len(got) == len(expected) > 0
    for g, e in zip(got, expected):
        assert g[0] == e[0] and g[1] == pytest.approx(e[1]) and g[2] == pytest.approx(e[2])
