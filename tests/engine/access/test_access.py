"""Access roles in the engine: row filters on compiled SMQs and raw SQL, hidden elements and columns."""

from __future__ import annotations

import pytest
import sqlglot

from engine import QueryError, load_layers
from engine.access.roles import apply_role_to_sql

from ...conftest import DEMO_MODELS

SHOP = load_layers(DEMO_MODELS)["shop"]


def raw(sql: str, role: str) -> str:
    tree = apply_role_to_sql(sqlglot.parse_one(sql, read="duckdb"), SHOP.semantic, SHOP.graph, SHOP.role(role))
    return tree.sql("duckdb")


def test_row_filter_restricts_every_model_reaching_the_filtered_one(duckdb_runner) -> None:
    smq = {"metrics": ["OrderItemsModel__revenue", "OrdersModel__orderCount", "PaymentsModel__amountPaid"]}
    _, [got] = duckdb_runner(SHOP.compile(smq, role="corporate_analyst"))
    _, [expected] = duckdb_runner("""
        WITH c AS (SELECT customer_code FROM customers WHERE segment = 'corporate'),
             o AS (SELECT o.* FROM orders o JOIN c ON UPPER(TRIM(o.customer_ref)) = c.customer_code)
        SELECT (SELECT SUM(i.quantity * i.unit_price * (1 - COALESCE(i.discount, 0))) FROM order_items i JOIN o ON i.order_id = o.order_id),
               (SELECT COUNT(*) FROM o),
               (SELECT SUM(p.amount) FROM payments p JOIN o ON p.order_id = o.order_id)""")
    assert got == pytest.approx(expected)
    # models that do not reach CustomersModel through many_to_one steps are untouched
    _, [[products]] = duckdb_runner(SHOP.compile({"metrics": ["ProductsModel__productCount"]}, role="corporate_analyst"))
    assert products == 120


def test_raw_sql_gets_the_same_rows_as_the_compiled_query(duckdb_runner) -> None:
    compiled = duckdb_runner(SHOP.compile({"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]},
                                          role="corporate_analyst"))[1]
    rewritten = duckdb_runner(raw("SELECT channel, COUNT(order_id) FROM orders GROUP BY 1 ORDER BY 1", "corporate_analyst"))[1]
    assert sorted(compiled) == sorted(rewritten)
    unrestricted = duckdb_runner("SELECT COUNT(*) FROM orders")[1][0][0]
    assert sum(n for _, n in rewritten) < unrestricted


def test_a_filter_on_a_shared_dimension_follows_every_path(duckdb_runner) -> None:
    # order lines reach NationsModel through the order's customer and through the product's supplier
    _, [[lines]] = duckdb_runner(raw("SELECT COUNT(*) FROM order_items", "de_analyst"))
    _, [[expected]] = duckdb_runner("""
        SELECT COUNT(*) FROM order_items i
        JOIN orders o ON i.order_id = o.order_id JOIN customers c ON UPPER(TRIM(o.customer_ref)) = c.customer_code
        JOIN nations cn ON c.nation_id = cn.nation_id
        JOIN products p ON i.product_id = p.product_id JOIN suppliers s ON p.supplier_id = s.supplier_id
        JOIN nations sn ON s.nation_id = sn.nation_id
        WHERE cn.nation_name = 'Germany' AND sn.nation_name = 'Germany'""")
    assert lines == expected > 0


def test_hidden_columns_cannot_be_read_even_with_star(duckdb_runner) -> None:
    columns, _ = duckdb_runner(raw("SELECT * FROM customers LIMIT 1", "de_analyst"))
    assert "customer_name" not in columns and "segment" in columns
    with pytest.raises(QueryError, match="column 'customer_name' of customers is hidden"):
        raw("SELECT customer_name FROM customers", "de_analyst")
    with pytest.raises(QueryError, match="unknown element"):
        SHOP.compile({"metrics": ["CustomersModel__customerCount"], "group_by": ["CustomersModel__customerName"]}, role="de_analyst")


@pytest.mark.parametrize(("sql", "fragment"), [
    ("SELECT * FROM information_schema.tables", "not part of database 'shop'"),
    ("WITH orders AS (SELECT * FROM orders) SELECT * FROM orders", "shadows a restricted table"),
])
def test_raw_sql_that_cannot_be_made_safe_is_refused(sql: str, fragment: str) -> None:
    with pytest.raises(QueryError, match=fragment):
        raw(sql, "corporate_analyst")


def test_no_role_leaves_sql_untouched() -> None:
    tree = sqlglot.parse_one("SELECT * FROM orders")
    assert apply_role_to_sql(tree, SHOP.semantic, SHOP.graph, None) is tree
