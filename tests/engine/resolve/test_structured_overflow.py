"""Structured filter values past what a calendar or an engine's numbers hold are the caller's error, named at
their field: before the fix `inDateRange ["9999-12-31"]` was a 500 internal_error (Python's date overflowed
computing the range's end), and `1e999`, `NaN`, a 400-digit integer or `last 10^20 days` reached the database
as SQL (`> inf`, `INTERVAL '-99999999999999999999' DAY`), where they failed or meant something else."""

from __future__ import annotations

from typing import Any

import pytest

from engine import QueryError, load_layers
from engine.facade import Layer

from ...conftest import DEMO_MODELS

DATE = "OrdersModel__orderDate"
NUMBER = "OrderItemsModel__quantity"

HOSTILE = [
    ({"member": DATE, "operator": "inDateRange", "values": ["9999-12-31"]}, "filters[0].values[0]", "last day of the calendar"),
    ({"member": DATE, "operator": "inDateRange", "values": ["2024-01-01", "9999-12-31"]}, "filters[0].values[1]",
     "last day of the calendar"),
    ({"member": DATE, "operator": "afterDate", "values": ["9999-12-31"]}, "filters[0].values[0]", "last day of the calendar"),
    ({"member": DATE, "operator": "inDateRange", "values": ["last 99999999999999999999 days"]}, "filters[0].values[0]",
     "at most 3,652,425 days"),
    ({"member": DATE, "operator": "inDateRange", "values": ["next 20000 years"]}, "filters[0].values[0]", "at most 10,000 years"),
    ({"member": NUMBER, "operator": "gt", "values": ["1e999"]}, "filters[0].values[0]", "not a finite number"),
    ({"member": NUMBER, "operator": "gt", "values": [float("inf")]}, "filters[0].values[0]", "not a finite number"),
    ({"member": NUMBER, "operator": "equals", "values": ["NaN"]}, "filters[0].values[0]", "not a finite number"),
    ({"member": NUMBER, "operator": "lt", "values": [10 ** 400]}, "filters[0].values[0]", "more than 38 digits"),
    ({"member": NUMBER, "operator": "equals", "values": [1, "9" * 60]}, "filters[0].values[1]", "more than 38 digits"),
    ({"and": [{"member": NUMBER, "operator": "gte", "values": [1]},
              {"member": DATE, "operator": "beforeOrOnDate", "values": ["9999-12-31"]}]}, "filters[0].and[1].values[0]",
     "last day of the calendar"),
]


@pytest.fixture(scope="module")
def shop() -> Layer:
    return load_layers(DEMO_MODELS)["shop"]


@pytest.mark.parametrize(("structured", "field", "words"), HOSTILE, ids=lambda v: str(v)[:60])
def test_overflowing_values_are_a_query_error_at_their_field(shop: Layer, structured: dict[str, Any], field: str,
                                                             words: str) -> None:
    with pytest.raises(QueryError) as err:
        shop.compile({"metrics": ["OrdersModel__orderCount"], "filters": [structured]}, dialect="duckdb")
    assert err.value.code == "invalid_filter"
    assert err.value.location.field == field
    assert words in err.value.message


@pytest.mark.parametrize("structured", [
    {"member": DATE, "operator": "inDateRange", "values": ["9999-12-30"]},
    {"member": DATE, "operator": "inDateRange", "values": ["last 3652425 days"]},
    {"member": NUMBER, "operator": "gt", "values": ["1e308"]},
    {"member": NUMBER, "operator": "lt", "values": [10 ** 37]},
], ids=str)
def test_the_largest_values_still_compile(shop: Layer, structured: dict[str, Any]) -> None:
    assert "SELECT" in shop.compile({"metrics": ["OrdersModel__orderCount"], "filters": [structured]}, dialect="duckdb")
