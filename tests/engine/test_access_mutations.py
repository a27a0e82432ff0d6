"""Guards for access bugs that once passed every test (the mutation audit of issue #26): each test here fails when
one of them is planted, on data chosen to tell the versions apart.

The layer: orders of customers, the join declared `one_to_many` from CustomerModel (so the row filter on customers
reaches orders by walking that edge backwards), orders whose customer is missing or NULL, a customer whose segment is
NULL (a role filter that accepts NULL must still drop orders with no customer: its joins are INNER), an offset
metric and a metric filter (paths that build their own FROM), and a primary entity (MetricFlow names).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import duckdb
import pytest
import sqlglot

from engine import QueryError, load_layer
from engine.access.readpolicy import TABLE_NOT_IN_LAYER, policy_for
from engine.access.roles import apply_role_to_sql
from engine.facade import Layer

FILES = {
    "database.yml": """
        name: mut
        dialect: duckdb
        connection: {backend: duckdb}
        time_spine: {table: mut_spine, column: d}
        access:
          roles:
            corp:
              row_filters: ["CustomerModel__segment = 'corp'"]
            corp_or_unknown:
              row_filters: ["CustomerModel__segment IS NULL OR CustomerModel__segment = 'corp'"]
            no_date:
              hidden: [OrderModel__orderDate, OrderModel__status]
    """,
    "models/customers.yml": """
        name: CustomerModel
        table: mut_customers
        primary_key: id
        dimensions:
          - {name: code, type: string}
          - {name: segment, type: string}
        measures:
          - {name: customers, agg: count, expr: id}
          - {name: credit, agg: sum, expr: credit}
    """,
    "models/orders.yml": """
        name: OrderModel
        table: mut_orders
        primary_key: id
        default_time_dimension: orderDate
        entities:
          - {name: order, type: primary, expr: id}
        dimensions:
          - {name: orderDate, type: date, expr: odate}
          - {name: status, type: string}
          - {name: channel, type: string}
        measures:
          - {name: orders, agg: count, expr: id}
          - {name: amount, agg: sum, expr: amount}
        metrics:
          - name: ordersDayBefore
            type: derived
            expr: before
            inputs:
              - {name: OrderModel__orders, alias: before, offset_window: 1 day}
    """,
    "joins.yml": """
        joins:
          - {from: CustomerModel, to: OrderModel, key: orders, relationship: one_to_many, on: {left: code, right: cust_ref}}
    """,
}
TABLES = [
    "CREATE TABLE mut_spine AS SELECT CAST(d AS DATE) AS d FROM range(DATE '2023-12-25', DATE '2024-01-15', INTERVAL 1 DAY) t(d)",
    "CREATE TABLE mut_customers (id INT, code VARCHAR, segment VARCHAR, credit INT)",
    "INSERT INTO mut_customers VALUES (1, 'A', 'corp', 100), (2, 'B', 'retail', 200), (3, 'C', NULL, 300)",
    "CREATE TABLE mut_orders (id INT, cust_ref VARCHAR, odate DATE, status VARCHAR, channel VARCHAR, amount INT)",
    """INSERT INTO mut_orders VALUES
       (1, 'A', '2024-01-01', 'shipped', 'web', 10), (2, 'A', '2024-01-02', 'shipped', 'shop', 20),
       (3, 'B', '2024-01-01', 'open', 'web', 30), (4, 'B', '2024-01-02', NULL, 'web', 40),
       (5, 'C', '2024-01-02', 'open', 'shop', 50), (6, 'Z', '2024-01-01', 'shipped', 'shop', 60),
       (7, NULL, '2024-01-03', 'open', 'web', 70), (8, 'A', '2024-01-03', 'shipped', 'web', 80)""",
]


def write(root: Path, files: dict[str, str]) -> Layer:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_layer(root)


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    return write(tmp_path_factory.mktemp("mut") / "mut", FILES)


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for statement in TABLES:
        con.execute(statement)
    return con


def rows(layer: Layer, con: duckdb.DuckDBPyConnection, smq: dict, role: str | None = None) -> list[tuple]:
    return sorted(con.execute(layer.compile(smq, role=role, use_cache=False)).fetchall(), key=repr)


def test_a_row_filter_reaches_orders_through_a_one_to_many_edge(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    """The edge is declared from customers to orders; walked backwards it is many_to_one, so the filter holds."""
    assert rows(layer, con, {"metrics": ["OrderModel__orders", "OrderModel__amount"]}, "corp") == [(3, 110)]
    assert rows(layer, con, {"metrics": ["OrderModel__orders"], "group_by": ["OrderModel__channel"]}, "corp") == [
        ("shop", 1), ("web", 2)]


def test_a_null_accepting_row_filter_still_drops_rows_without_a_match(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    """`segment IS NULL OR ...` keeps customer C (NULL segment), never orders of no customer (Z, NULL): INNER joins."""
    assert rows(layer, con, {"metrics": ["OrderModel__orders"]}, "corp_or_unknown") == [(4,)]  # orders 1, 2, 5, 8
    assert rows(layer, con, {"metrics": ["OrderModel__orders"], "group_by": ["OrderModel__channel"]}, "corp_or_unknown") == [
        ("shop", 2), ("web", 2)]


def test_the_offset_path_reads_the_filtered_rows(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    """The day before, counted over the corporate customer's orders only (all orders: 3, 3 and 2)."""
    smq = {"metrics": ["ordersDayBefore"], "group_by": ["OrderModel__orderDate"]}
    seen = [(str(day), n) for day, n in rows(layer, con, smq, "corp") if n]
    assert seen == [("2024-01-02", 1), ("2024-01-03", 1), ("2024-01-04", 1)]
    everyone = [(str(day), n) for day, n in rows(layer, con, smq) if n]
    assert everyone == [("2024-01-02", 3), ("2024-01-03", 3), ("2024-01-04", 2)]


def test_a_metric_filter_subquery_reads_the_filtered_rows(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    """Per channel the role sees 2 web orders and 1 shop order (all: 5 and 3): only web passes `>= 2`."""
    smq = {"metrics": ["OrderModel__orders"], "group_by": ["OrderModel__channel"],
           "filters": ["METRIC(OrderModel__orders, OrderModel__channel) >= 2"]}
    assert rows(layer, con, smq, "corp") == [("web", 2)]
    assert rows(layer, con, smq) == [("shop", 3), ("web", 5)]


def test_a_one_to_many_edge_fans_out_only_forwards(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    """Customers by their orders' channel: each customer once per channel (A has two web orders)."""
    smq = {"metrics": ["CustomerModel__customers", "CustomerModel__credit"], "group_by": ["OrderModel__channel"]}
    assert rows(layer, con, smq) == [("shop", 2, 400), ("web", 2, 300)]
    smq = {"metrics": ["CustomerModel__customers", "CustomerModel__credit"], "filters": ["OrderModel__channel = 'web'"]}
    assert rows(layer, con, smq) == [(2, 300)]
    assert rows(layer, con, {"metrics": ["OrderModel__amount"], "group_by": ["CustomerModel__segment"]}) == [
        ("corp", 110), ("retail", 70), (None, 180)]


@pytest.mark.parametrize("name", [
    "OrderModel__orderDate", "OrderModel__orderDate__month", "OrderModel__orderDate__year",  # grains of a hidden date
    "OrderModel__status", "order__status", "order__orderDate", "order__orderDate__month",  # MetricFlow's names
])
def test_a_hidden_dimension_is_unknown_under_every_name(layer: Layer, name: str) -> None:
    smq = {"metrics": ["OrderModel__orders"], "group_by": [name]}
    layer.compile(smq)  # fine without the role
    for query in (smq, {"metrics": ["OrderModel__orders"], "filters": [f"{name} IS NOT NULL"]}):
        with pytest.raises(QueryError) as err:
            layer.compile(query, role="no_date", use_cache=False)
        assert err.value.code == "unknown_element", err.value.message


CHAIN = {  # C -> B -> A: the edges listed so that one pass over them cannot reach C
    "database.yml": """
        name: chain
        dialect: duckdb
        connection: {backend: duckdb}
        access:
          roles:
            no_code:
              hidden: [AModel__code]
    """,
    "models/a.yml": """
        name: AModel
        table: a
        primary_key: id
        dimensions:
          - {name: code, type: string}
          - {name: label, type: string}
    """,
    "models/b.yml": """
        name: BModel
        table: b
        primary_key: id
        dimensions:
          - {name: aCode, type: string, expr: a_code}
          - {name: note, type: string}
    """,
    "models/c.yml": """
        name: CModel
        table: c
        primary_key: id
        dimensions:
          - {name: bRef, type: string, expr: LOWER(b_ref)}
          - {name: kind, type: string}
        measures:
          - {name: refs, agg: count_distinct, expr: b_ref}
    """,
    "joins.yml": """
        joins:
          - {from: CModel, to: BModel, key: b, relationship: many_to_one, on: {left: b_ref, right: a_code}}
          - {from: BModel, to: AModel, key: a, relationship: many_to_one, on: {left: a_code, right: code}}
    """,
}


def test_hidden_keys_propagate_across_models_to_a_fixpoint(tmp_path: Path) -> None:
    """A's code is B's join key and, through it, C's: every element reading one of those columns is hidden."""
    chain = write(tmp_path / "chain", CHAIN)
    seen = chain.visibility("no_code")
    assert seen.secret["BModel"] == {"a_code"} and seen.secret["CModel"] == {"b_ref"}
    assert {"AModel__code", "BModel__aCode", "CModel__bRef", "CModel__refs"} <= seen.hidden
    assert not {"AModel__label", "BModel__note", "CModel__kind"} & seen.hidden
    for name in ("BModel__aCode", "CModel__bRef", "CModel__refs"):
        with pytest.raises(QueryError):
            chain.compile({"metrics": [name]} if name.endswith("refs") else {"metrics": [], "group_by": [name]},
                          role="no_code", use_cache=False)


@pytest.mark.parametrize(("sql", "refused"), [
    ("WITH a AS (SELECT * FROM secret), secret AS (SELECT 1 AS x) SELECT * FROM a", True),  # a later sibling: the table
    ("WITH secret AS (SELECT 1 AS x), a AS (SELECT * FROM secret) SELECT * FROM a", False),  # an earlier one: the CTE
    ("WITH RECURSIVE a AS (SELECT * FROM secret), secret AS (SELECT 1 AS x) SELECT * FROM a", False),  # all visible
    ("SELECT * FROM (WITH secret AS (SELECT 1 AS x) SELECT x FROM secret) q, secret", True),  # another scope's CTE
])
def test_a_cte_hides_a_table_only_where_sql_scoping_makes_it_visible(layer: Layer, sql: str, refused: bool) -> None:
    """A table outside the layer named like a CTE the query cannot see there is still that table, and refused."""
    findings = policy_for(layer.semantic).findings(sqlglot.parse_one(sql, read="duckdb"))
    assert [(f.kind, f.shown) for f in findings] == ([(TABLE_NOT_IN_LAYER, "secret")] if refused else [])


def test_raw_sql_under_a_role_reads_filtered_rows_inside_ctes(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    sql = "WITH a AS (SELECT * FROM mut_orders), b AS (SELECT 1 AS x) SELECT COUNT(*) FROM a, b"
    on_role = apply_role_to_sql(sqlglot.parse_one(sql, read="duckdb"), layer.semantic, layer.graph, layer.role("corp"))
    assert con.execute(on_role.sql(dialect="duckdb")).fetchall() == [(3,)]
