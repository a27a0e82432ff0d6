"""Attacks on what raw SQL may read (issue 13 items 2 and 5), on DuckDB, SQLite, PostgreSQL and MariaDB.

A CTE named after a table the role filter's subquery joins stood in for that table and lifted the
filter; table functions, views outside the layer and catalogs leaked hidden columns to roles that
only hide elements. Each attack is refused by the read policy on every engine, for every key; the
tests also show the engine itself would have answered (the policy is what stops it).
"""

from __future__ import annotations

import pytest

from engine.errors import EngineError

from .conftest import VIEW, Engine

ROLES = (None, "de_analyst", "hidden_only")
SHADOWS = {  # issue 13 item 2, written for each engine
    "duckdb": "WITH nations AS (SELECT unnest(range(0, 1000)) AS nation_id, 'Germany' AS nation_name) "
              "SELECT count(*) FROM orders",
    "postgres": "WITH nations AS (SELECT generate_series(0, 999) AS nation_id, 'Germany' AS nation_name) "
                "SELECT count(*) FROM orders",
    "mysql": "WITH nations AS (SELECT 1 AS nation_id, 'Germany' AS nation_name) SELECT count(*) FROM orders",
    "sqlite": "WITH nations AS (SELECT 1 AS nation_id, 'Germany' AS nation_name) SELECT count(*) FROM orders",
}


def refused(engine: Engine, sql: str, role: str | None) -> str:
    """The code of the refusal; fails when the SQL would run."""
    with pytest.raises(EngineError) as error:
        engine.prepare(sql, role)
    return error.value.code


@pytest.mark.parametrize("role", ROLES)
def test_a_cte_named_after_a_filtered_table_is_refused(engine: Engine, role: str | None) -> None:
    sql = SHADOWS[engine.name]
    assert refused(engine, sql, role) == "raw_sql_refused"
    nested = "SELECT count(*) FROM orders WHERE EXISTS (WITH nations AS (SELECT 1 AS nation_id) SELECT 1 FROM nations)"
    assert refused(engine, nested, role) == "raw_sql_refused"


def test_the_german_only_role_counts_only_german_orders(engine: Engine) -> None:
    """What the CTE tried to widen, answered within the role (the number the issue quotes)."""
    assert engine.run("SELECT count(*) FROM orders", "de_analyst").rows == [[665]]
    assert engine.run("SELECT count(*) FROM orders").rows[0][0] > 665


@pytest.mark.parametrize("role", ROLES)
def test_a_view_outside_the_layer_is_refused(engine: Engine, role: str | None) -> None:
    assert refused(engine, f"SELECT customer_name FROM {VIEW}", role) == "raw_sql_refused"
    # the view exists and shows what the role hides: the policy is what stands in the way
    assert engine.executor.execute(f"SELECT count(customer_name) FROM {VIEW}", max_rows=1, timeout_s=20).rows[0][0] > 0


TABLE_FUNCTIONS = {
    "duckdb": ["SELECT * FROM histogram(customers, customer_name)", "SELECT * FROM pragma_storage_info('customers')",
               "SELECT * FROM duckdb_columns()", "SELECT * FROM query_table('customers')"],
    "sqlite": ["SELECT * FROM pragma_table_info('customers')", "SELECT name FROM pragma_table_list",
               "SELECT * FROM pragma_database_list"],
    "postgres": ["SELECT * FROM pg_settings", "SELECT * FROM pg_stats WHERE tablename = 'customers'",
                 "SELECT * FROM json_populate_recordset(NULL::customers, '[]')"],
    "mysql": ["SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (x INT PATH '$')) AS j",
              "SELECT * FROM information_schema.columns", "SELECT * FROM mysql.user"],
}


@pytest.mark.parametrize("role", ROLES)
def test_table_functions_and_catalogs_are_refused_for_every_role(engine: Engine, role: str | None) -> None:
    for sql in TABLE_FUNCTIONS[engine.name]:
        code = refused(engine, sql, role)
        assert code in ("table_function_refused", "catalog_refused", "raw_sql_refused", "not_read_only"), (sql, code)


@pytest.mark.parametrize("role", ROLES)
def test_a_cte_of_another_scope_does_not_hide_a_table(engine: Engine, role: str | None) -> None:
    sql = f"SELECT * FROM (WITH {VIEW} AS (SELECT 1 AS a) SELECT a FROM {VIEW}) q, {VIEW}"
    assert refused(engine, sql, role) == "raw_sql_refused"


def test_a_qualifier_the_layer_does_not_use_names_another_table(engine: Engine) -> None:
    assert refused(engine, "SELECT count(*) FROM elsewhere.customers", None) == "raw_sql_refused"


def test_the_layers_tables_and_own_ctes_still_answer(engine: Engine) -> None:
    sql = "WITH c AS (SELECT customer_id FROM customers) SELECT count(*) FROM c"
    assert engine.run(sql).rows[0][0] == engine.run("SELECT count(*) FROM customers").rows[0][0]
    assert engine.run(sql, "hidden_only").rows[0][0] > 0
