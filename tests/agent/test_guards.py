"""The final-SQL guard: tables seen in compiler output, own CTEs, and nothing else."""

from __future__ import annotations

import pytest
import sqlglot

from agent.guards import GuardRefusal, RunGuards, physical_tables
from smq_db.executors import ReadOnlyViolation, SqlSyntaxError


def guards_after(*compiled: str, dialect: str = "duckdb") -> RunGuards:
    g = RunGuards(dialect, ["OrdersModel", "CustomersModel"])
    for sql in compiled:
        g.note_compiled(sqlglot.parse_one(sql, read=dialect))
    return g


def test_compiled_cte_references_are_not_tables():
    tree = sqlglot.parse_one("WITH a AS (SELECT x FROM orders), b AS (SELECT y FROM shop.main.items) SELECT * FROM a JOIN b ON 1=1")
    assert physical_tables(tree, "duckdb") == {("orders",): "orders", ("shop", "main", "items"): "shop.main.items"}


def test_seen_tables_and_own_ctes_pass():
    g = guards_after('SELECT COUNT(o.id) FROM orders AS "orders" JOIN shop.main.items AS i ON 1=1')
    g.check_final("WITH totals AS (SELECT COUNT(*) AS n FROM orders) SELECT n, RANK() OVER (ORDER BY n) FROM totals")
    g.check_final("SELECT * FROM main.items")  # a shorter suffix of what the compiler wrote
    g.check_final('SELECT * FROM "ORDERS"')  # names compare case-insensitively


def test_more_qualified_than_the_compiler_is_refused():
    g = guards_after("SELECT 1 FROM orders")
    with pytest.raises(GuardRefusal, match="other.orders"):
        g.check_final("SELECT * FROM other.orders")


@pytest.mark.parametrize("sql, message", [
    ("SELECT * FROM OrdersModel", "is a semantic model"),
    ("SELECT * FROM customers", "has not appeared"),
    ("SELECT * FROM INFORMATION_SCHEMA.COLUMNS", "system catalog"),
    ("SELECT * FROM pg_catalog.pg_class", "system catalog"),
    ("SELECT * FROM pg_tables", "system catalog"),
    ("SELECT * FROM sqlite_master", "system catalog"),
    ("SELECT * FROM duckdb_tables()", "table function"),
])
def test_refusals_name_the_table_and_list_what_was_seen(sql, message):
    g = guards_after("SELECT 1 FROM orders")
    with pytest.raises(GuardRefusal) as err:
        g.check_final(sql)
    assert message in err.value.message and "Physical tables seen so far: orders." in err.value.message


def test_every_offending_table_is_named_once():
    g = guards_after("SELECT 1 FROM orders")
    with pytest.raises(GuardRefusal) as err:
        g.check_final("SELECT * FROM payments p JOIN refunds r ON 1=1 JOIN payments q ON 1=1")
    assert err.value.message.count("'payments'") == 1 and "'refunds'" in err.value.message


def test_read_only_and_syntax_errors_come_from_the_service_guard():
    g = guards_after("SELECT 1 FROM orders")
    with pytest.raises(ReadOnlyViolation):
        g.check_final("UPDATE orders SET status = 'x'")
    with pytest.raises(ReadOnlyViolation):
        g.check_final("WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d")
    with pytest.raises(SqlSyntaxError):
        g.check_final("SELECT FROM WHERE (")


def test_budgets():
    g = RunGuards("duckdb", max_smq_calls=2, max_repairs=1)
    assert g.take_smq_call() and g.take_smq_call() and not g.take_smq_call() and g.smq_calls_left == 0
    assert g.note_failed_execute() and not g.note_failed_execute()
