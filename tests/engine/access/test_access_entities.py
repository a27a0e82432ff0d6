"""Hidden dimensions and MetricFlow entities: an entity's key is a column, and a role that hides a dimension
reading that column must not see its values through the entity's name; a role that hides an unrelated column
must still be able to join, group and convert on the entity.

The attacks: `no_codes` hides UserModel__code, whose column is also the entity `user`'s key. Grouping by
`user`, filtering on `{{ Entity('user') }}`, reaching it as `visit__user`, or reading the key column with raw
SQL would list the codes. `no_note` hides only a note column: conversions and entity group-bys must answer as
without a role (the role's projection once dropped the entity's column, so they failed on the engine).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator

import duckdb
import pytest
import sqlglot

from engine import QueryError, load_layer
from engine.access.roles import apply_role_to_sql
from engine.facade import Layer

from ..engine_databases import ENGINES, deployed, engine_databases

FILES = {
    "database.yml": """
        name: ace
        dialect: duckdb
        connection: {backend: duckdb}
        time_spine: {table: ace_spine, column: d}
        access:
          roles:
            no_codes:
              hidden: [UserModel__code]
            no_note:
              hidden: [BuyModel__note, ClickModel__note]
    """,
    "models/users.yml": """
        name: UserModel
        table: ace_users
        primary_key: id
        entities:
          - {name: user, type: primary, expr: code}
        dimensions:
          - {name: code, type: string}
          - {name: country, type: string}
        measures:
          - {name: users, agg: count, expr: id}
    """,
    "models/visits.yml": """
        name: VisitModel
        table: ace_visits
        primary_key: id
        default_time_dimension: ds
        entities:
          - {name: visit, type: primary, expr: id}
          - {name: user, type: foreign, expr: user_code}
        dimensions:
          - {name: ds, type: date}
        measures:
          - {name: visits, agg: count, expr: id}
        metrics:
          - name: visitToClick
            type: conversion
            base_measure: VisitModel__visits
            conversion_measure: ClickModel__clicks
            entity: user
            calculation: conversions
            window: 7 days
          - name: visitToBuy
            type: conversion
            base_measure: VisitModel__visits
            conversion_measure: BuyModel__buys
            entity: user
            calculation: conversions
            window: 7 days
    """,
    "models/buys.yml": """
        name: BuyModel
        table: ace_buys
        primary_key: id
        default_time_dimension: ds
        entities:
          - {name: user, type: foreign, expr: user_code}
        dimensions:
          - {name: ds, type: date}
          - {name: note, type: string}
        measures:
          - {name: buys, agg: count, expr: id}
    """,
    "models/clicks.yml": """
        name: ClickModel
        table: ace_clicks
        primary_key: id
        default_time_dimension: ds
        entities:
          - {name: user, type: foreign, expr: user_ref}  # not a join key: only the entity needs the column
        dimensions:
          - {name: ds, type: date}
          - {name: note, type: string}
        measures:
          - {name: clicks, agg: count, expr: id}
    """,
    "joins.yml": """
        joins:
          - {from: VisitModel, to: UserModel, key: visitor, relationship: many_to_one, on: {left: user_code, right: code}}
          - {from: BuyModel, to: UserModel, key: buyer, relationship: many_to_one, on: {left: user_code, right: code}}
    """,
}
SPINE = "CREATE TABLE ace_spine AS SELECT CAST(d AS DATE) AS d FROM range(DATE '2024-01-01', DATE '2024-02-01', INTERVAL 1 DAY) t(d)"
TABLES = [  # on every engine
    "CREATE TABLE ace_users (id INT, code VARCHAR(20), country VARCHAR(20))",
    "CREATE TABLE ace_visits (id INT, user_code VARCHAR(20), ds DATE)",
    "CREATE TABLE ace_buys (id INT, user_code VARCHAR(20), ds DATE, note VARCHAR(20))",
    "CREATE TABLE ace_clicks (id INT, user_ref VARCHAR(20), ds DATE, note VARCHAR(20))",
    "INSERT INTO ace_clicks VALUES (1, 'U-SECRET-1', '2024-01-03', 'x'), (2, 'U-SECRET-2', '2024-01-20', 'y')",
    "INSERT INTO ace_users VALUES (1, 'U-SECRET-1', 'DE'), (2, 'U-SECRET-2', 'FR')",
    "INSERT INTO ace_visits VALUES (1, 'U-SECRET-1', '2024-01-02'), (2, 'U-SECRET-2', '2024-01-02')",
    "INSERT INTO ace_buys VALUES (1, 'U-SECRET-1', '2024-01-03', 'x'), (2, 'U-SECRET-1', '2024-01-04', 'y'), "
    "(3, 'U-SECRET-2', '2024-01-05', 'z')",
]


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Layer:
    root = tmp_path_factory.mktemp("ace")
    for name, text in FILES.items():
        path = root / "ace" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_layer(root / "ace")


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for statement in [SPINE, *TABLES]:
        con.execute(statement)
    return con


def run(layer: Layer, con: duckdb.DuckDBPyConnection, smq: dict, role: str | None) -> list[tuple]:
    return sorted(con.execute(layer.compile(smq, role=role)).fetchall())


@pytest.mark.parametrize("smq", [
    {"metrics": ["visitToBuy"]},
    {"metrics": ["visitToClick"]},
    {"metrics": ["ClickModel__clicks"], "group_by": ["user"]},
    {"metrics": ["BuyModel__buys"], "group_by": ["user__country"]},
    {"metrics": ["BuyModel__buys"], "group_by": ["user"]},
])
def test_hiding_another_column_keeps_the_entity_usable(layer: Layer, con: duckdb.DuckDBPyConnection, smq: dict) -> None:
    assert run(layer, con, smq, "no_note") == run(layer, con, smq, None) != []


@pytest.mark.parametrize("smq", [
    {"metrics": ["BuyModel__buys"], "group_by": ["user"]},
    {"metrics": ["VisitModel__visits"], "group_by": ["visit__user"]},
    {"metrics": ["BuyModel__buys"], "filters": ["{{ Entity('user') }} = 'U-SECRET-1'"]},
    {"metrics": ["BuyModel__buys"], "filters": ["user = 'U-SECRET-1'"]},
])
def test_an_entity_reading_a_hidden_column_is_hidden_with_it(layer: Layer, smq: dict) -> None:
    with pytest.raises(QueryError, match="unknown element") as err:
        layer.compile(smq, role="no_codes")
    assert "user'" not in " ".join(err.value.suggestions or [])  # not offered as a near name either
    layer.compile(smq)  # the same query is fine without the role


def test_conversions_and_joins_on_a_hidden_entity_still_count(layer: Layer, con: duckdb.DuckDBPyConnection) -> None:
    """Joining on the key reveals no value of it: counts through the entity stay available."""
    for smq in ({"metrics": ["visitToBuy"]}, {"metrics": ["BuyModel__buys"], "group_by": ["user__country"]}):
        assert run(layer, con, smq, "no_codes") == run(layer, con, smq, None) != []


@pytest.fixture(scope="module")
def database() -> Iterator[Callable[[str], tuple[dict, Callable[[str], list[tuple]]]]]:
    with engine_databases(TABLES, f"smq_ace_test_{os.getpid()}") as get:
        yield get


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("table", "column", "kept"), [
    ("ace_users", "code", "country"),  # the hidden dimension's own column, also the entity's key and a join key
    ("ace_visits", "user_code", "ds"),  # the same values: the other side of the join, the entity's key here
    ("ace_buys", "user_code", "note"),  # and in a model whose own hidden column is another one
])
def test_raw_sql_never_reads_a_hidden_key_column(layer: Layer, database: Callable, engine: str, table: str, column: str,
                                                 kept: str) -> None:
    connection, run = database(engine)
    on_engine = deployed(layer, engine, connection)
    assert any("U-SECRET" in str(v) for row in run(f"SELECT * FROM {table}") for v in row)  # what a key without a role reads

    def raw(text: str) -> str:
        return apply_role_to_sql(sqlglot.parse_one(text, read=engine), on_engine.semantic, on_engine.graph,
                                 on_engine.role("no_codes")).sql(dialect=engine)

    with pytest.raises(QueryError, match=f"column '{column}' of {table} is hidden"):
        raw(f"SELECT {column} FROM {table}")
    everything = run(raw(f"SELECT * FROM {table}"))
    assert everything and not any("U-SECRET" in str(v) for row in everything for v in row)
    assert run(raw(f"SELECT {kept} FROM {table}"))
