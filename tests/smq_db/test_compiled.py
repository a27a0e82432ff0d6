"""Compiled SQL is checked read-only on the compiler's tree and then runs without being parsed again
(smq_db/compiled.py, docs/security.md "Compiled SQL").

What makes that as strong as checking the text: the guard reaches the same verdict on the tree and on the text
generated from it, on every compiled case, dialect and role, for everything it refuses (injected into compiled
trees below), and for any text a client can put into a compiled query (its filters' string literals, which come
back from the text unchanged). Before the change the executor parsed every new compiled text again:
`test_a_vouched_text_is_not_parsed_again` fails there (one parse per query).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from hypothesis import given, settings, strategies as st
from sqlglot import exp

from engine import SUPPORTED_DIALECTS, QueryError
from engine.paging import paged_sql
from smq_db import readonly
from smq_db.compiled import compiled_page, compiled_sql
from smq_db.executors.errors import ReadOnlyViolation, SqlSyntaxError
from smq_db.readonly import check_generated, check_read_only

from ..engine.test_engines import CASES, layers  # noqa: F401 - the fixture

SHOP_CASES = [case for case in CASES if case.get("layer", "shop") == "shop"]


def _roles(layer: Any) -> list[str | None]:
    return [None, *layer.semantic.roles]


def test_compiled_sql_is_the_layers_own_text(layers: Any) -> None:  # noqa: F811
    layer = layers["shop"]
    checked = 0
    for case in SHOP_CASES:
        for role in _roles(layer):
            try:
                expected = layer.compile(case["smq"], role=role)
            except QueryError:
                continue
            assert compiled_sql(layer, case["smq"], role) == expected, case["name"]
            page = compiled_page(layer, case["smq"], role, 7, 3)
            assert (page.shown, page.run, page.size) == tuple(vars(paged_sql(layer, case["smq"], role, 7, 3)).values())
            checked += 1
    assert checked > 100


def test_the_tree_and_its_text_get_the_same_verdict_on_every_case(layers: Any) -> None:  # noqa: F811
    layer = layers["shop"]
    checked = 0
    for case in SHOP_CASES:
        for dialect in SUPPORTED_DIALECTS:
            for role in _roles(layer):
                try:
                    tree = layer.compile_expression(case["smq"], dialect=dialect, role=role)
                except QueryError:
                    continue
                sql = tree.sql(dialect=dialect, pretty=True, copy=False)
                check_generated(tree, sql, dialect)
                check_read_only(sql, dialect)
                checked += 1
    assert checked > 1000


def _with_projection(call: exp.Expression) -> Callable[[exp.Select], exp.Expression]:
    return lambda tree: tree.select(call, copy=False)


# what the guard refuses, put into a compiled tree the way a compiler bug (or a layer expression) could
INJECTED: dict[str, Callable[[exp.Select], exp.Expression]] = {
    "a file function": _with_projection(exp.Anonymous(this="read_csv", expressions=[exp.Literal.string("/etc/passwd")])),
    "a server file function": _with_projection(exp.Anonymous(this="pg_read_file", expressions=[exp.Literal.string("x")])),
    "a network function": _with_projection(exp.Anonymous(this="dblink", expressions=[exp.Literal.string("host=x")])),
    "a sleep": _with_projection(exp.Anonymous(this="pg_sleep", expressions=[exp.Literal.number(5)])),
    "an escaped function name": _with_projection(exp.Anonymous(this="pg\\005fread_file", expressions=[])),
    "a sequence call": _with_projection(exp.column("nextval", table="seq")),
    "a server-file table": lambda tree: tree.join("pg_file_settings", join_type="cross", copy=False),
    "a table that is a file": lambda tree: tree.join(exp.Table(this=exp.to_identifier("/etc/x.csv", quoted=True)),
                                                     join_type="cross", copy=False),
    "SELECT INTO": lambda tree: tree.set("into", exp.Into(this=exp.to_table("stolen"))) or tree,
    "FOR UPDATE": lambda tree: tree.lock(copy=False),
    "a data-modifying CTE": lambda tree: tree.with_("gone", as_=exp.delete("orders"), copy=False),
    "a statement instead of a query": lambda tree: exp.delete("orders"),
}
INJECTION_DIALECTS = ("duckdb", "postgres", "mysql", "sqlite", "snowflake", "bigquery", "trino", "clickhouse")


@pytest.mark.parametrize("dialect", INJECTION_DIALECTS)
@pytest.mark.parametrize("what", sorted(INJECTED))
def test_what_the_guard_refuses_is_refused_on_the_tree_as_on_the_text(layers: Any, what: str,  # noqa: F811
                                                                      dialect: str) -> None:
    layer = layers["shop"]
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}
    tree = INJECTED[what](layer.compile_expression(smq, dialect=dialect))
    try:
        sql = tree.sql(dialect=dialect, unsupported_level=sqlglot.ErrorLevel.RAISE)
    except sqlglot.errors.UnsupportedError:
        pytest.skip(f"{dialect} has no way to write {what}")
    with pytest.raises(ReadOnlyViolation):
        check_generated(tree, sql, dialect)
    # the text is refused too, in its own words where the dialect writes the thing differently (SELECT INTO
    # as CREATE TABLE ... AS, BigQuery's dotted names as paths), or as unreadable
    with pytest.raises((ReadOnlyViolation, SqlSyntaxError)):
        check_read_only(sql, dialect)


def test_a_compiler_bug_is_refused_before_anything_is_remembered(layers: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    layer = layers["shop"]
    real = layer.compile_expression
    monkeypatch.setattr(layer, "compile_expression", lambda *a, **k: INJECTED["a file function"](real(*a, **k)))
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"], "limit": 4242}
    with pytest.raises(ReadOnlyViolation, match="function read_csv is not allowed"):
        compiled_sql(layer, smq)
    monkeypatch.setattr(layer, "compile_expression", real)
    assert "read_csv" not in compiled_sql(layer, smq)  # nothing wrong was kept for the SMQ


def test_a_vouched_text_is_not_parsed_again(layers: Any, tmp_path: Path,  # noqa: F811
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from smq_db.open import open_for_layer

    layer = layers["shop"]
    parses: list[str] = []
    real_parse = sqlglot.parse
    monkeypatch.setattr(readonly.sqlglot, "parse", lambda sql, **kw: parses.append(sql) or real_parse(sql, **kw))
    executor = open_for_layer(layer, connection={**layer.semantic.connection, "limits": {"isolation": "none"}})
    try:
        for limit in (11, 12, 13):  # three new SMQs
            sql = compiled_sql(layer, {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"],
                                       "limit": limit})
            assert executor.execute(sql).row_count == 6
        assert parses == []
        executor.execute("SELECT 42 AS answer")  # a client's text: parsed, as ever
        assert parses == ["SELECT 42 AS answer"]
    finally:
        executor.close()


# text a client puts into a compiled query: the value of a filter's string literal (no `{{`: MetricFlow's
# template syntax, which the filter parser reads before SQL)
_LITERAL_TEXT = st.lists(st.sampled_from(list("a'\"\\`;-/*!#$%\n\t ") + ["\u00a0", "\u2028", "é", "😀", "--", "/*", "*/",
                                                                            "/*!", "\\'", "$$"]),
                         max_size=8).map("".join)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(value=_LITERAL_TEXT)
def test_a_filters_string_comes_back_from_the_text_unchanged(value: str) -> None:
    from engine import load_layers

    from ..conftest import DEMO_MODELS

    layer = _demo(load_layers, DEMO_MODELS)
    quoted = "'" + value.replace("'", "''") + "'"
    smq = {"metrics": ["OrdersModel__orderCount"], "filters": [f"OrdersModel__status = {quoted}"]}
    for dialect in SUPPORTED_DIALECTS:
        tree = layer.compile_expression(smq, dialect=dialect)
        sql = tree.sql(dialect=dialect, pretty=True, copy=False)
        check_generated(tree, sql, dialect)
        back = check_read_only(sql, dialect)
        assert value in [lit.this for lit in back.find_all(exp.Literal) if lit.is_string], (dialect, sql)


_DEMO: dict[str, Any] = {}


def _demo(load: Callable[..., Any], models: Path) -> Any:
    if "shop" not in _DEMO:
        _DEMO["shop"] = load(models)["shop"]
    return _DEMO["shop"]
