"""Small throwaway databases on the engines whose raw SQL a role can run (DuckDB, SQLite, PostgreSQL, MariaDB),
for the access attack tests: each test module names its own schema, made here and dropped when it is done."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import pytest

from engine.facade import Layer

from ..conftest import MYSQL, PG_DSN

ENGINES = ("duckdb", "sqlite", "postgres", "mysql")
Rows = Callable[[str], list[tuple]]


@contextmanager
def engine_databases(data: list[str], schema: str) -> Iterator[Callable[[str], tuple[dict, Rows]]]:
    """engine -> (the layer's connection settings there, a function running SQL and returning its rows), the
    `data` statements run once per engine; a server that cannot be reached skips the test with the reason."""
    opened: dict[str, tuple[dict, Rows]] = {}
    cleanups: list[Callable[[], Any]] = []

    def rows(conn: Any) -> Rows:
        def run(sql: str) -> list[tuple]:
            cur = conn.cursor()
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]
        return run

    def get(engine: str) -> tuple[dict, Rows]:
        if engine in opened:
            return opened[engine]
        if engine in ("duckdb", "sqlite"):
            conn: Any = duckdb.connect() if engine == "duckdb" else sqlite3.connect(":memory:")
            for statement in data:
                conn.execute(statement)
            opened[engine] = ({"backend": engine}, rows(conn))
        elif engine == "postgres":
            psycopg = pytest.importorskip("psycopg")
            try:
                conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
            except psycopg.OperationalError as exc:
                pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {exc}")
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")  # ours (named by the caller), left by a failed load
            conn.execute(f"CREATE SCHEMA {schema}")
            cleanups.append(lambda: (conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE"), conn.close()))
            conn.execute(f"SET search_path TO {schema}")
            for statement in data:
                conn.execute(statement)
            opened[engine] = ({"backend": "postgres", "schema": schema}, rows(conn))
        else:
            pymysql = pytest.importorskip("pymysql")
            try:
                conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
            except pymysql.err.OperationalError as exc:
                pytest.skip(f"MariaDB/MySQL not reachable at {MYSQL['host']}:3306: {exc}")
            with conn.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS {schema}")  # ours (named by the caller), left by a failed load
                cur.execute(f"CREATE DATABASE {schema}")
            cleanups.append(lambda: (conn.cursor().execute(f"DROP DATABASE IF EXISTS {schema}"), conn.close()))
            conn.select_db(schema)
            with conn.cursor() as cur:
                for statement in data:
                    cur.execute(statement)
            opened[engine] = ({"backend": "mysql", "database": schema}, rows(conn))
        return opened[engine]

    try:
        yield get
    finally:
        for cleanup in cleanups:
            cleanup()


def deployed(layer: Layer, dialect: str, connection: dict) -> Layer:
    """The layer as deployed on another engine (its dialect and connection)."""
    return Layer(dataclasses.replace(layer.semantic, dialect=dialect, connection=connection))
