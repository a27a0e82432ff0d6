"""A role's row filter reached through a composite join key: the filter's subquery joins on every pair of
the key, not the first one alone. On DuckDB, SQLite, PostgreSQL and MariaDB, raw SQL and SMQs under the
role count only the shipments whose (order, line) item the filter admits.

The attack: `line_one` may see items on line 1 only, and through them the shipments of those items. Joined
on `order_id` alone, every shipment of an order that has some line-1 item would pass (5 of 5 here, where 1
is allowed), so a plain `SELECT COUNT(*) FROM shipments` would read rows the role must not see.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlglot

from engine import load_layer
from engine.access.roles import apply_role_to_sql
from engine.facade import Layer

from ..engine_databases import ENGINES, deployed, engine_databases

FILES = {
    "database.yml": """
        name: ac
        dialect: duckdb
        access:
          roles:
            line_one:
              row_filters: ["ItemModel__line = 1"]
            no_carrier:
              hidden: [ShipmentModel__carrier]
    """,
    "models/items.yml": """
        name: ItemModel
        table: ac_items
        primary_key: [order_id, line]
        dimensions:
          - {name: line, type: number}
        measures:
          - {name: itemCount, agg: count}
    """,
    "models/shipments.yml": """
        name: ShipmentModel
        table: ac_shipments
        primary_key: id
        dimensions:
          - {name: carrier, type: string}
        measures:
          - {name: shipmentCount, agg: count, expr: id}
    """,
    "joins.yml": """
        joins:
          - from: ShipmentModel
            to: ItemModel
            key: item
            relationship: many_to_one
            on:
              - {left: order_id, right: order_id}
              - {left: line_no, right: line}
    """,
}
DATA = [
    "CREATE TABLE ac_items (order_id INT, line INT)",
    "CREATE TABLE ac_shipments (id INT, order_id INT, line_no INT, carrier VARCHAR(10))",
    "INSERT INTO ac_items VALUES (1, 1), (1, 2), (3, 1), (3, 2), (3, 3)",
    # shipment 1 is of item (1, 1): the only one line_one may see; 2-5 are of orders that have a line-1 item
    "INSERT INTO ac_shipments VALUES (1, 1, 1, 'dhl'), (2, 1, 2, 'ups'), (3, 1, 2, 'dhl'), (4, 3, 3, 'ups'), (5, 3, 2, 'ups')",
]
SCHEMA = f"smq_ac_test_{os.getpid()}"


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    folder = tmp_path_factory.mktemp("layers") / "ac"
    for rel, text in FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return load_layer(folder)


@pytest.fixture(scope="module")
def database() -> Iterator[Callable[[str], tuple[dict, Callable[[str], Any]]]]:
    """Per engine: (the layer's connection settings there, a function running SQL and returning its one value)."""
    with engine_databases(DATA, SCHEMA) as get:
        def scalar(engine: str) -> tuple[dict, Callable[[str], Any]]:
            connection, rows = get(engine)
            return connection, lambda sql: rows(sql)[0][0]
        yield scalar


@pytest.mark.parametrize("engine", ENGINES)
def test_raw_sql_under_the_role_joins_on_every_key_pair(layer: Layer, database: Callable, engine: str) -> None:
    connection, run = database(engine)
    on_engine = deployed(layer, engine, connection)
    assert run("SELECT COUNT(*) FROM ac_shipments") == 5  # what an unrestricted key sees
    for sql in ("SELECT COUNT(*) FROM ac_shipments",
                "SELECT COUNT(*) FROM ac_shipments s WHERE s.order_id IN (1, 3)"):
        rewritten = apply_role_to_sql(sqlglot.parse_one(sql, read=engine), on_engine.semantic, on_engine.graph,
                                      on_engine.role("line_one"))
        assert run(rewritten.sql(dialect=engine)) == 1, (engine, sql)


@pytest.mark.parametrize("engine", ENGINES)
def test_smq_under_the_role_joins_on_every_key_pair(layer: Layer, database: Callable, engine: str) -> None:
    connection, run = database(engine)
    on_engine = deployed(layer, engine, connection)
    sql = on_engine.compile({"metrics": ["ShipmentModel__shipmentCount"]}, dialect=engine, role="line_one")
    assert run(sql) == 1
    assert run(on_engine.compile({"metrics": ["ShipmentModel__shipmentCount"]}, dialect=engine)) == 5


@pytest.mark.parametrize("engine", ENGINES)
def test_a_hidden_only_role_keeps_every_key_column_and_hides_the_rest(layer: Layer, database: Callable, engine: str) -> None:
    """The projection a hidden-only role reads a table through keeps each column of a composite key (a join
    on the whole key still runs) and leaves the hidden column out (naming it fails on the engine)."""
    connection, run = database(engine)
    on_engine = deployed(layer, engine, connection)
    role = on_engine.role("no_carrier")

    def as_role(sql: str) -> str:
        return apply_role_to_sql(sqlglot.parse_one(sql, read=engine), on_engine.semantic, on_engine.graph, role).sql(dialect=engine)

    joined = ("SELECT COUNT(*) FROM ac_shipments s JOIN ac_items i ON s.order_id = i.order_id AND s.line_no = i.line")
    assert run(as_role(joined)) == 5  # every shipment's (order, line) is an item
    with pytest.raises(Exception):
        run(as_role("SELECT COUNT(DISTINCT carrier) FROM ac_shipments"))
