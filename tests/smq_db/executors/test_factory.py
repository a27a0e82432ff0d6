"""create_executor from database.yml connection mappings, and the Spider2 routing table."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from smq_db.executors import ConfigError, create_executor, route_instance
from smq_db.executors.errors import BackendUnavailable
from smq_db.executors.factory import expand_env

from .conftest import MYSQL, PG_DSN


@pytest.fixture()
def sqlite_file(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    path = tmp_path / "data" / "shop.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (a INTEGER)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    conn.close()
    return path


def test_file_paths_are_relative_to_the_layer_folder(tmp_path: Path, sqlite_file: Path) -> None:
    executor = create_executor({"backend": "sqlite", "path": "data/shop.sqlite", "demo": True}, base_dir=tmp_path, dialect="sqlite")
    try:
        assert executor.backend == "sqlite" and executor.dialect == "sqlite"
        assert executor.execute("SELECT a FROM t").rows == [[1]]
    finally:
        executor.close()


def test_env_vars_are_expanded(tmp_path: Path, sqlite_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SMQ_TEST_DATA_DIR", "data")
    executor = create_executor({"backend": "sqlite", "path": "${SMQ_TEST_DATA_DIR}/shop.sqlite"}, base_dir=tmp_path, dialect="sqlite")
    try:
        assert executor.execute("SELECT count(*) FROM t").rows == [[1]]
    finally:
        executor.close()
    nested = expand_env({"a": ["x-${SMQ_TEST_DATA_DIR}"], "b": {"c": "${SMQ_TEST_DATA_DIR}"}, "n": 3})
    assert nested == {"a": ["x-data"], "b": {"c": "data"}, "n": 3}


def test_missing_env_var_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMQ_SURELY_UNSET", raising=False)
    with pytest.raises(ConfigError) as caught:
        create_executor({"backend": "postgres", "password": "${SMQ_SURELY_UNSET}"}, base_dir=tmp_path, dialect="postgres")
    assert "environment variable SMQ_SURELY_UNSET is not set (used in connection.password)" in caught.value.message


def test_unknown_backend_lists_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        create_executor({"backend": "postgress"}, base_dir=tmp_path, dialect="postgres")
    error = caught.value
    assert "unknown backend 'postgress'" in error.message
    assert "sqlite, duckdb, postgres, mysql, snowflake, bigquery" in error.message
    assert error.suggestions == ("postgres",)
    assert error.location.field == "connection.backend"


def test_file_backend_needs_a_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"connection.path is required for the duckdb backend"):
        create_executor({"backend": "duckdb"}, base_dir=tmp_path, dialect="duckdb")


def test_missing_database_file_is_backend_unavailable(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match="SQLite database file not found"):
        create_executor({"backend": "sqlite", "path": "nope.sqlite"}, base_dir=tmp_path, dialect="sqlite")


def test_postgres_from_keys_with_schema(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    settings = dict(part.split("=", 1) for part in PG_DSN.split())
    connection = {"backend": "postgres", "host": settings["host"], "port": int(settings["port"]), "user": settings["user"],
                  "database": settings["dbname"], "schema": "smq_exec_test", "pool_size": 2}
    executor = create_executor(connection, base_dir=tmp_path, dialect="postgres")
    try:
        result = executor.execute("SELECT current_setting('search_path') AS path, current_setting('transaction_read_only') AS ro")
    except BackendUnavailable as error:
        pytest.skip(f"PostgreSQL not reachable: {error.message}")
    finally:
        executor.close()
    assert result.rows == [["smq_exec_test", "on"]]


def test_postgres_unreachable_is_backend_unavailable(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    executor = create_executor({"backend": "postgresql", "url": "postgresql://postgres@127.0.0.1:1/test", "connect_timeout": 2},
                               base_dir=tmp_path, dialect="postgres")
    try:
        with pytest.raises(BackendUnavailable) as caught:
            executor.execute("SELECT 1")
    finally:
        executor.close()
    assert "cannot connect to PostgreSQL" in caught.value.message and "refused" in caught.value.message


def test_mysql_from_url(tmp_path: Path) -> None:
    pytest.importorskip("pymysql")
    url = f"mysql://{MYSQL['user']}@{MYSQL['host']}:{MYSQL['port']}/information_schema"
    executor = create_executor({"backend": "mariadb", "url": url}, base_dir=tmp_path, dialect="mysql")
    try:
        result = executor.execute("SELECT DATABASE() AS db")
    except BackendUnavailable as error:
        pytest.skip(f"MariaDB/MySQL not reachable: {error.message}")
    finally:
        executor.close()
    assert result.rows == [["information_schema"]]


def test_mysql_unreachable_is_backend_unavailable(tmp_path: Path) -> None:
    pytest.importorskip("pymysql")
    executor = create_executor({"backend": "mysql", "host": "127.0.0.1", "port": 1, "user": "root", "connect_timeout": 2},
                               base_dir=tmp_path, dialect="mysql")
    with pytest.raises(BackendUnavailable, match=r"cannot connect to MySQL/MariaDB at 127.0.0.1:1"):
        executor.execute("SELECT 1")
    executor.close()


def test_snowflake_settings_come_from_the_mapping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("snowflake.connector")
    monkeypatch.setenv("SMQ_TEST_SF_PASSWORD", "s3cret")
    connection = {"backend": "snowflake", "account": "acme-xy123", "user": "svc", "password": "${SMQ_TEST_SF_PASSWORD}",
                  "warehouse": "WH", "database": "DB", "schema": "PUBLIC", "role": "SMQ_READER",
                  "private_key_path": "keys/rsa.p8", "demo": "ignored"}
    executor = create_executor(connection, base_dir=tmp_path, dialect="snowflake")
    kwargs = executor._kwargs  # type: ignore[attr-defined]
    assert kwargs["password"] == "s3cret" and kwargs["role"] == "SMQ_READER" and kwargs["warehouse"] == "WH"
    assert kwargs["private_key_file"] == str(tmp_path / "keys" / "rsa.p8")
    assert kwargs["session_parameters"]["STATEMENT_TIMEOUT_IN_SECONDS"] == 3600
    assert "demo" not in kwargs and "backend" not in kwargs
    executor.close()


def _service_account_file(path: Path) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    path.write_text(json.dumps({"type": "service_account", "project_id": "key-project", "private_key_id": "1", "private_key": pem,
                                "client_email": "svc@key-project.iam.gserviceaccount.com", "client_id": "1",
                                "token_uri": "https://oauth2.googleapis.com/token"}))
    return path


def test_bigquery_client_from_a_key_file_without_network(tmp_path: Path) -> None:
    pytest.importorskip("google.cloud.bigquery")
    pytest.importorskip("cryptography")
    _service_account_file(tmp_path / "sa.json")
    connection = {"backend": "bigquery", "project": "my-project", "location": "EU", "credentials_path": "sa.json",
                  "maximum_bytes_billed": "1000000000"}
    executor = create_executor(connection, base_dir=tmp_path, dialect="bigquery")
    client = executor._client  # type: ignore[attr-defined]
    assert client.project == "my-project" and client.location == "EU"
    assert executor.maximum_bytes_billed == 1_000_000_000  # type: ignore[attr-defined]
    assert client._credentials.service_account_email == "svc@key-project.iam.gserviceaccount.com"


def test_bigquery_without_the_library_names_the_pip_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.cloud.bigquery", None)  # makes the import fail
    with pytest.raises(BackendUnavailable) as caught:
        create_executor({"backend": "bigquery", "project": "p"}, base_dir=tmp_path, dialect="bigquery")
    assert "pip install google-cloud-bigquery" in caught.value.message


@pytest.mark.parametrize(
    ("instance_id", "backend"),
    [("local001", "sqlite"), ("local123", "sqlite"), ("bq011", "bigquery"), ("ga004", "bigquery"),
     ("sf001", "snowflake"), ("sf_bq007", "snowflake"), ("sf_local002", "snowflake"), ("LOCAL042", "sqlite")],
)
def test_route_instance(instance_id: str, backend: str) -> None:
    assert route_instance(instance_id) == backend


def test_route_instance_unknown_lists_prefixes() -> None:
    with pytest.raises(ConfigError) as caught:
        route_instance("xyz001")
    assert "sf* -> snowflake, local* -> sqlite, bq* -> bigquery, ga* -> bigquery" in caught.value.message
