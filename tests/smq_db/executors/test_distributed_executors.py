"""ClickHouse, Spark Connect and Databricks executors: what runs without a server.

Their drivers are real; no server is reachable here, so these tests cover the parts that hold
before the network (configuration errors, the guard, the limits sent as settings) and a refused
connection. docs/dialects.md lists what is not tested.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from smq_db.executors import ConfigError, create_executor
from smq_db.executors.errors import BackendUnavailable, ReadOnlyViolation


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("backend, missing", [("clickhouse", "host"), ("trino", "host"), ("spark", "url"),
                                              ("databricks", "server_hostname")])
def test_a_missing_connection_key_is_named(backend: str, missing: str) -> None:
    with pytest.raises(ConfigError) as caught:
        create_executor({"backend": backend}, base_dir=Path("."))
    assert caught.value.code == "invalid_connection" and f"connection.{missing}" in caught.value.message


def test_spark_connect_wants_an_sc_url() -> None:
    pytest.importorskip("pyspark")
    with pytest.raises(ConfigError, match="sc://host:15002"):
        create_executor({"backend": "spark", "url": "http://spark:15002"}, base_dir=Path("."))


@pytest.mark.parametrize("connection", [
    {"backend": "clickhouse", "host": "127.0.0.1"},
    {"backend": "spark", "url": "sc://127.0.0.1:1"},
    {"backend": "databricks", "server_hostname": "x", "http_path": "/sql/1.0/warehouses/x", "access_token": "t"},
], ids=["clickhouse", "spark", "databricks"])
def test_writes_are_refused_before_connecting(connection: dict) -> None:
    pytest.importorskip({"clickhouse": "clickhouse_connect", "spark": "pyspark", "databricks": "databricks.sql"}[connection["backend"]])
    executor = create_executor(connection, base_dir=Path("."))
    with pytest.raises(ReadOnlyViolation):
        executor.execute("INSERT INTO t SELECT 1")
    executor.close()


def test_clickhouse_limits_are_server_settings() -> None:
    from smq_db.executors.clickhouse import query_settings

    settings = query_settings(max_rows=100, timeout_s=2.5, max_result_bytes=1000)
    assert settings == {"readonly": 1, "max_execution_time": 3, "max_result_rows": 101, "max_result_bytes": 1000,
                        "result_overflow_mode": "break", "join_use_nulls": 1}


def test_clickhouse_unreachable_is_backend_unavailable() -> None:
    pytest.importorskip("clickhouse_connect")
    executor = create_executor({"backend": "clickhouse", "host": "127.0.0.1", "port": _closed_port(), "connect_timeout": 2},
                               base_dir=Path("."))
    with pytest.raises(BackendUnavailable) as caught:
        executor.execute("SELECT 1")
    assert caught.value.code == "backend_unavailable"


@pytest.mark.parametrize("sql, dialect", [
    ("SELECT * FROM url('http://169.254.169.254/latest', CSV)", "clickhouse"),
    ("SELECT * FROM file('/etc/passwd', CSV)", "clickhouse"),
    ("SELECT * FROM s3('https://bucket/x.parquet')", "clickhouse"),
    ("SELECT * FROM remote('other:9000', db.t)", "clickhouse"),
    ("SELECT * FROM executable('x.sh', CSV, 'a Int32')", "clickhouse"),
    ("SELECT 1 SETTINGS max_execution_time = 0", "clickhouse"),
    ("SELECT reflect('java.lang.Runtime', 'getRuntime')", "spark"),
    ("SELECT java_method('java.lang.System', 'exit', 0)", "databricks"),
])
def test_engine_specific_escapes_are_refused(sql: str, dialect: str) -> None:
    from smq_db.unsafe_functions import refuse_unsafe

    with pytest.raises(ReadOnlyViolation) as caught:
        refuse_unsafe(sql, dialect)
    assert caught.value.code == "not_read_only"


def test_compiled_sql_passes_the_engine_specific_check() -> None:
    from engine import load_layers
    from smq_db.unsafe_functions import refuse_unsafe

    from ...conftest import DEMO_MODELS

    shop = load_layers(DEMO_MODELS)["shop"]
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country", "OrdersModel__orderDate__week"]}
    for dialect in ("clickhouse", "spark", "databricks"):
        refuse_unsafe(shop.compile(smq, dialect=dialect), dialect)
