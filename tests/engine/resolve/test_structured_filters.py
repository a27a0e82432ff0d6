"""Structured filters (`{member, operator, values}`, `and`/`or`) compile to the same checked tree as SQL text.

The per-operator golden SQL and the results on every engine are cases in cases.yml (structured_*);
here: they select rows at all, they mean what the equivalent SQL-string filter means, values never
become SQL text, and bad ones get an error naming the exact field.
"""

from __future__ import annotations

import pytest

from engine import QueryError, load_layers
from engine.facade import Layer

from ...conftest import DEMO_MODELS
from ..test_engines import CASES


@pytest.fixture(scope="module")
def shop() -> Layer:
    return load_layers(DEMO_MODELS)["shop"]


@pytest.mark.parametrize("case", [c for c in CASES if c["name"].startswith("structured_")], ids=lambda c: c["name"])
def test_each_structured_case_selects_rows(shop, duckdb_runner, case: dict) -> None:
    """An empty answer would make the cross-engine comparison in cases.yml prove nothing."""
    _, rows = duckdb_runner(shop.compile(case["smq"], dialect="duckdb"))
    assert rows and any(v for row in rows for v in row)


@pytest.mark.parametrize(("structured", "text"), [
    ({"member": "OrdersModel__status", "operator": "equals", "values": ["shipped"]}, "OrdersModel__status = 'shipped'"),
    ({"member": "OrdersModel__status", "operator": "equals", "values": ["shipped", "returned"]},
     "OrdersModel__status IN ('shipped', 'returned')"),
    ({"member": "OrdersModel__orderId", "operator": "gte", "values": ["7"]}, "OrdersModel__orderId >= 7"),
    ({"member": "OrdersModel__shippedAt", "operator": "notSet"}, "OrdersModel__shippedAt IS NULL"),
    ({"member": "OrdersModel__orderDate", "operator": "beforeDate", "values": ["today"]}, "OrdersModel__orderDate < CURRENT_DATE"),
    ({"member": "OrdersModel__orderDate", "operator": "afterOrOnDate", "values": ["yesterday"]},
     "OrdersModel__orderDate >= CURRENT_DATE - INTERVAL '1' DAY"),
])
def test_structured_filter_means_the_string_filter(shop, structured: dict, text: str) -> None:
    base = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]}
    for dialect in ("duckdb", "sqlite", "mysql"):
        assert shop.compile({**base, "filters": [structured]}, dialect=dialect, use_cache=False) == \
            shop.compile({**base, "filters": [text]}, dialect=dialect, use_cache=False)


def test_relative_ranges_stay_relative(shop) -> None:
    """No date is baked in: the SQL is built on CURRENT_DATE, so it is the same tomorrow."""
    sql = shop.compile({"metrics": ["OrdersModel__orderCount"], "filters": [
        {"member": "OrdersModel__orderDate", "operator": "inDateRange", "values": ["this month"]}]}, dialect="postgres")
    assert "CURRENT_DATE" in sql and "DATE_TRUNC('month', CURRENT_DATE)" in sql
    assert "20" not in sql.split("WHERE", 1)[1]


def test_measure_filters_go_to_having(shop) -> None:
    sql = shop.compile({"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"], "filters": [
        {"member": "OrdersModel__orderCount", "operator": "gt", "values": [3]}]}, dialect="duckdb")
    assert "HAVING\n  COUNT(\"orders\".order_id) > 3" in sql and "WHERE" not in sql


def test_values_are_literals_never_sql(shop, duckdb_runner) -> None:
    evil = "x' OR 1=1 --"
    sql = shop.compile({"metrics": ["OrdersModel__orderCount"], "filters": [
        {"member": "OrdersModel__status", "operator": "equals", "values": [evil]},
        {"member": "OrdersModel__status", "operator": "contains", "values": [evil]}]}, dialect="duckdb")
    assert "'x'' OR 1=1 --'" in sql
    _, rows = duckdb_runner(sql)
    assert rows == [(0,)]


def error(layer: Layer, smq: dict) -> QueryError:
    with pytest.raises(QueryError) as info:
        layer.compile(smq)
    return info.value


@pytest.mark.parametrize(("filters", "code", "field", "fragment"), [
    (["OrdersModel__status = 'x'", "OrdersModel__status IS NOT NULL",
      {"member": "OrdersModel__stauts", "operator": "equals", "values": ["x"]}],
     "unknown_element", "filters[2].member", "did you mean 'OrdersModel__status'"),
    ([{"or": [{"member": "OrdersModel__status", "operator": "set"}, {"member": "OrdersModel__x", "operator": "set"}]}],
     "unknown_element", "filters[0].or[1].member", "OrdersModel__x"),
    ([{"member": "OrdersModel__status", "operator": "equal", "values": ["x"]}], "invalid_filter", "filters[0].operator",
     "did you mean 'equals'"),
    ([{"member": "OrdersModel__status", "operator": "inDateRange", "values": ["today"]}], "invalid_filter",
     "filters[0].operator", "needs a time dimension"),
    ([{"member": "OrdersModel__orderDate", "operator": "inDateRange", "values": ["last fortnight"]}], "invalid_filter",
     "filters[0].values[0]", "is not a date or date range"),
    ([{"member": "OrdersModel__orderDate", "operator": "afterDate", "values": ["2024-02-30"]}], "invalid_filter",
     "filters[0].values[0]", "not a valid date"),
    ([{"member": "OrdersModel__orderId", "operator": "gt", "values": ["1; DROP TABLE orders"]}], "invalid_filter",
     "filters[0].values[0]", "is not a number"),
    ([{"member": "OrdersModel__orderId", "operator": "gt", "values": [1, 2]}], "invalid_filter", "filters[0].values",
     "exactly one value"),
    ([{"member": "OrdersModel__status", "operator": "set", "values": ["x"]}], "invalid_filter", "filters[0].values", "no values"),
    ([{"member": "OrdersModel__status", "operator": "equals"}], "invalid_filter", "filters[0].values", "at least one value"),
    ([{"member": "OrdersModel__status", "operator": "equals", "value": ["x"]}], "unknown_key", "filters[0].value",
     "did you mean 'values'"),
    ([{"and": []}], "invalid_smq", "filters[0].and", "non-empty list"),
    ([{"and": ["OrdersModel__status = 'x'"]}], "invalid_smq", "filters[0].and[0]", "every filter is an object"),
    ([{"or": [{"member": "OrdersModel__status", "operator": "set"},
              {"member": "OrdersModel__orderCount", "operator": "gt", "values": [1]}]}],
     "invalid_filter", "filters[0]", "mixes dimensions and measures"),
])
def test_bad_structured_filters_name_the_field(shop, filters: list, code: str, field: str, fragment: str) -> None:
    err = error(shop, {"metrics": ["OrdersModel__orderCount"], "filters": filters})
    assert (err.code, err.location.field) == (code, field), err.formatted()
    assert fragment in err.formatted()
