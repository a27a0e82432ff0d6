"""Hiding follows the data, not the names: the lineage attack.

A role that hides `CustomerModel__code` must not list the codes some other way. `OrderModel__customerRef` reads the
column the join key is made of (the same values), a measure and a metric aggregate it, and raw SQL could read
`lin_orders.customer_ref`. Every one of them is hidden with the code (engine/access/lineage.py), on every engine the
role's raw SQL can run on, while the join itself keeps working (grouping orders by the customer's country).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator

import duckdb
import pytest
import sqlglot

from engine import QueryError, load_layer
from engine.access.roles import apply_role_to_sql
from engine.facade import Layer

from ..engine_databases import ENGINES, deployed, engine_databases

FILES = {
    "database.yml": """
        name: lin
        dialect: duckdb
        connection: {backend: duckdb}
        access:
          roles:
            no_codes:
              hidden: [CustomerModel__code]
    """,
    "models/customers.yml": """
        name: CustomerModel
        table: lin_customers
        primary_key: id
        dimensions:
          - {name: code, type: string}
          - {name: country, type: string}
        measures:
          - {name: customers, agg: count, expr: id}
    """,
    "models/orders.yml": """
        name: OrderModel
        table: lin_orders
        primary_key: id
        dimensions:
          - {name: customerRef, type: string, expr: UPPER(TRIM(customer_ref))}
          - {name: channel, type: string}
        measures:
          - {name: orders, agg: count, expr: id}
          - {name: buyers, agg: count_distinct, expr: customer_ref}
          - {name: firstRef, agg: min, expr: customer_ref}
        metrics:
          - {name: buyerShare, type: ratio, numerator: OrderModel__buyers, denominator: OrderModel__orders}
          - {name: ordersPerCustomer, type: ratio, numerator: OrderModel__orders, denominator: CustomerModel__customers}
    """,
    "joins.yml": """
        joins:
          - {from: OrderModel, to: CustomerModel, key: customer, relationship: many_to_one,
             on: {left: UPPER(TRIM(customer_ref)), right: code}}
    """,
}
TABLES = [
    "CREATE TABLE lin_customers (id INT, code VARCHAR(20), country VARCHAR(20))",
    "CREATE TABLE lin_orders (id INT, customer_ref VARCHAR(20), channel VARCHAR(20))",
    "INSERT INTO lin_customers VALUES (1, 'C-SECRET-1', 'DE'), (2, 'C-SECRET-2', 'FR')",
    "INSERT INTO lin_orders VALUES (1, 'c-secret-1 ', 'web'), (2, 'C-SECRET-1', 'shop'), (3, 'C-SECRET-2', 'web')",
]
HIDDEN_BY_LINEAGE = ("OrderModel__customerRef", "OrderModel__buyers", "OrderModel__firstRef", "buyerShare")


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    root = tmp_path_factory.mktemp("lin")
    for name, text in FILES.items():
        path = root / "lin" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_layer(root / "lin")


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for statement in TABLES:
        con.execute(statement)
    return con


@pytest.mark.parametrize("smq", [
    {"metrics": ["OrderModel__orders"], "group_by": ["OrderModel__customerRef"]},  # the join key's values, by SMQ
    {"metrics": ["OrderModel__orders"], "filters": ["OrderModel__customerRef = 'C-SECRET-1'"]},
    {"metrics": ["OrderModel__firstRef"]},  # min() of the key column: one code
    {"metrics": ["OrderModel__buyers"]},
    {"metrics": ["buyerShare"]},  # a metric computed from a hidden measure
    {"metrics": ["OrderModel__orders"], "filters": [{"member": "OrderModel__customerRef", "operator": "set"}]},
])
def test_an_element_reading_a_hidden_value_is_hidden_too(layer: Layer, smq: dict) -> None:
    layer.compile(smq)  # fine without the role
    with pytest.raises(QueryError) as err:
        layer.compile(smq, role="no_codes")
    assert err.value.code == "unknown_element"
    assert not any(s in HIDDEN_BY_LINEAGE for s in err.value.suggestions)  # nor offered as a near name


def test_the_listing_and_the_visibility_say_so(layer: Layer) -> None:
    listed = {e["name"] for m in layer.elements(role="no_codes")["models"] for kind in ("dimensions", "measures", "metrics")
              for e in m[kind]}
    assert not listed & {*HIDDEN_BY_LINEAGE, "CustomerModel__code"}
    assert {"OrderModel__channel", "OrderModel__orders", "CustomerModel__country", "ordersPerCustomer"} <= listed
    seen = layer.visibility("no_codes")
    assert seen.why["OrderModel__customerRef"] == "OrderModel.customer_ref"
    assert seen.secret["OrderModel"] == {"customer_ref"} and seen.secret["CustomerModel"] == {"code"}
    assert not layer.visibility(None)


def test_the_join_key_still_joins(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    """Joining on the key reveals none of its values: orders by the customer's country stay available."""
    for smq in ({"metrics": ["OrderModel__orders"], "group_by": ["CustomerModel__country"]}, {"metrics": ["ordersPerCustomer"]}):
        with_role = sorted(con.execute(layer.compile(smq, role="no_codes")).fetchall())
        assert with_role == sorted(con.execute(layer.compile(smq)).fetchall()) != []


@pytest.fixture(scope="module")
def database() -> Iterator[Callable]:
    with engine_databases(TABLES, f"smq_lineage_test_{os.getpid()}") as get:
        yield get


@pytest.mark.parametrize("engine", ENGINES)
def test_raw_sql_cannot_list_the_codes_through_the_join_key(layer: Layer, database: Callable, engine: str) -> None:
    """The query docs/security.md says cannot list them: SELECT DISTINCT customer_ref FROM orders."""
    connection, run = database(engine)
    on_engine = deployed(layer, engine, connection)
    assert any("SECRET" in str(v) for row in run("SELECT DISTINCT customer_ref FROM lin_orders") for v in row)

    def raw(text: str) -> str:
        return apply_role_to_sql(sqlglot.parse_one(text, read=engine), on_engine.semantic, on_engine.graph,
                                 on_engine.role("no_codes")).sql(dialect=engine)

    with pytest.raises(QueryError, match="column 'customer_ref' of lin_orders is hidden"):
        raw("SELECT DISTINCT customer_ref FROM lin_orders")
    everything = run(raw("SELECT * FROM lin_orders"))
    assert everything and not any("SECRET" in str(v).upper() for row in everything for v in row)
    assert sorted(run(raw("SELECT channel, COUNT(*) FROM lin_orders GROUP BY channel"))) == [("shop", 1), ("web", 2)]
