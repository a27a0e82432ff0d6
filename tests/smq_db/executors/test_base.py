"""JSON-safe values, result capping, trailing-semicolon stripping, the cancel timer and the pool."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
import uuid
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from smq_db.executors.base import CancelTimer, check_limits, import_driver, json_safe_rows, make_result, strip_trailing_semicolons, to_json_value
from smq_db.executors.errors import BackendUnavailable
from smq_db.executors.pool import SimplePool


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (True, True),
        (False, False),
        (7, 7),
        (2**70, 2**70),
        ("text", "text"),
        (1.5, 1.5),
        (float("nan"), None),
        (float("inf"), None),
        (Decimal("12.50"), 12.5),
        (Decimal("12"), 12),
        (Decimal("123456789012345678901234567890"), 123456789012345678901234567890),
        (Decimal("NaN"), None),
        (Decimal("-Infinity"), None),
        (dt.date(2024, 2, 29), "2024-02-29"),
        (dt.datetime(2024, 1, 31, 12, 30), "2024-01-31T12:30:00"),
        (dt.datetime(2024, 1, 31, 12, 30, tzinfo=dt.UTC), "2024-01-31T12:30:00+00:00"),
        (dt.time(8, 5, 1), "08:05:01"),
        (dt.timedelta(days=1, hours=2, minutes=3, seconds=4.5), "P1DT2H3M4.5S"),
        (dt.timedelta(0), "PT0S"),
        (dt.timedelta(hours=-1), "-PT1H"),
        (b"\x00\xffhi", "AP9oaQ=="),
        (memoryview(b"ab"), "YWI="),
        (uuid.UUID("12345678-1234-5678-1234-567812345678"), "12345678-1234-5678-1234-567812345678"),
        ([1, Decimal("2.5"), None], [1, 2.5, None]),
        ({"a": dt.date(2024, 1, 1), 1: b"x"}, {"a": "2024-01-01", "1": "eA=="}),
    ],
)
def test_to_json_value(value: object, expected: object) -> None:
    converted = to_json_value(value)
    assert converted == expected and type(converted) is type(expected)
    json.dumps(converted)


def test_make_result_caps_and_converts() -> None:
    result = make_result(["d"], [[dt.date(2024, 1, 1)], [dt.date(2024, 1, 2)], [dt.date(2024, 1, 3)]], 2, time.perf_counter())
    assert result.rows == [["2024-01-01"], ["2024-01-02"]]
    assert result.truncated and result.row_count == 2
    assert make_result(["x"], [[1]], 0, time.perf_counter()).truncated  # max_rows=0: only "are there rows?"


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="max_rows"):
        check_limits(-1, 1)
    with pytest.raises(ValueError, match="timeout_s"):
        check_limits(10, 0)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1", "SELECT 1"),
        ("SELECT 1;", "SELECT 1"),
        ("SELECT 1 ;  -- done\n", "SELECT 1"),
        ("SELECT ';' AS s ; ;", "SELECT ';' AS s"),
        ("SELECT '%{x}' AS s", "SELECT '%{x}' AS s"),
    ],
)
def test_strip_trailing_semicolons(sql: str, expected: str) -> None:
    assert strip_trailing_semicolons(sql, "postgres") == expected


def test_cancel_timer_fires_only_while_running() -> None:
    calls: list[int] = []
    with CancelTimer(0.05, lambda: calls.append(1)) as timer:
        time.sleep(0.2)
    assert timer.fired and calls == [1]
    with CancelTimer(0.05, lambda: calls.append(2)) as quick:
        pass
    time.sleep(0.1)
    assert not quick.fired and calls == [1]  # never lands on the next query


def test_missing_driver_names_the_pip_command() -> None:
    with pytest.raises(BackendUnavailable) as caught:
        import_driver("no_such_driver_module", "no-such-driver")
    assert caught.value.code == "backend_unavailable"
    assert "pip install no-such-driver" in caught.value.message


def test_pool_reuses_limits_and_discards() -> None:
    created: list[int] = []
    closed: list[int] = []
    pool: SimplePool[int] = SimplePool(lambda: created.append(len(created)) or len(created), closed.append, size=2, wait_s=0.2)
    a = pool.acquire()
    b = pool.acquire()
    with pytest.raises(BackendUnavailable, match="pool is exhausted"):
        pool.acquire()
    pool.release(a)
    assert pool.acquire() == a  # reused, not reopened
    pool.release(a, discard=True)
    assert closed == [a]
    c = pool.acquire()
    assert c not in (a, b) and len(created) == 3
    pool.release(b)
    pool.release(c)
    pool.close()
    assert sorted(closed) == sorted([a, b, c])
    with pytest.raises(BackendUnavailable, match="closed"):
        pool.acquire()


def test_pool_waits_for_a_free_connection() -> None:
    pool: SimplePool[object] = SimplePool(object, lambda c: None, size=1, wait_s=5)
    first = pool.acquire()
    threading.Timer(0.1, pool.release, args=(first,)).start()
    assert pool.acquire() is first


# -- column-at-a-time conversion: the same answer as to_json_value, value for value -------------------
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=True, allow_infinity=True, places=None),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
    st.dates(), st.datetimes(timezones=st.one_of(st.none(), st.just(dt.UTC))), st.times(),
    st.timedeltas(), st.binary(max_size=4),
)


def _columns_of_one_kind() -> st.SearchStrategy[list[object]]:
    """Columns as drivers return them: one type, NULLs sprinkled in (and sometimes a stray type)."""
    kinds = [st.integers(), st.floats(), st.dates(), st.datetimes(), st.text(),
             *(st.decimals(places=places, allow_nan=False, allow_infinity=False) for places in (0, 1, 3)),
             st.decimals(allow_nan=False, allow_infinity=False)]  # any exponent, mixed in one column
    return st.one_of(*(st.lists(st.one_of(kind, st.none()), min_size=1, max_size=8) for kind in kinds),
                     st.lists(_VALUES, min_size=1, max_size=8))


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=4).flatmap(lambda width: st.lists(_columns_of_one_kind(), min_size=width, max_size=width)))
def test_column_conversion_equals_value_conversion(columns: list[list[object]]) -> None:
    height = min(len(c) for c in columns)
    rows = [tuple(c[i] for c in columns) for i in range(height)]
    got = json_safe_rows(rows, len(columns))
    want = [[to_json_value(v) for v in row] for row in rows]
    assert got == want
    assert [[type(v) for v in row] for row in got] == [[type(v) for v in row] for row in want]
    assert all(type(row) is list for row in got)


def test_ragged_rows_are_converted_value_by_value() -> None:
    assert json_safe_rows([(1, dt.date(2024, 1, 1)), (2,)], 2) == [[1, "2024-01-01"], [2]]


def test_an_earlier_deadline_wakes_the_watchdog() -> None:
    """A short timeout added while a long one is pending must still fire on time."""
    fired = threading.Event()
    with CancelTimer(60, lambda: None) as slow:
        time.sleep(0.2)  # the watchdog is now asleep until the slow deadline
        with CancelTimer(0.05, fired.set) as quick:
            assert fired.wait(5)
        assert quick.fired and not slow.fired
