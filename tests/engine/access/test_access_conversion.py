"""A role's row filter holds on a conversion metric's events: the base events and the conversion events are
both read under it, with the metric's own filters, its conversion_measure's filters, and at an offset.

The attack: `eu_only` may see EU rows only. A conversion CTE that read the conversion model's table directly
would count the US purchase of user 1 (and the US visit of user 2 would convert), so a rate computed under
the role would leak how many non-EU events exist.
"""

from __future__ import annotations

import datetime as dt
import textwrap

import duckdb
import pytest

from engine import load_layer
from engine.facade import Layer

FILES = {
    "database.yml": """
        name: acv
        dialect: duckdb
        time_spine: {table: acv_spine, column: d}
        access:
          roles:
            eu_only:
              row_filters: ["VisitModel__region = 'EU'", "BuyModel__region = 'EU'"]
    """,
    "models/visits.yml": """
        name: VisitModel
        table: acv_visits
        primary_key: id
        default_time_dimension: ds
        entities:
          - {name: user, type: foreign, expr: user_id}
        dimensions:
          - {name: ds, type: date}
          - {name: region, type: string}
        measures:
          - {name: visits, agg: count, expr: id}
        metrics:
          - name: visitToBuy
            type: conversion
            base_measure: VisitModel__visits
            conversion_measure: BuyModel__buys
            entity: user
            calculation: conversions
            window: 7 days
          - name: visitToBigBuy
            type: conversion
            base_measure: VisitModel__visits
            conversion_measure: {name: BuyModel__buys, filters: ["BuyModel__amount > 10"]}
            entity: user
            calculation: conversions
            window: 7 days
          - name: visitToBuyWeekAgo
            type: derived
            expr: weekAgo
            inputs: [{name: visitToBuy, alias: weekAgo, offset_window: 7 days}]
    """,
    "models/buys.yml": """
        name: BuyModel
        table: acv_buys
        primary_key: id
        default_time_dimension: ds
        entities:
          - {name: user, type: foreign, expr: user_id}
        dimensions:
          - {name: ds, type: date}
          - {name: region, type: string}
          - {name: amount, type: number}
        measures:
          - {name: buys, agg: count, expr: id}
    """,
}
DATA = [
    "CREATE TABLE acv_spine AS SELECT CAST(d AS DATE) AS d FROM range(DATE '2024-01-01', DATE '2024-02-01', INTERVAL 1 DAY) t(d)",
    "CREATE TABLE acv_visits (id INT, user_id INT, ds DATE, region VARCHAR)",
    "CREATE TABLE acv_buys (id INT, user_id INT, ds DATE, region VARCHAR, amount INT)",
    # user 1: an EU visit, then an EU buy and a US buy; user 2: a US visit, then an EU buy
    "INSERT INTO acv_visits VALUES (1, 1, DATE '2024-01-02', 'EU'), (2, 2, DATE '2024-01-02', 'US')",
    "INSERT INTO acv_buys VALUES (1, 1, DATE '2024-01-03', 'EU', 20), (2, 1, DATE '2024-01-04', 'US', 50), "
    "(3, 2, DATE '2024-01-03', 'EU', 30)",
]


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    root = tmp_path_factory.mktemp("acv")
    for name, text in FILES.items():
        path = root / "acv" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_layer(root / "acv")


def run(layer: Layer, smq: dict, role: str | None) -> list[tuple]:
    con = duckdb.connect()
    for statement in DATA:
        con.execute(statement)
    return con.execute(layer.compile(smq, role=role)).fetchall()


@pytest.mark.parametrize("metric,everyone,eu", [
    ("visitToBuy", 3, 1),       # all: 2 buys of user 1 + 1 of user 2; EU: user 1's EU visit -> its EU buy
    ("visitToBigBuy", 3, 1),    # amount > 10 keeps all three; the role still drops the US ones
])
def test_conversion_events_are_read_under_the_role(layer: Layer, metric: str, everyone: int, eu: int) -> None:
    assert run(layer, {"metrics": [metric]}, None) == [(everyone,)]
    assert run(layer, {"metrics": [metric]}, "eu_only") == [(eu,)]


def test_an_offset_conversion_is_read_under_the_role(layer: Layer) -> None:
    smq = {"metrics": ["visitToBuyWeekAgo"], "group_by": ["metric_time__day"]}  # the visits of 01-02, a week later
    assert run(layer, smq, None) == [(dt.date(2024, 1, 9), 3)]
    assert run(layer, smq, "eu_only") == [(dt.date(2024, 1, 9), 1)]


def test_the_compiled_sql_reads_no_table_unfiltered(layer: Layer) -> None:
    sql = layer.compile({"metrics": ["visitToBigBuy"]}, role="eu_only")
    for table in ("acv_visits", "acv_buys"):
        reads = sql.count(f"FROM {table}") + sql.count(f"JOIN {table}")
        assert reads and sql.count("'EU'") >= reads, sql  # every read of a table carries its row filter
