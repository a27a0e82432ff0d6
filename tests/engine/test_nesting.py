"""The nesting pre-check that runs before sqlglot parses user text (raw SQL, SMQ filters)."""

from __future__ import annotations

import pytest

import smq_db.executors  # noqa: F401 - loads the package before its read-only guard
from engine.nesting import MAX_NESTING, nesting_depth, too_deep
from smq_db.executors import SqlSyntaxError
from smq_db.readonly import check_read_only


@pytest.mark.parametrize(("text", "depth"), [
    ("", 0), ("SELECT 1", 0), ("f(a, g(b)) + (c)", 2), ("((()))()", 3), ("a) ((b", 1),
])
def test_nesting_depth(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_too_deep_counts_nesting_not_parentheses() -> None:
    flat = "SELECT " + " + ".join(["abs(1)"] * (MAX_NESTING * 2))  # many parentheses, one level deep
    assert not too_deep(flat)
    assert not too_deep("(" * MAX_NESTING + ")" * MAX_NESTING)
    assert too_deep("(" * (MAX_NESTING + 1) + ")" * (MAX_NESTING + 1))


@pytest.mark.parametrize("sql", ["SELECT " + "(" * 20_000 + "1" + ")" * 20_000, "SELECT " + "NOT " * 5000 + "TRUE"],
                         ids=["parentheses", "not-chain"])
def test_the_guard_refuses_deep_sql_as_a_user_error(sql: str) -> None:
    with pytest.raises(SqlSyntaxError) as caught:
        check_read_only(sql, "duckdb")
    assert caught.value.code == "too_deeply_nested" and "Recursion" not in caught.value.formatted()


def test_the_guard_parses_the_deepest_allowed_sql() -> None:
    sql = "SELECT " + "(" * MAX_NESTING + "1" + ")" * MAX_NESTING
    assert check_read_only(sql, "duckdb").sql("duckdb").startswith("SELECT")
