"""The role differential: what a role sees is what a copy of its rows shows, on every path at once.

Every engine reference case (cases.yml and cases.d, as test_engines.py runs them) is asked under each role of the
demo that has row filters, on the whole data, and asked without a role of a copy of the data holding only that
role's rows (tests/engine/role_copies.py, made apart from engine/access). The answers must be equal, on every engine
the suite runs; a case refused under the role must be refused because it names what the role may not see (a hidden
element), never answered differently. A new query path that forgets the role's filters (an offset, a metric filter's
subquery, a conversion's second scan ...) shows here without a test of its own.

DuckDB runs in the fast tier; SQLite, the servers and the Snowflake emulator are `slow` (the fast tier is
pytest -m "not slow"; the full command runs them).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from engine import Layer, load_layers
from engine.errors import QueryError
from smq_db.demo.build import load_into
from smq_db.demo.generate import generate

from ..conftest import DEMO_MODELS, MYSQL, PG_DSN, Runner, _fetch
from .role_copies import copy_tables, kept_keys
from .test_engines import CASES, TIME_AXES, assert_same_rows, shop_with_extra_metrics

DEMO = load_layers(DEMO_MODELS)["shop"]
ROLES = [name for name, role in DEMO.semantic.roles.items() if role.row_filters]
# SQLite is slow here (its offset plans over the whole data: 75 s of the differential's ~3 minutes), the servers and
# the emulator take their round trips: the fast tier (-m "not slow") keeps DuckDB
ENGINES = [pytest.param("sqlite", marks=pytest.mark.slow), pytest.param("duckdb"), pytest.param("postgres", marks=pytest.mark.slow),
           pytest.param("mysql", marks=pytest.mark.slow), pytest.param("snowflake", marks=pytest.mark.slow)]


@pytest.fixture(scope="module")
def layers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Layer]:
    return {"shop": DEMO, "shop_with_extra_metrics": shop_with_extra_metrics(tmp_path_factory.mktemp("layers")),
            "shop_extra_on_time_axis": shop_with_extra_metrics(tmp_path_factory.mktemp("layers"), TIME_AXES)}


@pytest.fixture(scope="module")
def copies(demo_files: dict[str, Path], runners: Callable[[str], Runner]) -> Iterator[Callable[[str, str], Runner]]:
    """(role, engine) -> a runner over a copy of the demo holding only the role's rows, made on first use."""
    full = duckdb.connect(str(demo_files["duckdb"]), read_only=True)
    tables = generate()
    opened: dict[tuple[str, str], Runner] = {}
    cleanups: list[Callable[[], object]] = []

    def runner(conn: object, execute: Callable[[str], object]) -> Runner:
        def run(sql: str) -> tuple[list[str], list[tuple]]:
            return _fetch(execute(sql))
        return run

    def get(role: str, engine: str) -> Runner:
        if (role, engine) in opened:
            return opened[(role, engine)]
        copied = copy_tables(tables, kept_keys(DEMO.semantic, DEMO.role(role), full))
        schema = f"smq_rolecopy_{role}_{os.getpid()}"
        conn: object
        if engine == "duckdb":
            conn = duckdb.connect()
            load_into(conn, engine, tables=copied)
            run = runner(conn, lambda sql: conn.cursor().execute(sql))  # type: ignore[attr-defined]
        elif engine == "sqlite":
            conn = sqlite3.connect(":memory:")
            load_into(conn, engine, tables=copied)
            run = runner(conn, lambda sql: conn.execute(sql))  # type: ignore[attr-defined]
        elif engine == "postgres":
            runners(engine)  # skips when the server is not there
            import psycopg
            pg = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
            load_into(pg, engine, schema=schema, tables=copied)
            pg.execute(f"SET search_path TO {schema}")
            pg.execute("ANALYZE")  # fresh tables have no statistics: some plans under a role took minutes
            cleanups.append(lambda: (pg.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE"), pg.close()))
            run = runner(pg, lambda sql: pg.execute(sql))
        elif engine == "mysql":
            runners(engine)
            import pymysql
            my = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
            load_into(my, engine, schema=schema, tables=copied)
            my.select_db(schema)
            cleanups.append(lambda: (my.cursor().execute(f"DROP DATABASE IF EXISTS {schema}"), my.close()))

            def execute(sql: str) -> object:
                cur = my.cursor()
                cur.execute(sql)
                return cur
            run = runner(my, execute)
        else:
            runners(engine)  # the fakesnow patch is active for the session: connections share its databases
            import snowflake.connector
            sf = snowflake.connector.connect(database="SMQ_TEST", schema=role.upper() + "_COPY")
            load_into(sf, engine, tables=copied)

            def execute_sf(sql: str) -> object:
                cur = sf.cursor()
                cur.execute(sql)
                return cur
            run = runner(sf, execute_sf)
        opened[(role, engine)] = run
        return run

    yield get
    for cleanup in cleanups:
        cleanup()
    full.close()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_a_role_sees_what_a_copy_of_its_rows_shows(layers: dict[str, Layer], runners: Callable[[str], Runner],
                                                    copies: Callable[[str, str], Runner], case: dict, role: str,
                                                    engine: str) -> None:
    layer = layers[case.get("layer", "shop")]
    if (case.get("refused_on") or {}).get(engine):
        with pytest.raises(QueryError) as err:  # refused without the role: refused with it too, for the same reason
            layer.compile(case["smq"], dialect=engine, role=role)
        assert err.value.code == case["refused_on"][engine], err.value.message
        return
    try:
        sql = layer.compile(case["smq"], dialect=engine, role=role)
    except QueryError as err:
        named = [name for name in layer.visibility(role).hidden if name in repr(case["smq"])]
        assert err.code == "unknown_element" and named, (
            f"{case['name']} refused under {role} without naming a hidden element: {err.code}: {err.message}")
        return
    columns, seen = runners(engine)(sql)
    copy_columns, expected = copies(role, engine)(layer.compile(case["smq"], dialect=engine))
    assert columns == copy_columns
    assert_same_rows(seen, expected, case.get("ordered", False), f"{case['name']} under {role} on {engine}")


@pytest.mark.parametrize("role", ROLES)
def test_each_copy_holds_some_rows_of_what_its_role_restricts(demo_files: dict[str, Path], role: str) -> None:
    """Copies equal to the data, or empty, would make the differential prove nothing."""
    with duckdb.connect(str(demo_files["duckdb"]), read_only=True) as full:
        keys = kept_keys(DEMO.semantic, DEMO.role(role), full)
        assert keys
        for table, kept in keys.items():
            whole = full.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            assert 0 < len(kept) < whole, f"{role}: {table} keeps {len(kept)} of {whole} rows"
