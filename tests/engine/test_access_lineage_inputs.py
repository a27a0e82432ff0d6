"""Hidden by lineage through what a metric or measure reads besides its measure: its filters, its time dimension,
a semi-additive measure's non-additive dimension and window groupings.

`shippedOrders` counts the orders whose (hidden) status is 'shipped': grouped by the order id it would say which
orders are shipped, the hidden value row by row. A semi-additive balance counts only the rows on the last day (of the
hidden date) per channel: grouped by the order id it would say which orders are on that day. Each is hidden from a
role that hides what it reads (engine/access/lineage.py), and the listing leaves it out; the rest stays available.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from engine import QueryError, load_layer
from engine.facade import Layer

FILES = {
    "database.yml": """
        name: lini
        dialect: duckdb
        connection: {backend: duckdb}
        time_spine: {table: lini_spine, column: d}
        access:
          roles:
            no_status:
              hidden: [OrderModel__status]
            no_day:
              hidden: [OrderModel__orderDate]
            no_channel:
              hidden: [OrderModel__channel]
    """,
    "models/orders.yml": """
        name: OrderModel
        table: lini_orders
        primary_key: id
        dimensions:
          - {name: orderId, type: number, expr: id}
          - {name: orderDate, type: date, expr: odate}
          - {name: shipDate, type: date, expr: sdate}
          - {name: status, type: string}
          - {name: channel, type: string}
        measures:
          - {name: orders, agg: count, expr: id}
          - {name: amount, agg: sum, expr: amount, time_dimension: shipDate}
          - name: lastDayAmount
            agg: sum
            expr: amount
            time_dimension: shipDate
            non_additive_dimension: {name: orderDate, window_choice: max}
          - name: firstDayAmountPerChannel
            agg: sum
            expr: amount
            time_dimension: shipDate
            non_additive_dimension: {name: shipDate, window_choice: min, window_groupings: [channel]}
        metrics:
          - {name: shippedOrders, type: simple, measure: OrderModel__orders, filters: ["OrderModel__status = 'shipped'"]}
          - {name: shippedByTemplate, type: simple, measure: OrderModel__orders,
             filters: ["{{ Dimension('OrderModel__status') }} = 'shipped'"]}
          - {name: webOrders, type: simple, measure: OrderModel__orders, filters: ["OrderModel__channel = 'web'"]}
          - name: shippedShare
            type: ratio
            numerator: {name: OrderModel__orders, filters: ["OrderModel__status = 'shipped'"]}
            denominator: OrderModel__orders
          - {name: twiceShipped, type: derived, expr: 2 * shippedOrders}
          - {name: ordersSoFar, type: cumulative, measure: OrderModel__orders, time_dimension: OrderModel__orderDate}
          - {name: amountSoFar, type: cumulative, measure: OrderModel__amount, time_dimension: OrderModel__shipDate}
    """,
}
HIDDEN = {  # role -> what it hides by lineage here
    "no_status": {"shippedOrders", "shippedByTemplate", "shippedShare", "twiceShipped"},
    "no_day": {"OrderModel__lastDayAmount", "ordersSoFar"},
    "no_channel": {"OrderModel__firstDayAmountPerChannel", "webOrders"},
}
ALL = set().union(*HIDDEN.values())


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    root: Path = tmp_path_factory.mktemp("lini") / "lini"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return load_layer(root)


@pytest.mark.parametrize("role", sorted(HIDDEN))
def test_what_reads_a_hidden_dimension_is_hidden_with_it(layer: Layer, role: str) -> None:
    seen = layer.visibility(role)
    assert HIDDEN[role] <= seen.hidden
    assert not (ALL - HIDDEN[role]) & seen.hidden, "hidden beyond what reads the hidden dimension"
    listed = {e["name"] for m in layer.elements(role=role)["models"] for kind in ("measures", "metrics") for e in m[kind]}
    assert not listed & HIDDEN[role] and (ALL - HIDDEN[role]) <= listed
    for name in HIDDEN[role]:
        smq = {"metrics": [name], "group_by": ["OrderModel__orderId"]}
        layer.compile(smq)  # fine without the role
        with pytest.raises(QueryError) as err:
            layer.compile(smq, role=role, use_cache=False)
        assert err.value.code == "unknown_element"
    for name in ALL - HIDDEN[role]:
        layer.compile({"metrics": [name], "group_by": ["OrderModel__orderId"]}, role=role, use_cache=False)


def test_the_reason_is_named(layer: Layer) -> None:
    """`why` says which hidden element a metric's filter or a measure's non-additive dimension reads."""
    assert layer.visibility("no_status").why["shippedOrders"] == "OrderModel__status"
    assert layer.visibility("no_day").why["OrderModel__lastDayAmount"] == "OrderModel__orderDate"
