"""The one catalog reader: a whole schema (smq init) and table by table (the agent's tools), on real
SQLite, DuckDB and PostgreSQL, every query going through the executor and its read-only guard."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from smq_db.catalog import Catalog, TableRef
from smq_db.executors import Executor, QueryResult, check_read_only, create_executor

SQLITE_DDL = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT);
CREATE TABLE orders (order_no INTEGER, line INTEGER, customer_id INTEGER REFERENCES customers(id), note TEXT,
                     PRIMARY KEY (order_no, line));
CREATE TABLE shipments (id INTEGER PRIMARY KEY, order_no INTEGER, line INTEGER,
                        FOREIGN KEY (order_no, line) REFERENCES orders(order_no, line));
CREATE UNIQUE INDEX shipments_pair ON shipments (order_no, line);
CREATE VIEW big_customers AS SELECT id, name FROM customers WHERE id > 10;
"""


class Recording:
    """A real executor that remembers the SQL it ran (to prove the catalog opens no connection of its own)."""

    def __init__(self, inner: Executor) -> None:
        self.inner, self.backend, self.dialect = inner, inner.backend, inner.dialect
        self.sql: list[str] = []

    def execute(self, sql: str, *, max_rows: int = 10_000, timeout_s: float = 30.0) -> QueryResult:
        self.sql.append(sql)
        return self.inner.execute(sql, max_rows=max_rows, timeout_s=timeout_s)

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def sqlite_executor(tmp_path: Path) -> Iterator[Recording]:
    path = tmp_path / "c.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SQLITE_DDL)
    conn.close()
    ex = Recording(create_executor({"backend": "sqlite", "path": str(path)}, base_dir=tmp_path))
    yield ex
    ex.close()


def test_sqlite_schema_whole_through_the_executor(sqlite_executor: Recording) -> None:
    tables = {t.name: t for t in Catalog(sqlite_executor).introspect()}
    assert set(tables) == {"customers", "orders", "shipments", "big_customers"}
    customers, orders, shipments = tables["customers"], tables["orders"], tables["shipments"]
    assert customers.primary_key == ("id",) and ("code",) in customers.unique
    assert [(c.name, c.type, c.nullable) for c in customers.columns] == [
        ("id", "INTEGER", False), ("code", "TEXT", False), ("name", "TEXT", True)]
    assert orders.primary_key == ("order_no", "line")
    [fk] = orders.foreign_keys
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (["customer_id"], "customers", ["id"])
    [pair] = shipments.foreign_keys
    assert (pair.columns, pair.ref_columns) == (["order_no", "line"], ["order_no", "line"])
    assert ("order_no", "line") in shipments.unique
    assert tables["big_customers"].is_view and not customers.is_view
    assert sqlite_executor.sql and all(check_read_only(sql, "sqlite") is not None for sql in sqlite_executor.sql)


def test_sqlite_table_by_table(sqlite_executor: Recording) -> None:
    catalog = Catalog(sqlite_executor)
    assert [(t.name, t.kind) for t in catalog.tables()] == [
        ("big_customers", "view"), ("customers", "table"), ("orders", "table"), ("shipments", "table")]
    orders = TableRef("orders")
    assert [(c.name, c.primary_key) for c in catalog.columns(orders)] == [
        ("order_no", True), ("line", True), ("customer_id", False), ("note", False)]
    [fk] = catalog.foreign_keys(orders)
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (["customer_id"], "customers", ["id"])
    ran = len(sqlite_executor.sql)
    catalog.tables(), catalog.columns(orders)
    assert len(sqlite_executor.sql) == ran  # cached for the session


def test_duckdb_schema_with_comments_and_a_named_schema(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "c.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE SCHEMA sales")
    conn.execute("CREATE TABLE sales.regions (region_id INTEGER PRIMARY KEY, label VARCHAR UNIQUE)")
    conn.execute("CREATE TABLE sales.deals (deal_id INTEGER PRIMARY KEY, region_id INTEGER REFERENCES sales.regions(region_id), "
                 "amount DECIMAL(10, 2) NOT NULL)")
    conn.execute("COMMENT ON TABLE sales.deals IS 'closed deals'")
    conn.execute("COMMENT ON COLUMN sales.deals.amount IS 'in EUR'")
    conn.execute("CREATE TABLE main.other (x INTEGER)")
    conn.close()
    ex = create_executor({"backend": "duckdb", "path": str(path)}, base_dir=tmp_path)
    try:
        tables = {t.name: t for t in Catalog(ex).introspect("sales")}
        main = [t.name for t in Catalog(ex).introspect()]
    finally:
        ex.close()
    assert set(tables) == {"regions", "deals"} and main == ["other"]
    deals = tables["deals"]
    assert deals.schema == "sales" and deals.comment == "closed deals" and deals.primary_key == ("deal_id",)
    amount = next(c for c in deals.columns if c.name == "amount")
    assert (amount.type, amount.nullable, amount.comment) == ("DECIMAL(10,2)", False, "in EUR")
    [fk] = deals.foreign_keys
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (["region_id"], "regions", ["region_id"])
    assert tables["regions"].unique == [("label",)]


@pytest.fixture
def postgres_schema() -> Iterator[tuple[Any, str]]:
    psycopg = pytest.importorskip("psycopg")
    from tests.conftest import PG_DSN

    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    schema = f"smq_catalog_{uuid.uuid4().hex[:10]}"
    conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield conn, schema
    finally:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")
        conn.close()


def test_postgres_schema_whole_and_table_by_table(postgres_schema: tuple[Any, str]) -> None:
    from tests.conftest import PG_DSN

    conn, schema = postgres_schema
    conn.execute(f"CREATE TABLE {schema}.parents (a INTEGER, b INTEGER, label TEXT UNIQUE, PRIMARY KEY (a, b))")
    conn.execute(f"CREATE TABLE {schema}.children (id SERIAL PRIMARY KEY, pa INTEGER, pb INTEGER, "
                 f"FOREIGN KEY (pa, pb) REFERENCES {schema}.parents (a, b))")
    conn.execute(f"COMMENT ON TABLE {schema}.children IS 'kids'")
    conn.execute(f"CREATE VIEW {schema}.v AS SELECT id FROM {schema}.children")
    ex = Recording(create_executor({"backend": "postgres", "url": PG_DSN, "schema": schema}, base_dir=Path.cwd()))
    try:
        catalog = Catalog(ex)
        tables = {t.name: t for t in catalog.introspect(schema)}
        refs = [t for t in catalog.tables() if t.schema == schema]
        children_ref = next(t for t in refs if t.name == "children")
        lazy_fks = catalog.foreign_keys(children_ref)
        lazy_columns = catalog.columns(children_ref)
    finally:
        ex.close()
    assert set(tables) == {"parents", "children", "v"} and tables["v"].is_view
    parents, children = tables["parents"], tables["children"]
    assert parents.primary_key == ("a", "b") and parents.unique == [("label",)]
    assert children.comment == "kids" and children.primary_key == ("id",)
    [fk] = children.foreign_keys
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (["pa", "pb"], "parents", ["a", "b"])
    assert sorted((t.name, t.kind) for t in refs) == [("children", "table"), ("parents", "table"), ("v", "view")]
    assert [(c.name, c.primary_key) for c in lazy_columns] == [("id", True), ("pa", False), ("pb", False)]
    assert [(f.columns, f.ref_table) for f in lazy_fks] == [(["pa", "pb"], "parents")]
    assert all(check_read_only(sql, "postgres") is not None for sql in ex.sql)


def test_a_backend_without_a_whole_schema_reader_is_refused_clearly(sqlite_executor: Recording) -> None:
    sqlite_executor.backend = "bigquery"
    with pytest.raises(ValueError, match="supported for sqlite, duckdb, postgres, mysql, not bigquery"):
        Catalog(sqlite_executor, "sqlite").introspect()
