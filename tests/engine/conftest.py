"""Fixtures and helpers for engine tests: a small layer written to a temporary folder, file by file, and the
errors it is refused with."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from engine import LayerValidationError, load_layer

MINI: dict[str, str] = {
    "database.yml": """
        name: mini
        description: A tiny shop for loader and compiler tests.
        dialect: duckdb
        connection: {backend: duckdb, path: mini.duckdb}
        time_spine: {table: spine, column: d}
        access:
          roles:
            de:
              row_filters: ["NationModel__name = 'DE'"]
              hidden: [CustomerModel__name]
    """,
    "models/orders.yml": """
        name: OrderModel
        description: One row per order.
        table: orders
        primary_key: id
        dimensions:
          - {name: orderDate, type: date, expr: odate, description: Day of the order.}
          - {name: status, type: string, expr: TRIM(status)}
        measures:
          - {name: orderCount, agg: count, expr: id}
          - {name: freight, agg: sum, expr: freight}
        metrics:
          - {name: shippedCount, type: simple, measure: OrderModel__orderCount, filters: ["OrderModel__status = 'shipped'"]}
          - {name: cumOrders, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__orderDate}
    """,
    "models/items.yml": """
        name: ItemModel
        table: items
        primary_key: [order_id, line]
        dimensions:
          - {name: line, type: number}
        measures:
          - {name: revenue, agg: sum, expr: qty * price}
        metrics:
          - {name: aov, type: ratio, numerator: ItemModel__revenue, denominator: OrderModel__orderCount}
          - {name: net, type: derived, expr: "ItemModel__revenue - OrderModel__freight"}
    """,
    "models/customer.yml": """
        name: CustomerModel
        table: customers
        primary_key: id
        dimensions:
          - {name: name, type: string}
          - {name: segment, type: string}
        measures:
          - {name: customerCount, agg: count}
    """,
    "models/nation.yml": """
        name: NationModel
        table: nations
        primary_key: id
        dimensions:
          - {name: name, type: string}
    """,
    "models/supplier.yml": """
        name: SupplierModel
        table: suppliers
        primary_key: id
        dimensions:
          - {name: name, type: string}
    """,
    "joins.yml": """
        joins:
          - from: ItemModel
            to: OrderModel
            key: order
            relationship: many_to_one
            on: {left: order_id, right: id}
          - {from: ItemModel, to: SupplierModel, key: supplier, relationship: many_to_one, on: {left: supp_id, right: id}}
          - {from: OrderModel, to: CustomerModel, key: customer, relationship: many_to_one, on: {left: UPPER(TRIM(cust_ref)), right: code}}
          - {from: CustomerModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
          - {from: SupplierModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
    """,
}


def write_layer(root: Path, files: dict[str, str | None], name: str = "mini") -> Path:
    """Write MINI with `files` overriding (None deletes a file); returns the models dir."""
    folder = root / name
    merged = {**MINI, **files}
    for rel, text in merged.items():
        if text is None:
            continue
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def mini_dir(tmp_path: Path) -> Path:
    return write_layer(tmp_path, {})


def errors_of(tmp_path: Path, files: dict[str, str | None]) -> list[str]:
    """The formatted errors MINI with `files` overriding is refused with (it must be refused)."""
    root = write_layer(tmp_path, files)
    with pytest.raises(LayerValidationError) as info:
        load_layer(root / "mini")
    return [e.formatted() for e in info.value.errors]
