"""The Trino executor through the real ``trino`` client against a local fake coordinator (fake_trino.py)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("trino")

from smq_db.executors.errors import BackendUnavailable, ExecutionError, QueryTimeout, ReadOnlyViolation  # noqa: E402
from smq_db.executors.factory import create_executor  # noqa: E402
from smq_db.executors.trino import TrinoExecutor  # noqa: E402

from .fake_trino import FakeTrino  # noqa: E402

SETUP = [
    "CREATE TABLE items (id INTEGER, name VARCHAR, day DATE, price DECIMAL(10, 2))",
    "INSERT INTO items VALUES (1, 'apple', DATE '2024-01-31', 12.50), (2, 'pear', DATE '2024-02-29', 0.10), (3, 'fig', NULL, NULL)",
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeTrino]:
    server = FakeTrino(SETUP)
    yield server
    server.close()


@pytest.fixture
def executor(fake: FakeTrino) -> TrinoExecutor:
    return create_executor({"backend": "trino", "host": "127.0.0.1", "port": fake.port, "user": "analyst",
                            "catalog": "memory", "schema": "shop"}, base_dir=Path("."))  # type: ignore[return-value]


def test_rows_come_back_typed_and_json_safe(executor: TrinoExecutor) -> None:
    result = executor.execute("SELECT id, name, day, price FROM items ORDER BY id")
    assert result.columns == ["id", "name", "day", "price"]
    assert result.rows[0] == [1, "apple", "2024-01-31", 12.5]
    assert result.rows[2] == [3, "fig", None, None]
    assert not result.truncated
    assert [t.split("(")[0] for t in result.column_types or []] == ["integer", "varchar", "date", "decimal"]


def test_the_session_carries_user_catalog_schema_and_time_limit(executor: TrinoExecutor, fake: FakeTrino) -> None:
    executor.execute("SELECT 1 AS x", timeout_s=7.2)
    method, _, headers = [r for r in fake.requests if r[0] == "POST"][-1]
    lowered = {k.lower(): v for k, v in headers.items()}
    assert lowered["x-trino-user"] == "analyst"
    assert lowered["x-trino-catalog"] == "memory" and lowered["x-trino-schema"] == "shop"
    assert "query_max_execution_time=8s" in lowered["x-trino-session"]


def test_row_cap_truncates_and_cancels_the_rest(executor: TrinoExecutor) -> None:
    result = executor.execute("SELECT id FROM items ORDER BY id", max_rows=2)
    assert result.rows == [[1], [2]] and result.truncated


def test_engine_error_is_an_execution_error_with_trinos_words(executor: TrinoExecutor) -> None:
    with pytest.raises(ExecutionError) as caught:
        executor.execute("SELECT * FROM ordrs")
    assert caught.value.code == "execution_failed"
    assert "TABLE_NOT_FOUND" in caught.value.message and "ordrs" in caught.value.message


def test_writes_are_refused_before_anything_reaches_trino(executor: TrinoExecutor, fake: FakeTrino) -> None:
    before = len(fake.requests)
    with pytest.raises(ReadOnlyViolation):
        executor.execute("DELETE FROM items")
    assert len(fake.requests) == before


def test_a_query_past_its_timeout_is_cancelled_on_the_coordinator(executor: TrinoExecutor, fake: FakeTrino) -> None:
    with pytest.raises(QueryTimeout) as caught:
        executor.execute("SELECT * FROM slow_table", timeout_s=0.3)
    assert caught.value.code == "query_timeout"
    assert any(method == "DELETE" for method, _, _ in fake.requests), "the client sent DELETE on nextUri"


def test_an_unreachable_coordinator_is_backend_unavailable() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    executor = TrinoExecutor(host="127.0.0.1", port=port, request_timeout_s=2)
    with pytest.raises(BackendUnavailable) as caught:
        executor.execute("SELECT 1")
    assert caught.value.code == "backend_unavailable"
