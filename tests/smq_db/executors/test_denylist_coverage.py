"""Every dangerous function the read-only guard knows must be refused: one case per name.

Two sources, so that no entry can go unnoticed:
- the guard's own data (engine/dialects/denylist.py: every function name, and a made-up member of every
  prefix family), so a name added there is tested the day it is added;
- ALWAYS_REFUSED, ALWAYS_REFUSED_FAMILIES and ALWAYS_REFUSED_TABLES below, written out by hand: what
  must stay refused whatever the guard's data becomes (removing an entry that nothing else covers from
  the deny list, or allowing one in a future allow-list, fails here).

Each case writes the call as a scalar function and as a table function, in every dialect: nowhere
may it pass, and at least once it must be refused by name (a syntax error alone proves nothing).
"""

from __future__ import annotations

import pytest

from engine.dialects import denylist
from smq_db.executors import ReadOnlyViolation, SqlSyntaxError
from smq_db.readonly import check_read_only

DIALECTS = ("duckdb", "postgres", "mysql", "sqlite", "snowflake", "bigquery")

ALWAYS_REFUSED = (
    # files
    "read_csv", "read_csv_auto", "read_parquet", "parquet_scan", "parquet_metadata", "read_json", "read_json_auto",
    "read_json_objects", "read_json_objects_auto", "read_ndjson", "read_ndjson_auto", "read_ndjson_objects",
    "read_text", "read_blob", "read_xlsx", "glob", "sniff_csv", "iceberg_scan", "delta_scan", "sqlite_scan",
    "sqlite_attach", "to_file", "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_ls_logdir", "pg_ls_waldir",
    "pg_stat_file", "pg_file_write", "pg_file_unlink", "pg_current_logfile", "lo_import", "lo_export", "lo_get",
    "loread", "lowrite", "load_file", "readfile", "writefile", "fsdir", "lsdir", "zipfile", "infer_schema",
    "get_presigned_url", "build_scoped_file_url", "build_stage_file_url", "get_stage_location",
    "external_object_transform",
    # network
    "postgres_scan", "postgres_attach", "postgres_query", "postgres_execute", "mysql_query", "mysql_execute",
    "http_get", "http_post", "load_aws_credentials", "dblink", "dblink_exec", "dblink_connect", "dblink_send_query",
    "dblink_get_result", "external_query",
    # running other SQL
    "query", "query_table", "json_execute_serialized_sql", "query_to_xml", "query_to_xml_and_xmlschema",
    "query_to_xmlschema", "cursor_to_xml", "cursor_to_xmlschema", "table_to_xml", "table_to_xml_and_xmlschema",
    "schema_to_xml", "schema_to_xmlschema", "database_to_xml", "database_to_xmlschema", "ts_stat", "ts_rewrite",
    "result_scan",
    # side effects, locks, sequences, transaction ids
    "setseed", "write_log", "truncate_duckdb_logs", "enable_logging", "disable_logging", "enable_profiling",
    "disable_profiling", "checkpoint", "force_checkpoint", "lo_from_bytea", "lo_put", "lo_create", "lo_creat",
    "lo_unlink", "set_config", "nextval", "setval", "pg_notify", "pg_logical_emit_message", "txid_current",
    "pg_current_xact_id", "brin_summarize_new_values", "brin_summarize_range", "brin_desummarize_range",
    "gin_clean_pending_list", "pg_import_system_collations", "pg_truncate_visibility_map", "pg_advisory_lock",
    "pg_advisory_xact_lock", "pg_advisory_unlock_all", "pg_try_advisory_lock", "pg_try_advisory_xact_lock",
    "pg_stat_reset", "pg_stat_reset_shared", "pg_stat_statements_reset", "pg_restore_relation_stats",
    "pg_clear_relation_stats", "get_lock", "release_lock", "release_all_locks", "pragma_optimize",
    # resources
    "sleep_ms", "pg_sleep", "pg_sleep_for", "pg_sleep_until", "pg_prewarm", "sleep", "benchmark", "master_pos_wait",
    "source_pos_wait", "master_gtid_wait", "wait_for_executed_gtid_set", "wait_until_sql_thread_after_gtids",
    # the system
    "getenv", "duckdb_secrets", "which_secret", "add_grammar_extension", "remove_grammar_extension",
    "create_external_resource", "register_external_resource", "register_external_resource_type",
    "destroy_external_resource", "deregister_external_resource", "arrow_scan", "arrow_scan_dumb", "pandas_scan",
    "python_arrow_scan", "python_map_function", "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf",
    "pg_rotate_logfile", "pg_switch_wal", "pg_promote", "pg_create_restore_point", "pg_create_logical_replication_slot",
    "pg_copy_logical_replication_slot", "pg_drop_replication_slot", "pg_replication_slot_advance",
    "pg_sync_replication_slots", "pg_replication_origin_create", "pg_logical_slot_get_changes", "pg_wal_replay_pause",
    "pg_backup_start", "pg_backup_stop", "pg_start_backup", "pg_stop_backup", "pg_log_backend_memory_contexts",
    "sys_exec", "sys_eval", "sys_set", "sys_get", "load_extension", "edit", "fts3_tokenizer", "system$wait",
    "system$get_predecessor_return_value",
)
# families: every present and future member is refused (tested with a made-up member)
ALWAYS_REFUSED_FAMILIES = (
    "read_", "parquet_", "pg_ls_", "pg_read_", "pg_file_", "lo_", "dblink", "pg_advisory", "pg_try_advisory",
    "system$", "query_to_xml", "cursor_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml", "pg_stat_reset",
    "pg_stat_statements_reset", "pg_create_", "pg_copy_", "pg_replication_origin_", "pg_logical_slot_",
    "pg_wal_replay_", "pg_restore_", "pg_clear_",
)
ALWAYS_REFUSED_TABLES = ("pg_hba_file_rules", "pg_ident_file_mappings", "pg_file_settings", "pragma_optimize")


def member(family: str) -> str:
    return family + "smq_probe"


def _module_names() -> list[str]:
    """The guard's own list: every denied name, and a made-up member of every denied prefix."""
    return [*denylist.DENIED_FUNCTIONS, *(member(prefix) for prefix, _ in denylist.DENIED_PREFIXES)]


FUNCTIONS = sorted({*ALWAYS_REFUSED, *map(member, ALWAYS_REFUSED_FAMILIES), *_module_names()})
TABLES = sorted({*ALWAYS_REFUSED_TABLES, *denylist.DENIED_TABLES})


def test_the_explicit_list_covers_every_entry_of_the_guard_today() -> None:
    """A name may leave the guard's data only by being covered otherwise; ALWAYS_REFUSED keeps it tested."""
    assert set(denylist.DENIED_FUNCTIONS) <= set(ALWAYS_REFUSED)
    assert {prefix for prefix, _ in denylist.DENIED_PREFIXES} <= set(ALWAYS_REFUSED_FAMILIES)
    assert set(denylist.DENIED_TABLES) <= set(ALWAYS_REFUSED_TABLES)


def _refusals(sqls: list[str]) -> list[str]:
    """The refusal messages; fails the test when any dialect runs one of the statements."""
    messages = []
    for dialect in DIALECTS:
        for sql in sqls:
            try:
                check_read_only(sql, dialect)
            except ReadOnlyViolation as refused:
                messages.append(refused.message)
            except SqlSyntaxError:
                continue  # this dialect cannot even parse it: refused, but not by name
            else:
                pytest.fail(f"{dialect} lets through: {sql}")
    return messages


@pytest.mark.parametrize("name", FUNCTIONS)
def test_dangerous_function_is_refused(name: str) -> None:
    messages = _refusals([f"SELECT {name}('x')", f"SELECT * FROM {name}('x')", f"SELECT {name}()"])
    assert any(f"{name} is not allowed" in m for m in messages), (name, messages)


@pytest.mark.parametrize("table", TABLES)
def test_dangerous_table_is_refused(table: str) -> None:
    messages = _refusals([f"SELECT * FROM {table}", f"SELECT a.* FROM {table} AS a"])
    assert any(f"table {table} is not allowed" in m for m in messages), (table, messages)


@pytest.mark.parametrize("name", sorted(denylist.DENIED_WITH_ARGUMENTS))
def test_function_with_arguments_is_refused(name: str) -> None:
    messages = _refusals([f"SELECT {name}(1)"])
    assert any(f"{name} with arguments is not allowed" in m for m in messages), (name, messages)
    check_read_only(f"SELECT {name}()", "mysql")  # without arguments it only reads
