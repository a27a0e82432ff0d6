"""The read-only guard: what passes, and the exact words of every refusal."""

from __future__ import annotations

import pytest
from sqlglot import exp

from engine.dialects.denylist import DENIED_FUNCTIONS, denied_function_reason
from smq_db.executors.errors import ReadOnlyViolation, SqlSyntaxError
from smq_db.readonly import check_read_only

ONLY = "only one SELECT or WITH query is allowed"

ACCEPTED = [
    ("duckdb", "SELECT 1"),
    ("duckdb", "select id, name from items where id > 1 order by id limit 5"),
    ("duckdb", "FROM items"),
    ("postgres", "SELECT 1 UNION SELECT 2"),
    ("postgres", "SELECT a FROM t EXCEPT SELECT a FROM u"),
    ("postgres", "(SELECT 1)"),
    ("postgres", "WITH x AS (SELECT 1 AS a) SELECT a FROM x"),
    ("sqlite", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r"),
    ("postgres", "SELECT * FROM t;"),
    ("postgres", "SELECT 1; -- trailing comment"),
    ("postgres", "/* leading comment */ SELECT 1"),
    ("postgres", "SELECT 'DELETE FROM t; DROP TABLE t' AS harmless_text"),
    ("postgres", 'SELECT * FROM "read_csv"'),  # a table that happens to be called read_csv
    ("duckdb", "SELECT * FROM (VALUES (1, 'a')) AS v(id, name)"),
    ("snowflake", "SELECT * FROM DB.SCHEMA.ORDERS AT(OFFSET => -60)"),
    ("snowflake", "SELECT * FROM TABLE(GENERATOR(ROWCOUNT => 10))"),
    ("bigquery", "SELECT * FROM `bigquery-public-data.samples.shakespeare` LIMIT 5"),
    ("mysql", "SELECT `id`, COUNT(*) FROM `orders` GROUP BY `id`"),
    ("postgres", "SELECT lower(name), upper(name), coalesce(note, '') FROM t"),
    ("postgres", "SELECT count(*) FILTER (WHERE flag) OVER (PARTITION BY day) FROM t"),
]

REFUSED = [
    # DML and DDL
    ("postgres", "DELETE FROM t", f"DELETE statements are not allowed; {ONLY}"),
    ("postgres", "INSERT INTO t VALUES (1)", f"INSERT statements are not allowed; {ONLY}"),
    ("postgres", "UPDATE t SET a = 1", f"UPDATE statements are not allowed; {ONLY}"),
    ("duckdb", "MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", f"MERGE statements are not allowed; {ONLY}"),
    ("postgres", "CREATE TABLE x AS SELECT 1", f"CREATE statements are not allowed; {ONLY}"),
    ("postgres", "DROP TABLE t", f"DROP statements are not allowed; {ONLY}"),
    ("postgres", "ALTER TABLE t ADD COLUMN x INT", f"ALTER statements are not allowed; {ONLY}"),
    ("postgres", "TRUNCATE t", f"TRUNCATE statements are not allowed; {ONLY}"),
    ("postgres", "WITH x AS (SELECT 1) DELETE FROM t", f"DELETE statements are not allowed; {ONLY}"),
    # engine and session statements
    ("sqlite", "PRAGMA table_info('t')", f"PRAGMA statements are not allowed; {ONLY}"),
    ("duckdb", "ATTACH 'other.db' AS other", f"ATTACH statements are not allowed; {ONLY}"),
    ("sqlite", "DETACH other", f"DETACH statements are not allowed; {ONLY}"),
    ("duckdb", "COPY t TO 'out.csv'", f"COPY statements are not allowed; {ONLY}"),
    ("postgres", "COPY t FROM PROGRAM 'ls'", f"COPY statements are not allowed; {ONLY}"),
    ("duckdb", "INSTALL httpfs", f"INSTALL statements are not allowed; {ONLY}"),
    ("duckdb", "LOAD httpfs", f"LOAD statements are not allowed; {ONLY}"),
    ("duckdb", "SET threads = 1", f"SET statements are not allowed; {ONLY}"),
    ("duckdb", "CALL pragma_version()", f"CALL statements are not allowed; {ONLY}"),
    ("duckdb", "EXPORT DATABASE 'dump'", f"EXPORT statements are not allowed; {ONLY}"),
    ("duckdb", "IMPORT DATABASE 'dump'", f"IMPORT statements are not allowed; {ONLY}"),
    ("postgres", "GRANT SELECT ON t TO someone", f"GRANT statements are not allowed; {ONLY}"),
    ("postgres", "EXPLAIN SELECT 1", f"EXPLAIN statements are not allowed; {ONLY}"),
    ("postgres", "BEGIN", f"BEGIN statements are not allowed; {ONLY}"),
    ("postgres", "DO $$ BEGIN END $$", f"DO statements are not allowed; {ONLY}"),
    ("mysql", "LOAD DATA INFILE 'x' INTO TABLE t", f"LOAD statements are not allowed; {ONLY}"),
    ("snowflake", "PUT file:///tmp/x @stage", f"PUT statements are not allowed; {ONLY}"),
    ("postgres", "VALUES (1)", f"VALUES statements are not allowed; {ONLY}"),
    # an expression where a query belongs
    ("duckdb", "00", f"'00' is an expression, not a query; {ONLY} (e.g. SELECT ... FROM ...)"),
    ("postgres", "revenue / 2", f"'revenue / 2' is an expression, not a query; {ONLY}"),
    # SELECT that writes or locks
    ("postgres", "SELECT * INTO new_table FROM t", f"SELECT ... INTO is not allowed (it writes a table or file); {ONLY}"),
    ("mysql", "SELECT * FROM t INTO OUTFILE '/tmp/x'", f"SELECT ... INTO is not allowed (it writes a table or file); {ONLY}"),
    ("postgres", "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x",
     f"DELETE inside a WITH clause (data-modifying CTE) is not allowed; {ONLY}"),
    ("postgres", "WITH x AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM x",
     f"INSERT inside a WITH clause (data-modifying CTE) is not allowed; {ONLY}"),
    ("postgres", "SELECT 1 UNION ALL (WITH x AS (UPDATE t SET a = 1 RETURNING a) SELECT a FROM x)",
     f"UPDATE inside a WITH clause (data-modifying CTE) is not allowed; {ONLY}"),
    ("postgres", "SELECT * FROM t FOR UPDATE", f"locking clause FOR UPDATE is not allowed; {ONLY}"),
    ("mysql", "SELECT * FROM t LOCK IN SHARE MODE", f"locking clause FOR SHARE is not allowed; {ONLY}"),
    # more than one statement, or none
    ("postgres", "SELECT 1; DROP TABLE t", f"multiple statements are not allowed (found 2); {ONLY}"),
    ("sqlite", "SELECT 1; SELECT 2", f"multiple statements are not allowed (found 2); {ONLY}"),
    ("postgres", "  ;  ", f"the query is empty; {ONLY} expected"),
    # file, network, dynamic SQL, sleeps: as scalar and as table functions
    ("duckdb", "SELECT * FROM read_csv('x.csv')", "function read_csv is not allowed (file access)"),
    ("duckdb", "SELECT * FROM READ_CSV_AUTO('x.csv')", "function read_csv_auto is not allowed (file access)"),
    ("duckdb", "SELECT * FROM read_parquet('x.parquet')", "function read_parquet is not allowed (file access)"),
    ("duckdb", "SELECT * FROM parquet_scan('x.parquet')", "function parquet_scan is not allowed (file access)"),
    ("duckdb", "SELECT * FROM read_json('x.json')", "function read_json is not allowed (file access)"),
    ("duckdb", "SELECT content FROM read_text('/etc/passwd')", "function read_text is not allowed (file access)"),
    ("duckdb", "SELECT * FROM read_blob('x')", "function read_blob is not allowed (file access)"),
    ("duckdb", "SELECT * FROM glob('*')", "function glob is not allowed (file access)"),
    ("duckdb", "SELECT * FROM main.read_csv('x.csv')", "function read_csv is not allowed (file access)"),
    ("duckdb", "SELECT * FROM sqlite_scan('x.db', 't')", "function sqlite_scan is not allowed (file access)"),
    ("duckdb", "SELECT * FROM query('DROP TABLE t')", "function query is not allowed (runs other SQL)"),
    ("duckdb", "SELECT * FROM t WHERE id IN (SELECT id FROM read_csv('x.csv'))", "function read_csv is not allowed (file access)"),
    ("duckdb", "SELECT * FROM 'data.csv'", "table name 'data.csv' looks like a file, URL or stage and is not allowed (file access)"),
    ("duckdb", "SELECT * FROM 's3://bucket/x.parquet'", "table name 's3://bucket/x.parquet' looks like a file, URL or stage"),
    ("duckdb", "SELECT * FROM t JOIN 'other.parquet' o ON t.id = o.id", "table name 'other.parquet' looks like a file"),
    ("snowflake", "SELECT $1 FROM @my_stage/file.csv", "table name '@my_stage/file.csv' looks like a file, URL or stage"),
    ("postgres", "SELECT pg_read_file('/etc/passwd')", "function pg_read_file is not allowed (file access)"),
    ("postgres", "SELECT pg_read_binary_file('/etc/passwd')", "function pg_read_binary_file is not allowed (file access)"),
    ("postgres", "SELECT * FROM pg_ls_dir('.')", "function pg_ls_dir is not allowed (file access)"),
    ("postgres", "SELECT pg_stat_file('x')", "function pg_stat_file is not allowed (file access)"),
    ("postgres", "SELECT pg_catalog.pg_read_file('x')", "function pg_read_file is not allowed (file access)"),
    ("postgres", "SELECT lo_import('/etc/passwd')", "function lo_import is not allowed (file access)"),
    ("postgres", "SELECT lo_export(1, '/tmp/x')", "function lo_export is not allowed (file access)"),
    ("postgres", "SELECT * FROM dblink('host=x', 'SELECT 1') AS t(a INT)", "function dblink is not allowed (network access)"),
    ("postgres", "SELECT pg_sleep(10)", "function pg_sleep is not allowed (resource use)"),
    ("postgres", "SELECT query_to_xml('DELETE FROM t', true, true, '')", "function query_to_xml is not allowed (runs other SQL)"),
    ("postgres", "SELECT set_config('search_path', 'x', false)", "function set_config is not allowed (side effects)"),
    ("postgres", "SELECT nextval('seq')", "function nextval is not allowed (side effects)"),
    ("mysql", "SELECT LOAD_FILE('/etc/passwd')", "function load_file is not allowed (file access)"),
    ("mysql", "SELECT SLEEP(10)", "function sleep is not allowed (resource use)"),
    ("mysql", "SELECT BENCHMARK(100000000, MD5('x'))", "function benchmark is not allowed (resource use)"),
    ("mysql", "SELECT sys_exec('id')", "function sys_exec is not allowed (system access)"),
    ("sqlite", "SELECT load_extension('evil.so')", "function load_extension is not allowed (system access)"),
    ("sqlite", "SELECT readfile('/etc/passwd')", "function readfile is not allowed (file access)"),
    ("sqlite", "SELECT writefile('/tmp/x', 'data')", "function writefile is not allowed (file access)"),
    ("sqlite", "SELECT edit('text')", "function edit is not allowed (system access)"),
    ("sqlite", "SELECT * FROM fsdir('.')", "function fsdir is not allowed (file access)"),
    ("snowflake", "SELECT SYSTEM$WAIT(10)", "function system$wait is not allowed (system access)"),
    ("snowflake", "SELECT * FROM TABLE(RESULT_SCAN(LAST_QUERY_ID()))", "function result_scan is not allowed (runs other SQL)"),
    ("bigquery", "SELECT * FROM EXTERNAL_QUERY('conn', 'SELECT 1')", "function external_query is not allowed (network access)"),
]


@pytest.mark.parametrize(("dialect", "sql"), ACCEPTED)
def test_accepts_one_read_only_query(dialect: str, sql: str) -> None:
    tree = check_read_only(sql, dialect)
    assert isinstance(tree, exp.Expression)


@pytest.mark.parametrize(("dialect", "sql", "message"), REFUSED)
def test_refuses_with_a_message_naming_what(dialect: str, sql: str, message: str) -> None:
    with pytest.raises(ReadOnlyViolation) as caught:
        check_read_only(sql, dialect)
    assert message in caught.value.message
    assert caught.value.code == "not_read_only"


def test_enough_cases() -> None:
    assert len(ACCEPTED) + len(REFUSED) >= 40


def test_returns_the_parsed_tree_for_rewriting() -> None:
    tree = check_read_only("SELECT o.id FROM orders AS o JOIN customers c ON o.cid = c.id", "duckdb")
    assert sorted(t.name for t in tree.find_all(exp.Table)) == ["customers", "orders"]


def test_unparseable_sql_is_a_syntax_error_with_position() -> None:
    with pytest.raises(SqlSyntaxError) as caught:
        check_read_only("SELECT FROM WHERE", "postgres")
    error = caught.value
    assert error.code == "sql_syntax"
    assert "line 1, column 17" in error.message and "'WHERE'" in error.message
    assert error.location.line == 1 and error.location.column == 17
    assert "<Token" not in error.message


def test_unterminated_string_is_a_syntax_error() -> None:
    with pytest.raises(SqlSyntaxError, match="cannot parse the SQL as postgres"):
        check_read_only("SELECT 'abc", "postgres")


def test_deny_list_is_data_with_reasons() -> None:
    assert all(name == name.lower() and reason for name, reason in DENIED_FUNCTIONS.items())
    assert denied_function_reason("READ_NDJSON_AUTO") == "file access"  # by prefix
    assert denied_function_reason("pg_ls_waldir") == "file access"
    assert denied_function_reason("lower") is None
