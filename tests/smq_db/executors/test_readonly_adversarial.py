"""The read-only guard against SQL written to slip past it, and the real engines it would have harmed.

Each case was accepted by the guard before it was fixed. The second half runs the harmful ones
through the real executors (so the connection's own read-only lock is in play too) and checks
both that the guard now refuses them and that nothing happened on the engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from smq_db.executors.errors import ReadOnlyViolation
from smq_db.readonly import check_read_only

from .conftest import MYSQL, PG_DSN

ONLY = "only one SELECT or WITH query is allowed"
EXECUTABLE = "is not allowed (the server runs its contents as SQL)"
BACKSLASH_QUOTE = "a quote escaped with a backslash"

REFUSED = [
    # MySQL / MariaDB run the text of executable comments; sqlglot sees a comment
    ("mysql", "SELECT 1 /*!, LOAD_FILE('/etc/passwd') */", f"executable comment /*! ... */ {EXECUTABLE}; {ONLY}"),
    ("mysql", "SELECT 1 /*!50000, SLEEP(10) */", f"executable comment /*! ... */ {EXECUTABLE}"),
    ("mysql", "SELECT 1 /*M!, GET_LOCK('x', 0) */", f"executable comment /*M! ... */ {EXECUTABLE}"),
    ("mysql", "SELECT 1 /*m!100000, SLEEP(10) */", f"executable comment /*m! ... */ {EXECUTABLE}"),
    ("mysql", "SELECT 1 FROM DUAL WHERE 1 = 1 /*! AND SLEEP(10) */", EXECUTABLE),
    ("mysql", "SELECT 1 /*! INTO OUTFILE '/tmp/x' */", EXECUTABLE),
    ("mysql", "SELECT 1; /*!DELETE FROM t*/", EXECUTABLE),
    ("mysql", "SELECT 1 # x\n/*!, SLEEP(10) */", EXECUTABLE),
    ("mysql", "SELECT /*+ MAX_EXECUTION_TIME(100000000) */ 1",
     f"optimizer hint comment /*+ ... */ is not allowed (it can set session variables and the time limit); {ONLY}"),
    ("mysql", "SELECT /*+ SET_VAR(sql_select_limit = 100000000) */ 1", "optimizer hint comment /*+ ... */ is not allowed"),
    # ... and a backslash-escaped quote ends the string early under NO_BACKSLASH_ESCAPES / ANSI_QUOTES
    ("mysql", "SELECT '\\' AS a, SLEEP(10) AS b, '' -- '", f"{BACKSLASH_QUOTE} (\\' or \\\") is not allowed in a string"),
    ("mysql", "SELECT 1 AS \"\\\", LOAD_FILE('/etc/passwd') AS b -- \"", BACKSLASH_QUOTE),
    ("mysql", "SELECT 'a\\\\\\', SLEEP(10), '' -- '", BACKSLASH_QUOTE),
    ("mysql", "SELECT _utf8'\\'', SLEEP(10) -- '", BACKSLASH_QUOTE),
    # session state: user variables and LAST_INSERT_ID(expr)
    ("mysql", "SELECT @smq := 42", f"assigning a variable (@smq := ...) is not allowed (side effects); {ONLY}"),
    ("mysql", "SELECT id FROM t WHERE (@n := @n + 1) > 0", "assigning a variable (@n := ...) is not allowed"),
    ("snowflake", "SELECT $v := 1", "assigning a variable ($v := ...) is not allowed"),
    ("mysql", "SELECT LAST_INSERT_ID(77)", "function last_insert_id with arguments is not allowed (side effects)"),
    # MySQL / MariaDB functions missing from the deny list
    ("mysql", "SELECT MASTER_GTID_WAIT('0-1-100', 3600)", "function master_gtid_wait is not allowed (resource use)"),
    ("mysql", "SELECT WAIT_FOR_EXECUTED_GTID_SET('x', 3600)", "function wait_for_executed_gtid_set is not allowed (resource use)"),
    ("mysql", "SELECT sys_set('PATH', '/tmp')", "function sys_set is not allowed (system access)"),
    # PostgreSQL: identifiers with Unicode escapes name the function PostgreSQL calls
    ("postgres", "SELECT U&\"pg\\005fread_file\"('/etc/passwd')", "function pg_read_file is not allowed (file access)"),
    ("postgres", "SELECT U&\"\\0070g_read_file\"('/etc/passwd')", "function pg_read_file is not allowed (file access)"),
    ("postgres", "SELECT U&\"pg\\+00005fterminate_backend\"(1)", "function pg_terminate_backend is not allowed (system access)"),
    ("bigquery", "SELECT * FROM `EXTERNAL\\x5fQUERY`('conn', 'SELECT 1')", "function external_query is not allowed (network access)"),
    ("bigquery", "SELECT `EXTERNAL\\u005fQUERY`('conn', 'SELECT 1')", "function external_query is not allowed (network access)"),
    # PostgreSQL: functions that run a query given as text
    ("postgres", "SELECT * FROM ts_stat('SELECT to_tsvector(pg_read_file(''/etc/passwd''))')",
     "function ts_stat is not allowed (runs other SQL)"),
    ("postgres", "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, pg_read_file(''/etc/passwd'')::tsquery')",
     "function ts_rewrite is not allowed (runs other SQL)"),
    ("postgres", "SELECT table_to_xml_and_xmlschema('t'::regclass, true, true, '')",
     "function table_to_xml_and_xmlschema is not allowed (runs other SQL)"),
    ("postgres", "SELECT schema_to_xml_and_xmlschema('public', true, true, '')", "function schema_to_xml_and_xmlschema is not allowed"),
    ("postgres", "SELECT database_to_xml_and_xmlschema(true, true, '')", "function database_to_xml_and_xmlschema is not allowed"),
    # PostgreSQL: functions that write, or change the server, even in a READ ONLY transaction
    ("postgres", "SELECT txid_current()", "function txid_current is not allowed (side effects)"),
    ("postgres", "SELECT pg_current_xact_id()", "function pg_current_xact_id is not allowed (side effects)"),
    ("postgres", "SELECT pg_stat_reset()", "function pg_stat_reset is not allowed (side effects)"),
    ("postgres", "SELECT pg_stat_reset_shared('bgwriter')", "function pg_stat_reset_shared is not allowed (side effects)"),
    ("postgres", "SELECT pg_catalog.pg_stat_reset_single_table_counters('t'::regclass)",
     "function pg_stat_reset_single_table_counters is not allowed"),
    ("postgres", "SELECT pg_stat_statements_reset()", "function pg_stat_statements_reset is not allowed (side effects)"),
    ("postgres", "SELECT brin_summarize_new_values('t_brin')", "function brin_summarize_new_values is not allowed (side effects)"),
    ("postgres", "SELECT brin_desummarize_range('t_brin', 0)", "function brin_desummarize_range is not allowed (side effects)"),
    ("postgres", "SELECT gin_clean_pending_list('t_gin')", "function gin_clean_pending_list is not allowed (side effects)"),
    ("postgres", "SELECT pg_create_physical_replication_slot('s')",
     "function pg_create_physical_replication_slot is not allowed (system access)"),
    ("postgres", "SELECT pg_create_logical_replication_slot('s', 'test_decoding')",
     "function pg_create_logical_replication_slot is not allowed"),
    ("postgres", "SELECT pg_drop_replication_slot('s')", "function pg_drop_replication_slot is not allowed (system access)"),
    ("postgres", "SELECT * FROM pg_logical_slot_get_changes('s', NULL, NULL)", "function pg_logical_slot_get_changes is not allowed"),
    ("postgres", "SELECT pg_replication_origin_create('o')", "function pg_replication_origin_create is not allowed"),
    ("postgres", "SELECT pg_import_system_collations('public'::regnamespace)",
     "function pg_import_system_collations is not allowed (side effects)"),
    ("postgres", "SELECT pg_backup_start('x')", "function pg_backup_start is not allowed (system access)"),
    ("postgres", "SELECT pg_wal_replay_pause()", "function pg_wal_replay_pause is not allowed (system access)"),
    ("postgres", "SELECT pg_log_backend_memory_contexts(pg_backend_pid())",
     "function pg_log_backend_memory_contexts is not allowed (system access)"),
    ("postgres", "SELECT setseed(0.5)", "function setseed is not allowed (side effects)"),
    ("postgres", "SELECT loread(0, 100)", "function loread is not allowed (file access)"),
    ("postgres", "SELECT lowrite(0, 'x')", "function lowrite is not allowed (file access)"),
    ("postgres", "SELECT pg_current_logfile()", "function pg_current_logfile is not allowed (file access)"),
    # PostgreSQL: system views that read the server's configuration files
    ("postgres", "SELECT * FROM pg_hba_file_rules", "table pg_hba_file_rules is not allowed (file access)"),
    ("postgres", "SELECT * FROM pg_catalog.pg_file_settings", "table pg_file_settings is not allowed (file access)"),
    ("postgres", "SELECT * FROM pg_ident_file_mappings", "table pg_ident_file_mappings is not allowed (file access)"),
    # DuckDB table and scalar functions missing from the deny list
    ("duckdb", "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 42'))",
     "function json_execute_serialized_sql is not allowed (runs other SQL)"),
    ("duckdb", "SELECT sleep_ms(100000)", "function sleep_ms is not allowed (resource use)"),
    ("duckdb", "SELECT setseed(0.5)", "function setseed is not allowed (side effects)"),
    ("duckdb", "SELECT write_log('x')", "function write_log is not allowed (side effects)"),
    ("duckdb", "SELECT * FROM truncate_duckdb_logs()", "function truncate_duckdb_logs is not allowed (side effects)"),
    ("duckdb", "SELECT * FROM enable_logging()", "function enable_logging is not allowed (side effects)"),
    ("duckdb", "SELECT * FROM enable_profiling()", "function enable_profiling is not allowed (side effects)"),
    ("duckdb", "SELECT * FROM checkpoint()", "function checkpoint is not allowed (side effects)"),
    ("duckdb", "SELECT * FROM force_checkpoint()", "function force_checkpoint is not allowed (side effects)"),
    ("duckdb", "SELECT * FROM add_grammar_extension('x')", "function add_grammar_extension is not allowed (system access)"),
    ("duckdb", "SELECT * FROM create_external_resource('x')", "function create_external_resource is not allowed (system access)"),
    ("duckdb", "SELECT * FROM arrow_scan(1, 2, 3)", "function arrow_scan is not allowed (system access)"),
    ("duckdb", "SELECT * FROM pandas_scan(1)", "function pandas_scan is not allowed (system access)"),
    # SQLite: a PRAGMA with side effects, as a table function
    ("sqlite", "SELECT * FROM pragma_optimize", "table pragma_optimize is not allowed (side effects)"),
    ("sqlite", "SELECT * FROM pragma_optimize(0x10002)", "function pragma_optimize is not allowed (side effects)"),
    # Snowflake: sequences advance through column syntax; stage listings
    ("snowflake", "SELECT my_seq.NEXTVAL", "sequence call my_seq.NEXTVAL is not allowed (side effects)"),
    ("snowflake", "SELECT id, db.sch.s.nextval FROM t", "sequence call db.sch.s.nextval is not allowed (side effects)"),
    ("snowflake", "SELECT * FROM DIRECTORY(@my_stage)", "stage listing DIRECTORY(@my_stage) is not allowed (file access)"),
]


@pytest.mark.parametrize(("dialect", "sql", "message"), REFUSED)
def test_refuses_what_used_to_slip_through(dialect: str, sql: str, message: str) -> None:
    with pytest.raises(ReadOnlyViolation) as caught:
        check_read_only(sql, dialect)
    assert message in caught.value.message
    assert caught.value.code == "not_read_only"


# ---- the same, through the real executors --------------------------------------------------------

@pytest.fixture(scope="module")
def mysql_env() -> Iterator[tuple]:
    pymysql = pytest.importorskip("pymysql")
    from smq_db.executors.mysql import MySQLExecutor

    try:
        admin = pymysql.connect(**MYSQL, database="test", autocommit=True, connect_timeout=5)
    except pymysql.err.OperationalError as error:
        pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}:{MYSQL['port']}: {error}")
    with admin.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS smq_adv_items")
        cur.execute("CREATE TABLE smq_adv_items (id INT)")
        cur.execute("INSERT INTO smq_adv_items VALUES (1), (2)")
    executor = MySQLExecutor(**MYSQL, database="test", pool_size=1)  # one connection: session state would show
    yield executor, admin
    executor.close()
    with admin.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS smq_adv_items")
    admin.close()


def _mysql_value(admin, sql: str):
    with admin.cursor() as cur:
        cur.execute(sql)
        return cur.fetchone()[0]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT id /*!, LOAD_FILE('/etc/hostname') */ FROM smq_adv_items", EXECUTABLE),
        ("SELECT id /*M!, SLEEP(0.01) */ FROM smq_adv_items", EXECUTABLE),
        ("SELECT '\\' AS a, SLEEP(0.01) AS b, '' -- '", BACKSLASH_QUOTE),
    ],
)
def test_mysql_executable_comments_are_refused(mysql_env, sql: str, message: str) -> None:
    executor, _ = mysql_env
    with pytest.raises(ReadOnlyViolation, match=message.replace("(", r"\(").replace(")", r"\)")):
        executor.execute(sql)


def test_mysql_executable_comment_cannot_take_a_lock(mysql_env) -> None:
    executor, admin = mysql_env
    lock = f"smq_adv_lock_{os.getpid()}"
    with pytest.raises(ReadOnlyViolation, match="executable comment"):
        executor.execute(f"SELECT id /*!, GET_LOCK('{lock}', 0) */ FROM smq_adv_items")
    assert _mysql_value(admin, f"SELECT IS_USED_LOCK('{lock}')") is None  # nobody holds it


def test_mysql_executable_comment_cannot_write_a_file(mysql_env) -> None:
    executor, admin = mysql_env
    target = f"/tmp/smq_adv_outfile_{os.getpid()}.txt"
    with pytest.raises(ReadOnlyViolation, match="executable comment"):
        executor.execute(f"SELECT id FROM smq_adv_items /*! INTO OUTFILE '{target}' */")
    assert _mysql_value(admin, f"SELECT LOAD_FILE('{target}')") is None  # the server wrote no such file


def test_mysql_session_variables_cannot_be_set(mysql_env) -> None:
    executor, _ = mysql_env
    with pytest.raises(ReadOnlyViolation, match="assigning a variable"):
        executor.execute("SELECT @smq_adv := 42")
    with pytest.raises(ReadOnlyViolation, match="last_insert_id with arguments"):
        executor.execute("SELECT LAST_INSERT_ID(77)")
    # the (single) pooled session kept neither
    assert executor.execute("SELECT @smq_adv AS v, LAST_INSERT_ID() AS i").rows == [[None, 0]]


@pytest.fixture(scope="module")
def pg_env() -> Iterator[tuple]:
    psycopg = pytest.importorskip("psycopg")
    from smq_db.executors.postgres import PostgresExecutor

    try:
        admin = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {error}")
    schema = f"smq_adv_{os.getpid()}"
    admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    admin.execute(f"CREATE SCHEMA {schema}")
    admin.execute(f"CREATE TABLE {schema}.t (id int, v tsvector)")
    admin.execute(f"INSERT INTO {schema}.t SELECT g, to_tsvector('w' || g) FROM generate_series(1, 500) g")
    admin.execute(f"CREATE INDEX t_brin ON {schema}.t USING brin (id) WITH (pages_per_range = 1)")
    admin.execute(f"CREATE INDEX t_gin ON {schema}.t USING gin (v) WITH (fastupdate = on)")
    admin.execute(f"INSERT INTO {schema}.t SELECT g, to_tsvector('w' || g) FROM generate_series(501, 1000) g")
    executor = PostgresExecutor(PG_DSN, schema=schema, pool_size=1)
    yield executor, admin, schema
    executor.close()
    admin.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'smq_adv_slot'")
    admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    admin.close()


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        # read a server file through a query run by ts_stat / ts_rewrite, or a Unicode-escaped name
        ("SELECT * FROM ts_stat('SELECT to_tsvector(''simple'', pg_read_file(''/etc/hostname''))')", "function ts_stat"),
        ("SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, pg_read_file(''/etc/hostname'')::tsquery')",
         "function ts_rewrite"),
        ("SELECT U&\"pg\\005fread_file\"('/etc/hostname')", "function pg_read_file"),
        ("SELECT * FROM pg_file_settings", "table pg_file_settings"),
        ("SELECT * FROM pg_hba_file_rules", "table pg_hba_file_rules"),
        # non-transactional changes a READ ONLY transaction does not stop
        ("SELECT pg_stat_reset()", "function pg_stat_reset"),
        ("SELECT txid_current()", "function txid_current"),
        ("SELECT pg_log_backend_memory_contexts(pg_backend_pid())", "function pg_log_backend_memory_contexts"),
        ("SELECT setseed(0.5)", "function setseed"),
    ],
)
def test_postgres_harmful_functions_are_refused(pg_env, sql: str, message: str) -> None:
    executor, _, _ = pg_env
    with pytest.raises(ReadOnlyViolation, match=message):
        executor.execute(sql)


def test_postgres_index_maintenance_cannot_write(pg_env) -> None:
    executor, admin, schema = pg_env
    with pytest.raises(ReadOnlyViolation, match="brin_summarize_new_values"):
        executor.execute("SELECT brin_summarize_new_values('t_brin')")
    with pytest.raises(ReadOnlyViolation, match="gin_clean_pending_list"):
        executor.execute("SELECT gin_clean_pending_list('t_gin')")
    # the ranges the executor would have summarized are still there for the admin session to do
    assert admin.execute(f"SELECT brin_summarize_new_values('{schema}.t_brin')").fetchone()[0] > 0


def test_postgres_cannot_create_a_replication_slot(pg_env) -> None:
    executor, admin, _ = pg_env
    with pytest.raises(ReadOnlyViolation, match="pg_create_physical_replication_slot"):
        executor.execute("SELECT pg_create_physical_replication_slot('smq_adv_slot')")
    assert admin.execute("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'smq_adv_slot'").fetchone()[0] == 0


@pytest.fixture(scope="module")
def duck(tmp_path_factory: pytest.TempPathFactory):
    pytest.importorskip("duckdb")
    from smq_db.demo.build import build_duckdb
    from smq_db.executors.duckdb import DuckDBExecutor

    executor = DuckDBExecutor(build_duckdb(tmp_path_factory.mktemp("smq_adv_duck") / "demo.duckdb"))
    yield executor
    executor.close()


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 42 AS x'))", "json_execute_serialized_sql"),
        ("SELECT * FROM truncate_duckdb_logs()", "truncate_duckdb_logs"),
        ("SELECT write_log('smq_adv')", "write_log"),
        ("SELECT sleep_ms(10)", "sleep_ms"),
        ("SELECT setseed(0.5)", "setseed"),
        ("SELECT * FROM checkpoint()", "checkpoint"),
    ],
)
def test_duckdb_functions_that_ran_are_refused(duck, sql: str, message: str) -> None:
    with pytest.raises(ReadOnlyViolation, match=f"function {message} is not allowed"):
        duck.execute(sql)


def test_sqlite_pragma_optimize_is_refused(tmp_path: Path) -> None:
    from smq_db.demo.build import build_sqlite
    from smq_db.executors.sqlite import SqliteExecutor

    executor = SqliteExecutor(build_sqlite(tmp_path / "demo.sqlite"))
    try:
        with pytest.raises(ReadOnlyViolation, match="pragma_optimize is not allowed"):
            executor.execute("SELECT * FROM pragma_optimize")
    finally:
        executor.close()
