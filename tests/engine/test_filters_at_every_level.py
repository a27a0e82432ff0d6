"""Filters at every metric level, metric filters in queries, composite join keys and metric_time without
metrics: answers on DuckDB and SQLite over a small layer, and the errors (file:line, nearest name)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from engine import QueryError, load_layer
from engine.errors import LayerValidationError

from .conftest import write_layer

SHIPMENTS = {
    "models/shipments.yml": """
        name: ShipmentModel
        table: shipments
        primary_key: id
        dimensions:
          - {name: carrier, type: string}
        measures:
          - {name: shipmentCount, agg: count, expr: id}
    """,
    "models/items.yml": """
        name: ItemModel
        table: items
        primary_key: [order_id, line]
        dimensions:
          - {name: line, type: number}
          - {name: isBig, type: boolean, expr: qty >= 3}
        measures:
          - {name: revenue, agg: sum, expr: qty * price}
          - {name: itemCount, agg: count}
        metrics:
          - {name: aov, type: ratio, numerator: ItemModel__revenue, denominator: OrderModel__orderCount}
          - {name: bigRevenue, type: simple, measure: ItemModel__revenue, filters: [ItemModel__isBig]}
          - name: shippedBigShare
            type: ratio
            numerator: {name: bigRevenue, filters: ["OrderModel__status = 'shipped'"]}
            denominator: ItemModel__revenue
            filters: ["ItemModel__line < 3"]
          - name: bigMinusSmall
            type: derived
            expr: 10 * share + big - small
            filters: ["OrderModel__status <> 'void'"]
            inputs:
              - {name: shippedBigShare, alias: share}
              - {name: ItemModel__itemCount, alias: big, filters: [ItemModel__isBig]}
              - {name: ItemModel__itemCount, alias: small, filters: ["NOT ItemModel__isBig"]}
    """,
    "models/customer.yml": """
        name: CustomerModel
        table: customers
        primary_key: id
        dimensions:
          - {name: code, type: string}
          - {name: name, type: string}
          - {name: segment, type: string}
    """,
    "joins.yml": """
        joins:
          - {from: ItemModel, to: OrderModel, key: order, relationship: many_to_one, on: {left: order_id, right: id}}
          - {from: OrderModel, to: CustomerModel, key: customer, relationship: many_to_one, on: {left: UPPER(TRIM(cust_ref)), right: code}}
          - {from: CustomerModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
          - from: ShipmentModel
            to: ItemModel
            key: item
            relationship: many_to_one
            on:                                # a composite key: both pairs must be equal
              - {left: order_id, right: order_id}
              - {left: line_no, right: line}
    """,
}

DATA = """
CREATE TABLE orders (id INT, odate DATE, status VARCHAR, freight DOUBLE, cust_ref VARCHAR);
CREATE TABLE items (order_id INT, line INT, qty INT, price DOUBLE);
CREATE TABLE customers (id INT, code VARCHAR, name VARCHAR, segment VARCHAR, nation_id INT);
CREATE TABLE nations (id INT, name VARCHAR);
CREATE TABLE suppliers (id INT, name VARCHAR, nation_id INT);
CREATE TABLE shipments (id INT, order_id INT, line_no INT, carrier VARCHAR);
CREATE TABLE spine (d DATE);
INSERT INTO orders VALUES (1, '2024-01-05', 'shipped', 5, 'a'), (2, '2024-01-20', 'open', 3, 'A'), (3, '2024-02-02', 'shipped', 2, 'b'),
                          (4, '2024-02-09', 'void', 1, 'b');
INSERT INTO items VALUES (1, 1, 3, 10), (1, 2, 1, 5), (2, 1, 4, 2), (3, 1, 1, 7), (3, 2, 5, 1), (3, 3, 3, 3), (4, 1, 9, 9);
INSERT INTO customers VALUES (1, 'A', 'Ann', 'retail', 1), (2, 'B', 'Bob', 'pro', 1), (3, 'C', 'Cy', 'pro', 2);
INSERT INTO nations VALUES (1, 'DE'), (2, 'FR');
INSERT INTO spine VALUES ('2023-12-31'), ('2024-01-01'), ('2024-01-15'), ('2024-02-01'), ('2024-03-10'), ('2024-04-01');
INSERT INTO shipments VALUES (1, 1, 1, 'dhl'), (2, 1, 2, 'ups'), (3, 1, 2, 'dhl'), (4, 3, 3, 'ups'), (5, 3, 9, 'ups');
"""


@pytest.fixture
def layer(tmp_path: Path):
    return load_layer(write_layer(tmp_path, SHIPMENTS) / "mini")


def run(layer, smq: dict, engine: str) -> list[tuple]:
    sql = layer.compile(smq, dialect=engine)
    if engine == "duckdb":
        conn = duckdb.connect()
        conn.execute(DATA)
        rows = conn.execute(sql).fetchall()
    else:
        conn3 = sqlite3.connect(":memory:")
        conn3.executescript(DATA.replace("VARCHAR", "TEXT"))
        rows = conn3.execute(sql).fetchall()
    return sorted(rows, key=repr)


def approx(rows: list[tuple]) -> list[tuple]:
    return [tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in rows]


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_filters_at_every_level_combine_by_and(layer, engine: str) -> None:
    rows = run(layer, {"metrics": ["shippedBigShare", "bigMinusSmall"], "group_by": ["CustomerModel__segment"]}, engine)
    # retail (order 1, 2): lines < 3: revenue 30 + 5 + 8 = 43; big and shipped: 30 (order 1 line 1)
    #   bigMinusSmall: 10 * 30/43 + big items (1-1, 2-1) - small (1-2) = 300/43 + 1
    # pro (orders 3, 4): lines < 3: 7 + 5 + 81 = 93; big and shipped: order 3 line 2 (qty 5): 5; order 4 is void
    #   bigMinusSmall (void excluded): the share over order 3 only: 5/12; big: 3-2, 3-3 -> 2; small: 3-1 -> 1
    assert approx(rows) == approx([("pro", 5 / 93, 10 * 5 / 12 + 2 - 1), ("retail", 30 / 43, 300 / 43 + 1)])


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_metric_filter_in_a_query(layer, engine: str) -> None:
    # customers with at least two orders (A: orders 1, 2; B: orders 3, 4; C: none): their orders' revenue by nation
    smq = {"metrics": ["ItemModel__revenue"], "group_by": ["NationModel__name"],
           "filters": ["{{ Metric('OrderModel__orderCount', group_by=['CustomerModel__code']) }} >= 2"]}
    assert run(layer, smq, engine) == [("DE", 30 + 5 + 8 + 7 + 5 + 9 + 81)]
    smq["filters"] = ["METRIC(ItemModel__revenue, OrderModel__status) > 60"]  # statuses whose revenue passes 60: void (81) only
    assert run(layer, {**smq, "metrics": ["OrderModel__orderCount"], "group_by": ["OrderModel__status"]}, engine) == [("void", 1)]


@pytest.mark.parametrize("engine", ["duckdb", "sqlite"])
def test_composite_join_key(layer, engine: str) -> None:
    # shipments join items on (order_id, line): shipment 5 (line 9) finds no item
    rows = run(layer, {"metrics": ["ShipmentModel__shipmentCount"], "group_by": ["ItemModel__line"]}, engine)
    assert rows == sorted([(1, 1), (2, 2), (3, 1), (None, 1)], key=repr)
    # walked backwards (items -> shipments fans out): each item counted once per carrier
    rows = run(layer, {"metrics": ["ItemModel__itemCount", "ItemModel__revenue"], "group_by": ["ShipmentModel__carrier"]}, engine)
    assert rows == sorted([("dhl", 2, 35.0), ("ups", 2, 14.0), (None, 4, 8 + 7 + 5 + 81.0)], key=repr)


def test_metric_filter_errors_name_the_nearest(layer) -> None:
    cases = [
        ("METRIC(ItemModel__revenu, OrderModel__status) > 1", "unknown element 'ItemModel__revenu'", "ItemModel__revenue"),
        ("METRIC(aovv, OrderModel__status) > 1", "unknown element 'aovv'", "aov"),
        ("METRIC(aov, OrderModel__statu) > 1", "unknown element 'OrderModel__statu'", "OrderModel__status"),
        ("METRIC(aov) > 1", "write METRIC(metric, dimension, ...)", None),
        ("{{ Metric('aov') }} > 1", "needs group_by", None),
    ]
    for text, message, suggestion in cases:
        with pytest.raises(QueryError) as info:
            layer.compile({"metrics": ["OrderModel__orderCount"], "filters": [text]})
        assert info.value.location.field == "filters[0]" and message in info.value.message, info.value.message
        if suggestion:
            assert suggestion in info.value.suggestions


BROKEN = {
    "models/orders.yml": """
        name: OrderModel
        table: orders
        primary_key: id
        dimensions:
          - {name: status, type: string}
        measures:
          - {name: orderCount, agg: count, expr: id}
        metrics:
          - name: shippedShare
            type: ratio
            numerator: {name: OrderModel__orderCount, filters: ["OrderModel__orderCount > 1"]}
            denominator: OrderModel__orderCount
          - name: twice
            type: derived
            expr: 2 * o
            inputs:
              - {name: OrderModel__orderCnt, alias: o}
          - {name: busy, type: simple, measure: OrderModel__orderCount, filters: ["METRIC(orderCont, OrderModel__status) > 1"]}
    """,
    "joins.yml": """
        joins:
          - from: ItemModel
            to: OrderModel
            key: order
            relationship: many_to_one
            on: []
    """,
}


def test_layer_errors_point_at_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(LayerValidationError) as info:
        load_layer(write_layer(tmp_path, BROKEN) / "mini")
    errors = {e.formatted() for e in info.value.errors}
    text = "\n".join(sorted(errors))
    assert "orders.yml:11:" in text and "metrics[0].numerator.filters: 'OrderModel__orderCount > 1' refers to " \
        "'OrderModel__orderCount', which is not a dimension" in text
    assert "orders.yml:17:" in text and "inputs[0]: input 'OrderModel__orderCnt' is not a measure or metric" in text
    assert "orders.yml:13:" not in text  # reported once, at the input's line
    assert "orders.yml:18:" in text and "metrics[2].filters: unknown element 'orderCont'" in text
    assert "function METRIC is not allowed" not in text
    assert "joins.yml:6:" in text and "joins[0].on: an empty list" in text


def test_metric_time_without_metrics_answers_from_the_time_spine(layer) -> None:
    rows = run(layer, {"group_by": ["metric_time__month"], "filters": ["metric_time BETWEEN '2024-01-01' AND '2024-03-31'"]}, "duckdb")
    assert [str(r[0])[:10] for r in rows] == ["2024-01-01", "2024-02-01", "2024-03-01"]
