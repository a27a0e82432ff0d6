"""A result budget caps the rows' JSON bytes and keeps their conversion inside the query's timeout, on every backend.

`max_rows` alone let one 200 MB cell through, and ten million small rows were converted long after
the database had finished within its timeout.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest

from smq_db.executors import QueryTimeout
from smq_db.executors.base import BUDGET_CHUNK_ROWS, ResultTooLarge, make_result, result_budget

from .conftest import Backend

NAMES = "SELECT name FROM items ORDER BY id"  # [["apple"],["pear"],["fig"]]: 29 bytes of JSON


def test_rows_over_the_byte_cap_are_refused(backend: Backend) -> None:
    with result_budget(max_bytes=20, timeout_s=30), pytest.raises(ResultTooLarge) as caught:
        backend.executor.execute(NAMES, max_rows=10, timeout_s=30)
    assert caught.value.code == "result_too_large" and "20 bytes" in caught.value.message
    assert "`limit` and `offset`" in caught.value.message


def test_rows_under_the_byte_cap_are_unchanged(backend: Backend) -> None:
    plain = backend.executor.execute(NAMES, max_rows=10, timeout_s=30)
    with result_budget(max_bytes=29, timeout_s=30):
        capped = backend.executor.execute(NAMES, max_rows=10, timeout_s=30)
    assert capped.rows == plain.rows == [["apple"], ["pear"], ["fig"]]


def test_converting_rows_counts_against_the_timeout(backend: Backend) -> None:
    with result_budget(max_bytes=None, timeout_s=-1), pytest.raises(QueryTimeout, match="still being converted"):
        backend.executor.execute(NAMES, max_rows=10, timeout_s=30)  # the database is quick; the budget is spent
    assert backend.executor.execute(NAMES, max_rows=10, timeout_s=30).row_count == 3  # no budget outside the block


def test_the_cap_stops_conversion_at_the_first_chunk_over_it() -> None:
    rows = [(dt.date(2024, 1, 1), "x" * 100)] * (BUDGET_CHUNK_ROWS * 50)
    with result_budget(max_bytes=50_000, timeout_s=30), pytest.raises(ResultTooLarge) as caught:
        make_result(["day", "text"], rows, len(rows), time.perf_counter())
    assert f"rows 1-{BUDGET_CHUNK_ROWS:,} of {len(rows):,}" in caught.value.message


def test_the_byte_count_is_the_json_of_the_rows() -> None:
    rows = [(i, f"name {i}", dt.date(2024, 1, 1)) for i in range(3 * BUDGET_CHUNK_ROWS + 7)]
    exact = len(__import__("json").dumps(make_result(["a", "b", "c"], rows, len(rows), 0.0).rows, separators=(",", ":")))
    with result_budget(max_bytes=exact, timeout_s=30):
        assert make_result(["a", "b", "c"], rows, len(rows), 0.0).row_count == len(rows)
    with result_budget(max_bytes=exact - 1, timeout_s=30), pytest.raises(ResultTooLarge):
        make_result(["a", "b", "c"], rows, len(rows), 0.0)
