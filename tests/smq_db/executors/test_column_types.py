"""Every executor reports each column's database type (the cursor description or the engine's own type),
so the service can tell a front end what it gets: the semantic type is derived from it for raw SQL."""

from __future__ import annotations

import pytest

from smq_db.executors.base import description_types

from .conftest import Backend

# what each engine calls the columns id, name, day, ts, price, flag of `items` (SQLite reports none)
EXPECTED = {
    "sqlite": [None] * 6,
    "duckdb": ["INTEGER", "VARCHAR", "DATE", "TIMESTAMP", "DECIMAL(10,2)", "BOOLEAN"],
    "postgres": ["int4", "text", "date", "timestamp", "numeric(10,2)", "bool"],
    "mysql": ["LONG", "BLOB", "DATE", "DATETIME", "NEWDECIMAL", "TINY"],  # the protocol sends TEXT as BLOB
}


def test_column_types_come_from_the_database(backend: Backend) -> None:
    result = backend.executor.execute("SELECT id, name, day, ts, price, flag FROM items ORDER BY id")
    assert [c.lower() for c in result.columns] == ["id", "name", "day", "ts", "price", "flag"]
    assert result.column_types is not None and len(result.column_types) == 6
    if backend.name in EXPECTED:
        assert result.column_types == EXPECTED[backend.name]
    else:  # Snowflake (fakesnow), BigQuery: the engine's names, one per column
        assert all(isinstance(t, str) and t for t in result.column_types), result.column_types
    assert result.to_dict()["column_types"] == result.column_types


@pytest.mark.parametrize(("description", "names", "expected"), [
    ([("a", "varchar"), ("b", None)], None, ["varchar", None]),  # Trino/Databricks names; SQLite None
    ([("a", 8), ("b", 999)], {8: "LONGLONG"}.get, ["LONGLONG", None]),  # MySQL/Snowflake codes
    ([("a", 8)], None, [None]),  # a bare code without its names says nothing
    (None, None, []),
])
def test_description_types(description, names, expected) -> None:
    assert description_types(description, names) == expected
