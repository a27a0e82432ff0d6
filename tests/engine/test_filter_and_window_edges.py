"""Guards for edges the engine cases never reached (the mutation audit of issue #26), on every engine:

- `notEquals` / `notContains` (structured filters) keep the rows whose member is NULL (Cube's meaning);
- a cumulative metric's filter that mixes its time dimension with another dimension selects rows, it is not a
  period filter (only a filter on the time dimension alone chooses periods);
- `periods: nonempty_window` with windows in weeks and in months gives exactly the days whose window holds a row: a
  Python oracle computes every day's window, including the tail after the last row and the gaps between rows.
"""

from __future__ import annotations

import datetime as dt
import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine import load_layer
from engine.facade import Layer

from .engine_databases import ENGINES, deployed, engine_databases

FILES = {
    "database.yml": """
        name: win
        dialect: duckdb
        connection: {backend: duckdb}
        time_spine: {table: win_spine, column: d}
    """,
    "models/events.yml": """
        name: EventModel
        table: win_events
        primary_key: id
        dimensions:
          - {name: ds, type: date}
          - {name: kind, type: string}
        measures:
          - {name: events, agg: count, expr: id}
        metrics:
          - {name: eventsLast2Weeks, type: cumulative, measure: EventModel__events, time_dimension: EventModel__ds,
             window: 2 weeks, periods: nonempty_window}
          - {name: eventsLastMonth, type: cumulative, measure: EventModel__events, time_dimension: EventModel__ds,
             window: 1 month, periods: nonempty_window}
          - {name: eventsSoFar, type: cumulative, measure: EventModel__events, time_dimension: EventModel__ds}
    """,
}
SPINE_START, SPINE_END = dt.date(2024, 1, 1), dt.date(2024, 6, 30)
EVENTS = [(1, dt.date(2024, 1, 10), "a"), (2, dt.date(2024, 1, 31), "b"), (3, dt.date(2024, 2, 29), None),
          (4, dt.date(2024, 3, 15), "a"), (5, dt.date(2024, 3, 31), "ab")]
SPINE = [SPINE_START + dt.timedelta(days=i) for i in range((SPINE_END - SPINE_START).days + 1)]
TABLES = [
    "CREATE TABLE win_spine (d DATE)",
    "INSERT INTO win_spine VALUES " + ", ".join(f"('{d}')" for d in SPINE),
    "CREATE TABLE win_events (id INT, ds DATE, kind VARCHAR(10))",
    "INSERT INTO win_events VALUES " + ", ".join(
        f"({i}, '{d}', {'NULL' if k is None else repr(k)})" for i, d, k in EVENTS),
]


def months_back(day: dt.date, months: int) -> dt.date:
    """`day` minus whole months, a day past the month's end landing on its last day (the engine's shift)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    last = (dt.date(year + (month + 1) // 12, (month + 1) % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(year, month + 1, min(day.day, last))


def window_counts(lower: Callable[[dt.date], dt.date]) -> list[tuple[str, int]]:
    """Each spine day whose window [lower(day + 1 day), day] holds an event, with how many it holds."""
    out = []
    for day in SPINE:
        start = lower(day + dt.timedelta(days=1))
        n = sum(1 for _, ds, _ in EVENTS if start <= ds <= day)
        if n:
            out.append((str(day), n))
    return out


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    root: Path = tmp_path_factory.mktemp("win") / "win"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return load_layer(root)


@pytest.fixture(scope="module")
def database() -> Iterator[Callable]:
    with engine_databases(TABLES, f"smq_window_test_{os.getpid()}") as get:
        yield get


@pytest.fixture(params=ENGINES)
def ask(request: pytest.FixtureRequest, layer: Layer, database: Callable) -> Callable[[dict], list[tuple]]:
    connection, run = database(request.param)
    on_engine = deployed(layer, request.param, connection)

    def query(smq: dict) -> list[tuple]:
        rows = run(on_engine.compile(smq, use_cache=False))
        return sorted(tuple(str(v)[:10] if isinstance(v, (dt.date, str)) and i == 0 else v for i, v in enumerate(r))
                      for r in rows)
    return query


def test_not_equals_and_not_contains_keep_null_members(ask: Callable) -> None:
    count = {"metrics": ["EventModel__events"]}
    assert ask({**count, "filters": [{"member": "EventModel__kind", "operator": "notEquals", "values": ["a"]}]}) == [(3,)]
    assert ask({**count, "filters": [{"member": "EventModel__kind", "operator": "notEquals", "values": ["a", "b"]}]}) == [(2,)]
    assert ask({**count, "filters": [{"member": "EventModel__kind", "operator": "notContains", "values": ["a"]}]}) == [(2,)]
    assert ask({**count, "filters": [{"member": "EventModel__kind", "operator": "equals", "values": ["a"]}]}) == [(2,)]


def test_a_cumulative_filter_mixing_the_time_dimension_selects_rows(ask: Callable) -> None:
    """`ds >= Feb OR kind = 'a'` keeps events 1, 3, 4 and 5 (not 2): a running total of those, from the first."""
    smq = {"metrics": ["eventsSoFar"], "group_by": ["EventModel__ds"],
           "filters": ["EventModel__ds >= '2024-02-01' OR EventModel__kind = 'a'"]}
    kept = [ds for _, ds, kind in EVENTS if ds >= dt.date(2024, 2, 1) or kind == "a"]
    days = [d for d in SPINE if min(kept) <= d <= max(kept)]
    assert ask(smq) == [(str(d), sum(1 for ds in kept if ds <= d)) for d in days]
    # the time dimension alone chooses periods: every event counts, reported from February on
    smq["filters"] = ["EventModel__ds >= '2024-02-01'"]
    days = [d for d in SPINE if dt.date(2024, 2, 1) <= d <= max(ds for _, ds, _ in EVENTS)]
    assert ask(smq) == [(str(d), sum(1 for _, ds, _ in EVENTS if ds <= d)) for d in days]


def test_nonempty_window_in_weeks(ask: Callable) -> None:
    expected = window_counts(lambda end: end - dt.timedelta(weeks=2))
    assert expected[-1] == ("2024-04-13", 1) and ("2024-02-14", 1) not in expected  # a tail and a gap to tell apart
    assert ask({"metrics": ["eventsLast2Weeks"], "group_by": ["EventModel__ds"]}) == expected


def test_nonempty_window_in_months(ask: Callable) -> None:
    expected = window_counts(lambda end: months_back(end, 1))
    assert expected[-1] == ("2024-04-29", 1)  # its window starts 2024-03-30 (a month before the 30th); the 30th's on 04-01
    assert ask({"metrics": ["eventsLastMonth"], "group_by": ["EventModel__ds"]}) == expected
