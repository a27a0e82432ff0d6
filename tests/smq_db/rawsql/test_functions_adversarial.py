"""Functions raw SQL may not call (issue 13 item 7 and the allow-list), on DuckDB, SQLite, PostgreSQL, MariaDB.

The leaks the issue found (the DuckDB file path through `pragma_database_list` / `current_setting`,
any table's schema through `json_serialize_plan`, settings, the data directory, login names) are
refused by the allow-list, for every role. Where the engine itself would have answered (the call
is not on the read-only guard's deny list), the test runs it on the engine to show the leak is real.
"""

from __future__ import annotations

import pytest

from engine.errors import EngineError

from .conftest import Engine

# (SQL, the engine answers it when the policy is bypassed)
LEAKS: dict[str, list[tuple[str, bool]]] = {
    "duckdb": [("SELECT * FROM pragma_database_list", True), ("SELECT current_setting('temp_directory')", True),
               ("SELECT json_serialize_plan('SELECT * FROM customers')", True), ("SELECT * FROM duckdb_settings()", True),
               ("SELECT getenv('HOME')", False), ("SELECT * FROM read_csv('/etc/passwd')", False),
               ("SELECT version()", True), ("SELECT current_database()", True)],
    "sqlite": [("SELECT * FROM pragma_database_list", True), ("SELECT sqlite_version()", True),
               ("SELECT * FROM pragma_compile_options", True), ("SELECT load_extension('x')", False)],
    "postgres": [("SELECT current_setting('data_directory')", True), ("SELECT * FROM pg_settings", True),
                 ("SELECT current_user", True), ("SELECT inet_server_addr()", True), ("SELECT version()", True),
                 ("SELECT pg_advisory_lock(1)", False), ("SELECT pg_notify('c', 'x')", False),
                 ("SELECT pg_reload_conf()", False), ("SELECT pg_sleep(0)", False),
                 ("SELECT pg_catalog.current_setting('data_directory')", True)],
    "mysql": [("SELECT @@datadir", True), ("SELECT @@global.basedir", True), ("SELECT user()", True),
              ("SELECT current_user()", True), ("SELECT database()", True), ("SELECT connection_id()", True),
              ("SELECT version()", True), ("SELECT SLEEP(0)", False), ("SELECT GET_LOCK('smq_h1', 0)", False),
              ("SELECT LOAD_FILE('/etc/passwd')", False),
              ("SELECT * FROM information_schema.global_variables", True)],
}
REFUSALS = ("function_not_allowed", "table_function_refused", "catalog_refused", "raw_sql_refused", "not_read_only")


@pytest.mark.parametrize("role", [None, "de_analyst", "hidden_only"])
def test_leaks_are_refused_for_every_role(engine: Engine, role: str | None) -> None:
    for sql, _ in LEAKS[engine.name]:
        with pytest.raises(EngineError) as error:
            engine.prepare(sql, role)
        assert error.value.code in REFUSALS, (sql, error.value.code)


def test_the_engine_would_have_answered_them(engine: Engine) -> None:
    for sql, answers in LEAKS[engine.name]:
        if answers:
            assert engine.executor.execute(sql, max_rows=1, timeout_s=20).rows, sql


def test_a_refused_function_is_named_with_how_to_allow_it(engine: Engine) -> None:
    with pytest.raises(EngineError) as error:
        engine.prepare("SELECT my_udf(customer_id) FROM customers")
    assert error.value.code == "function_not_allowed"
    assert "function my_udf is not allowed" in error.value.message
    assert "raw_sql: {functions: [my_udf]}" in error.value.message


ANALYST = {
    "duckdb": "SELECT date_trunc('month', order_date) AS m, count(*), sum(CASE WHEN status = 'shipped' THEN 1 END), "
              "row_number() OVER (ORDER BY date_trunc('month', order_date)) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 3",
    "postgres": "SELECT date_trunc('month', order_date) AS m, count(*), to_char(min(order_date), 'YYYY'), "
                "row_number() OVER (ORDER BY date_trunc('month', order_date)) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 3",
    "mysql": "SELECT DATE_FORMAT(order_date, '%Y-%m') AS m, COUNT(*), COALESCE(MAX(status), 'x'), "
             "ROW_NUMBER() OVER (ORDER BY DATE_FORMAT(order_date, '%Y-%m')) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 3",
    "sqlite": "SELECT strftime('%Y-%m', order_date) AS m, count(*), ifnull(max(status), 'x'), "
              "row_number() OVER (ORDER BY strftime('%Y-%m', order_date)) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 3",
}


def test_ordinary_analyst_sql_runs(engine: Engine) -> None:
    assert len(engine.run(ANALYST[engine.name]).rows) == 3
