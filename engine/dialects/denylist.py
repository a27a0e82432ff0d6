"""Functions known to be dangerous inside an otherwise valid SELECT, kept as data in one place.

A SELECT can still read files, reach the network, run other SQL, sleep or take locks through
functions and table functions. Each entry names why; the reason is shown to the user ("function
read_csv is not allowed (file access)"). Names are lower case and compared case-insensitively,
whatever the dialect: a name denied for one engine is harmless to deny on another.

Raw SQL is held to an allow-list (engine/allowlist.py: deny by default); this list is what stays
refused for everything an executor runs (compiled SMQs and the tools' own queries too, through the
read-only guard smq_db/readonly.py), and the names no admin can add to a layer's allow-list.
"""

from __future__ import annotations

import re

FILE = "file access"
NETWORK = "network access"
DYNAMIC_SQL = "runs other SQL"
SIDE_EFFECT = "side effects"
RESOURCE = "resource use"
SYSTEM = "system access"

DENIED_FUNCTIONS: dict[str, str] = {
    # DuckDB readers and scanners (also as table functions: FROM read_csv('x'))
    "read_csv": FILE, "read_csv_auto": FILE, "read_parquet": FILE, "parquet_scan": FILE,
    "read_json": FILE, "read_json_auto": FILE, "read_json_objects": FILE, "read_ndjson": FILE,
    "read_ndjson_auto": FILE, "read_ndjson_objects": FILE, "read_text": FILE, "read_blob": FILE,
    "read_xlsx": FILE, "glob": FILE, "sniff_csv": FILE, "iceberg_scan": FILE, "delta_scan": FILE,
    "sqlite_scan": FILE, "sqlite_attach": FILE, "to_file": FILE,
    "postgres_scan": NETWORK, "postgres_attach": NETWORK, "postgres_query": NETWORK,
    "postgres_execute": NETWORK, "mysql_query": NETWORK, "mysql_execute": NETWORK,
    "http_get": NETWORK, "http_post": NETWORK, "load_aws_credentials": NETWORK,
    "query": DYNAMIC_SQL, "query_table": DYNAMIC_SQL, "getenv": SYSTEM,
    "duckdb_secrets": SYSTEM, "which_secret": SYSTEM,
    "json_execute_serialized_sql": DYNAMIC_SQL, "sleep_ms": RESOURCE, "setseed": SIDE_EFFECT,
    "write_log": SIDE_EFFECT, "truncate_duckdb_logs": SIDE_EFFECT, "enable_logging": SIDE_EFFECT,
    "disable_logging": SIDE_EFFECT, "enable_profiling": SIDE_EFFECT, "disable_profiling": SIDE_EFFECT,
    "checkpoint": SIDE_EFFECT, "force_checkpoint": SIDE_EFFECT,
    "add_grammar_extension": SYSTEM, "remove_grammar_extension": SYSTEM,
    "create_external_resource": SYSTEM, "register_external_resource": SYSTEM,
    "register_external_resource_type": SYSTEM, "destroy_external_resource": SYSTEM,
    "deregister_external_resource": SYSTEM,
    "arrow_scan": SYSTEM, "arrow_scan_dumb": SYSTEM, "pandas_scan": SYSTEM,  # raw memory addresses
    "python_arrow_scan": SYSTEM, "python_map_function": SYSTEM,
    # PostgreSQL
    "pg_read_file": FILE, "pg_read_binary_file": FILE, "pg_ls_dir": FILE, "pg_stat_file": FILE,
    "lo_import": FILE, "lo_export": FILE, "lo_from_bytea": SIDE_EFFECT, "lo_put": SIDE_EFFECT,
    "lo_create": SIDE_EFFECT, "lo_creat": SIDE_EFFECT, "lo_unlink": SIDE_EFFECT,
    "dblink": NETWORK, "dblink_exec": NETWORK, "dblink_connect": NETWORK,
    "dblink_send_query": NETWORK,
    "pg_sleep": RESOURCE, "pg_sleep_for": RESOURCE, "pg_sleep_until": RESOURCE,
    "query_to_xml": DYNAMIC_SQL, "query_to_xml_and_xmlschema": DYNAMIC_SQL,
    "query_to_xmlschema": DYNAMIC_SQL, "cursor_to_xml": DYNAMIC_SQL,
    "table_to_xml": DYNAMIC_SQL, "schema_to_xml": DYNAMIC_SQL, "database_to_xml": DYNAMIC_SQL,
    "set_config": SIDE_EFFECT, "nextval": SIDE_EFFECT, "setval": SIDE_EFFECT,
    "pg_notify": SIDE_EFFECT, "pg_terminate_backend": SYSTEM, "pg_cancel_backend": SYSTEM,
    "pg_reload_conf": SYSTEM, "pg_rotate_logfile": SYSTEM, "pg_switch_wal": SYSTEM,
    "pg_promote": SYSTEM, "pg_create_restore_point": SYSTEM, "pg_logical_emit_message": SIDE_EFFECT,
    "ts_stat": DYNAMIC_SQL, "ts_rewrite": DYNAMIC_SQL,  # both run a query given as text
    "loread": FILE, "lowrite": FILE, "pg_current_logfile": FILE,
    "txid_current": SIDE_EFFECT, "pg_current_xact_id": SIDE_EFFECT,  # assign a transaction id
    "brin_summarize_new_values": SIDE_EFFECT, "brin_summarize_range": SIDE_EFFECT,  # write index pages,
    "brin_desummarize_range": SIDE_EFFECT, "gin_clean_pending_list": SIDE_EFFECT,  # even read-only
    "pg_drop_replication_slot": SYSTEM, "pg_replication_slot_advance": SYSTEM,
    "pg_sync_replication_slots": SYSTEM, "pg_import_system_collations": SIDE_EFFECT,
    "pg_backup_start": SYSTEM, "pg_backup_stop": SYSTEM, "pg_start_backup": SYSTEM,
    "pg_stop_backup": SYSTEM, "pg_log_backend_memory_contexts": SYSTEM,
    "pg_prewarm": RESOURCE, "pg_truncate_visibility_map": SIDE_EFFECT,
    # MySQL / MariaDB
    "load_file": FILE, "sleep": RESOURCE, "benchmark": RESOURCE, "get_lock": SIDE_EFFECT,
    "release_lock": SIDE_EFFECT, "release_all_locks": SIDE_EFFECT, "sys_exec": SYSTEM,
    "sys_eval": SYSTEM, "master_pos_wait": RESOURCE, "source_pos_wait": RESOURCE,
    "sys_set": SYSTEM, "sys_get": SYSTEM, "master_gtid_wait": RESOURCE,
    "wait_for_executed_gtid_set": RESOURCE, "wait_until_sql_thread_after_gtids": RESOURCE,
    # SQLite (CLI / extension functions)
    "load_extension": SYSTEM, "readfile": FILE, "writefile": FILE, "edit": SYSTEM,
    "fsdir": FILE, "lsdir": FILE, "zipfile": FILE, "fts3_tokenizer": SYSTEM,
    "pragma_optimize": SIDE_EFFECT,  # PRAGMA optimize as a table function: may run ANALYZE
    # Snowflake
    "infer_schema": FILE, "get_presigned_url": FILE, "build_scoped_file_url": FILE,
    "build_stage_file_url": FILE, "get_stage_location": FILE, "result_scan": DYNAMIC_SQL,
    # BigQuery
    "external_query": NETWORK, "external_object_transform": FILE,
}

# Families denied by prefix: every member is dangerous and new ones keep appearing.
DENIED_PREFIXES: tuple[tuple[str, str], ...] = (
    ("read_", FILE),             # DuckDB readers (read_csv, read_xlsx, read_json_objects_auto ...)
    ("parquet_", FILE),          # parquet_scan, parquet_metadata, parquet_schema ...
    ("pg_ls_", FILE),            # pg_ls_dir, pg_ls_logdir, pg_ls_waldir, pg_ls_tmpdir ...
    ("pg_read_", FILE),
    ("pg_file_", FILE),          # adminpack: pg_file_write, pg_file_rename, pg_file_unlink
    ("lo_", FILE),               # PostgreSQL large objects
    ("dblink", NETWORK),
    ("pg_advisory", SIDE_EFFECT),
    ("pg_try_advisory", SIDE_EFFECT),
    ("system$", SYSTEM),         # Snowflake SYSTEM$WAIT, SYSTEM$... functions
    ("query_to_xml", DYNAMIC_SQL),  # query_to_xml, _and_xmlschema, query_to_xmlschema
    ("cursor_to_xml", DYNAMIC_SQL),
    ("table_to_xml", DYNAMIC_SQL),  # table_to_xml[_and_xmlschema] runs SELECT * FROM the table
    ("schema_to_xml", DYNAMIC_SQL),
    ("database_to_xml", DYNAMIC_SQL),
    ("pg_stat_reset", SIDE_EFFECT),  # pg_stat_reset, _shared, _single_table_counters, _slru ...
    ("pg_stat_statements_reset", SIDE_EFFECT),
    ("pg_create_", SYSTEM),      # replication slots, restore points
    ("pg_copy_", SYSTEM),        # pg_copy_logical_replication_slot ...
    ("pg_replication_origin_", SYSTEM),
    ("pg_logical_slot_", SYSTEM),  # pg_logical_slot_get_changes consumes the slot
    ("pg_wal_replay_", SYSTEM),  # pg_wal_replay_pause / _resume
    ("pg_restore_", SIDE_EFFECT),  # PostgreSQL 18: pg_restore_relation_stats ... write statistics
    ("pg_clear_", SIDE_EFFECT),    # pg_clear_relation_stats, pg_clear_attribute_stats
)

# Functions that are harmless reads without arguments but change session state with them.
DENIED_WITH_ARGUMENTS: dict[str, str] = {
    "last_insert_id": SIDE_EFFECT,  # MySQL LAST_INSERT_ID(expr) sets the value the session reports
}

# Tables and views that read server files (PostgreSQL's configuration files) or act like a
# function call (SQLite runs a PRAGMA for FROM pragma_<name>).
DENIED_TABLES: dict[str, str] = {
    "pg_hba_file_rules": FILE, "pg_ident_file_mappings": FILE, "pg_file_settings": FILE,
    "pragma_optimize": SIDE_EFFECT,  # SQLite: FROM pragma_optimize runs PRAGMA optimize
}

# A table name that is really a file or URL: DuckDB's replacement scans read `FROM 'x.csv'`
# (sqlglot turns the string into a quoted identifier), and Snowflake's `FROM @stage/path`.
FILE_LIKE_TABLE = re.compile(
    r"[/\\*?]|://|^@|^~|\.(csv|tsv|txt|parquet|json|jsonl|ndjson|gz|zst|xlsx?|arrow|avro|orc"
    r"|db|duckdb|sqlite3?)$",
    re.IGNORECASE,
)


def denied_function_reason(name: str) -> str | None:
    """Why a function (or table function) of that name is refused, or None when it is allowed."""
    lowered = name.lower()
    if lowered in DENIED_FUNCTIONS:
        return DENIED_FUNCTIONS[lowered]
    for prefix, reason in DENIED_PREFIXES:
        if lowered.startswith(prefix):
            return reason
    return None


def _engine_denied(dialect: str | None) -> dict[str, str]:
    """What one engine refuses besides the common list (engine/dialects/<engine>.py `denied_functions`)."""
    from . import dialect as dialect_of, find

    return dict(dialect_of(dialect).denied_functions) if dialect and find(dialect) is not None else {}


def why_not_allowable(name: str, dialect: str | None = None) -> str | None:
    """Why an admin may not add `name` to a layer's allow-list (a known dangerous function), else None."""
    reason = denied_function_reason(name) or (_engine_denied(dialect).get(name.lower()))
    return f"function {name.lower()} cannot be allowed ({reason})" if reason else None
