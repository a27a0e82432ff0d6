"""engine/sql_api without a socket: SQL -> the SMQ it means, the tables a role sees, and the refusals' SQLSTATEs."""

from __future__ import annotations

from typing import Any

import pytest
import sqlglot

from engine import load_layers
from engine.sql_api import catalog_sql, statements
from engine.sql_api.catalog import catalog_tables
from engine.sql_api.errors import SqlApiError
from engine.sql_api.tables import tables
from engine.sql_api.translate import SemanticQuery, Wrapped, translate
from tests.conftest import DEMO_MODELS


@pytest.fixture(scope="module")
def layer() -> Any:
    return load_layers(DEMO_MODELS)["shop"]


def smq_of(layer: Any, sql: str, role: str | None = None, params: dict[int, Any] | None = None) -> Any:
    return translate(sqlglot.parse_one(sql, read="postgres"), tables(layer, role), layer.dialect, params)


def test_the_contract_example(layer: Any) -> None:
    got = smq_of(layer, """SELECT channel, DATE_TRUNC('month', "orderDate") AS month, MEASURE("orderCount") AS orders
        FROM "OrdersModel" WHERE status = 'shipped' AND "orderDate" >= '2024-01-01' GROUP BY 1, 2
        HAVING MEASURE("orderCount") > 10 ORDER BY orders DESC LIMIT 20""")
    assert isinstance(got, SemanticQuery)
    assert got.smq == {
        "metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"],
        "filters": [{"member": "OrdersModel__status", "operator": "equals", "values": ["shipped"]},
                    {"member": "OrdersModel__orderDate", "operator": "gte", "values": ["2024-01-01"]},
                    {"member": "OrdersModel__orderCount", "operator": "gt", "values": [10]}],
        "order_by": ["-OrdersModel__orderCount"]}
    assert (got.limit, got.offset) == (20, 0)
    assert [(o.name, o.pg_type) for o in got.outputs] == [("channel", "text"), ("month", "date"), ("orders", "int8")]
    layer.compile(got.smq)  # the engine accepts it


def test_not_keeps_sql_meaning(layer: Any) -> None:
    got = smq_of(layer, 'SELECT channel FROM "OrdersModel" WHERE NOT (status = \'x\' OR channel IN (\'web\', \'store\'))')
    not_x = {"and": [{"member": "OrdersModel__status", "operator": "set"},
                     {"member": "OrdersModel__status", "operator": "notEquals", "values": ["x"]}]}
    not_in = {"and": [{"member": "OrdersModel__channel", "operator": "set"},
                      {"member": "OrdersModel__channel", "operator": "notEquals", "values": ["web", "store"]}]}
    assert got.smq["filters"] == [{"and": [not_x, not_in]}]
    assert got.smq["group_by"] == ["OrdersModel__channel"] and "metrics" not in got.smq


def test_values_are_typed_against_the_element(layer: Any) -> None:
    got = smq_of(layer, 'SELECT MEASURE("orderCount") FROM "OrdersModel" WHERE "orderId" BETWEEN $1 AND $2 '
                        'AND "orderDate" < $3', params={1: "10", 2: 20, 3: "2024-01-01 00:00:00+02"})
    assert got.smq["filters"] == [
        {"and": [{"member": "OrdersModel__orderId", "operator": "gte", "values": [10]},
                 {"member": "OrdersModel__orderId", "operator": "lte", "values": [20]}]},
        {"member": "OrdersModel__orderDate", "operator": "lt", "values": ["2023-12-31 22:00:00"]}]
    with pytest.raises(SqlApiError) as err:
        smq_of(layer, 'SELECT channel FROM "OrdersModel" WHERE "orderId" = $1', params={1: "ten"})
    assert err.value.sqlstate == "22P02"


def test_patterns_and_booleans_are_filter_trees_without_client_text(layer: Any) -> None:
    got = smq_of(layer, 'SELECT channel FROM "OrdersModel" WHERE status LIKE $1 AND "isShipped"', params={1: "sh'%"})
    assert got.smq["filters"] == ["OrdersModel__status LIKE 'sh''%'", "OrdersModel__isShipped"]
    layer.compile(got.smq)


def test_parameter_types_for_describe(layer: Any) -> None:
    seen: dict[int, str] = {}
    translate(sqlglot.parse_one('SELECT channel FROM "OrdersModel" WHERE "orderDate" >= $1 AND "orderId" = $2 '
                                "AND channel = $3 LIMIT $4", read="postgres"),
              tables(layer, None), layer.dialect, None, sink=lambda n, t: seen.setdefault(n, t))
    assert seen == {1: "date", 2: "numeric", 3: "text", 4: "int8"}


def test_aggregates_of_measures(layer: Any) -> None:
    got = smq_of(layer, 'SELECT SUM(revenue), COUNT(DISTINCT "productsSold"), COUNT(*) FROM "OrderItemsModel"')
    assert got.smq["metrics"] == ["OrderItemsModel__revenue", "OrderItemsModel__productsSold", "OrderItemsModel__lineCount"]
    with pytest.raises(SqlApiError, match=r'SUM\("revenue"\)') as err:
        smq_of(layer, 'SELECT MAX(revenue) FROM "OrderItemsModel"')
    assert err.value.sqlstate == "0A000"


def test_select_star_and_joined_dimensions(layer: Any) -> None:
    got = smq_of(layer, 'SELECT * FROM "NationsModel"')
    assert got.smq == {"metrics": ["NationsModel__countryCount"], "group_by": ["NationsModel__country",
                                                                             "RegionsModel__region"]}
    orders = {c.name for c in tables(layer, None)["OrdersModel"].columns}
    assert {"CustomersModel__segment", "NationsModel__country", "RegionsModel__region"} <= orders
    assert "ProductsModel__category" not in orders  # reached through a one-to-many step: not a column
    items = {c.name for c in tables(layer, None)["OrderItemsModel"].columns}
    assert "NationsModel__country" not in items  # two many-to-one paths (buyer's, supplier's): ambiguous


def test_a_wrapper_folds_into_one_smq(layer: Any) -> None:
    got = smq_of(layer, 'SELECT channel AS c, orders FROM (SELECT channel, MEASURE("orderCount") AS orders '
                        'FROM "OrdersModel" GROUP BY channel) AS virtual_table WHERE channel <> \'store\' AND orders > 5 '
                        "ORDER BY orders DESC LIMIT 1000")
    assert isinstance(got, SemanticQuery)
    assert got.smq["filters"][1] == {"member": "OrdersModel__orderCount", "operator": "gt", "values": [5]}
    assert got.smq["order_by"] == ["-OrdersModel__orderCount"] and got.limit == 1000
    assert [o.name for o in got.outputs] == ["c", "orders"]


def test_an_outer_aggregate_is_evaluated_over_the_inner_rows(layer: Any) -> None:
    got = smq_of(layer, 'SELECT COUNT(*) AS n FROM (SELECT channel, MEASURE("orderCount") AS orders '
                        'FROM "OrdersModel" GROUP BY 1) AS t')
    assert isinstance(got, Wrapped) and got.inner_name == "t"
    assert got.inner.smq == {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}


def test_a_role_sees_no_hidden_column(layer: Any) -> None:
    columns = {c.name for c in tables(layer, "de_analyst")["CustomersModel"].columns}
    assert "customerName" not in columns and "segment" in columns
    with pytest.raises(SqlApiError) as err:
        smq_of(layer, 'SELECT "customerName" FROM "CustomersModel"', role="de_analyst")
    assert err.value.sqlstate == "42703"
    catalog = {(t.schema, t.name): t for t in catalog_tables("shop", tables(layer, "de_analyst"))}
    names = {row[1] for row in catalog[("pg_catalog", "pg_attribute")].rows}
    assert "customerName" not in names and "segment" in names


@pytest.mark.parametrize("sql, sqlstate", [
    ('SELECT chanel FROM "OrdersModel"', "42703"),
    ('SELECT channel FROM "Orders"', "42P01"),
    ('SELECT channel FROM other."OrdersModel"', "42P01"),
    ('SELECT channel, "orderId" FROM "OrdersModel" GROUP BY channel', "42803"),
    ('SELECT channel FROM "OrdersModel" GROUP BY 3', "42601"),
    ('SELECT channel || \'x\' FROM "OrdersModel"', "0A000"),
    ('SELECT channel FROM "OrdersModel" WHERE channel IN (SELECT 1)', "0A000"),
    ('SELECT channel FROM "OrdersModel", "CustomersModel"', "0A000"),
    ('SELECT MEASURE(channel) FROM "OrdersModel"', "42883"),
])
def test_refusals(layer: Any, sql: str, sqlstate: str) -> None:
    with pytest.raises(SqlApiError) as err:
        smq_of(layer, sql)
    assert err.value.sqlstate == sqlstate


@pytest.mark.parametrize("sql, kind", [
    ("SET extra_float_digits = 3", "session"), ("BEGIN", "session"), ("SHOW TimeZone", "session"),
    ("DISCARD ALL", "session"), ("SELECT 1", "select"), ("  ", "empty"),
])
def test_classify(sql: str, kind: str) -> None:
    assert statements.classify(sql).kind == kind


@pytest.mark.parametrize("sql", ["INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "DROP TABLE t",
                                 "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", "COPY t TO '/tmp/x'"])
def test_writes_are_25006(sql: str) -> None:
    with pytest.raises(SqlApiError) as err:
        statements.classify(sql)
    assert err.value.sqlstate == "25006"


def test_split_keeps_semicolons_in_strings() -> None:
    assert statements.split("SET a = 1; SELECT ';' ;") == ["SET a = 1", "SELECT ';'"]


def test_psql_describe_query_rewrites_for_the_catalog() -> None:
    query = ("SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n "
             "ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(OrdersModel)$' COLLATE "
             "pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid) AND c.reloftype::pg_catalog.regtype::"
             "pg_catalog.text IS NULL ORDER BY 2, 3")
    known = {("pg_catalog", "pg_class"), ("pg_catalog", "pg_namespace")}
    out = catalog_sql.rewrite(sqlglot.parse_one(query, read="postgres"),
                              catalog_sql.Session("shop", "u", 1, "PostgreSQL 15.0"), known).sql("duckdb")
    assert "smq_pg_catalog.pg_class" in out and "REGEXP_MATCHES(c.relname" in out
    assert "COLLATE" not in out and "pg_table_is_visible" not in out and "regtype" not in out.lower()
    with pytest.raises(SqlApiError) as err:
        catalog_sql.rewrite(sqlglot.parse_one("SELECT * FROM pg_catalog.pg_nope", read="postgres"),
                            catalog_sql.Session("shop", "u", 1, "v"), known)
    assert err.value.sqlstate == "42P01"
