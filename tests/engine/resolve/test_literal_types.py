"""A filter's literals are typed against their elements before any engine sees them, so the same SMQ gives the same
rows or the same error on every engine. `OrdersModel__status = 0` answered every row on MariaDB (it compares as
numbers), none on SQLite and an operator error on PostgreSQL; `OrdersModel__orderId = 'abc'` was DuckDB's raw
Conversion Error, with no filters[0]."""

from __future__ import annotations

import pytest

from engine import QueryError, load_layers

from ...conftest import DEMO_MODELS

ENGINES = ("sqlite", "duckdb", "postgres", "mysql", "snowflake")
SHOP = load_layers(DEMO_MODELS)["shop"]


def _smq(*filters: object) -> dict:
    return {"metrics": ["OrdersModel__orderCount"], "filters": list(filters)}


@pytest.mark.parametrize(("text", "fragment"), [
    ("OrdersModel__status = 0", "OrdersModel__status is a string dimension, and 0 is not text; write the value quoted: "
                                "OrdersModel__status = '0'"),
    ("OrdersModel__status IN ('shipped', 1)", "write the value quoted: OrdersModel__status = '1'"),
    ("OrdersModel__orderId = 'abc'", "OrdersModel__orderId is a number, and 'abc' is not one"),
    ("OrdersModel__orderDate >= '2024-02-30'", "'2024-02-30' is not a real day"),
    ("OrdersModel__orderDate >= 20240101", "20240101 is not a date; write it quoted"),
    ("OrdersModel__orderDate BETWEEN '2024-01-01' AND 'soon'", "'soon' is not a date"),
    ("OrdersModel__status LIKE 5", "the pattern of LIKE is text"),
    ("OrdersModel__orderId LIKE '4%'", "LIKE compares text, and OrdersModel__orderId is a number"),
    ("OrdersModel__orderCount > 'many'", "OrdersModel__orderCount is a number, and 'many' is not one"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_an_ill_typed_literal_is_refused_the_same_on_every_engine(engine: str, text: str, fragment: str) -> None:
    with pytest.raises(QueryError) as err:
        SHOP.compile(_smq(text), dialect=engine, use_cache=False)
    assert err.value.code == "invalid_literal" and err.value.location.field == "filters[0]"
    assert fragment in err.value.message, err.value.message


@pytest.mark.parametrize("engine", ENGINES)
def test_a_structured_value_is_typed_by_its_member(engine: str) -> None:
    """A JSON number for a string member is the text it spells; a non-number for a number member is refused."""
    as_text = SHOP.compile(_smq({"member": "OrdersModel__status", "operator": "equals", "values": [0]}), dialect=engine)
    assert "'0'" in as_text
    with pytest.raises(QueryError) as err:
        SHOP.compile(_smq({"member": "OrdersModel__orderId", "operator": "equals", "values": ["abc"]}), dialect=engine)
    assert err.value.location.field.startswith("filters[0]")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_quoted_number_is_the_number_on_every_engine(runners, engine: str) -> None:
    """'100042' for a number dimension is typed as 100042: the same rows everywhere (MariaDB and SQLite would otherwise
    compare text and numbers each their own way)."""
    _, expected = runners("duckdb")(SHOP.compile(_smq("OrdersModel__orderId <= 100042"), dialect="duckdb"))
    _, quoted = runners(engine)(SHOP.compile(_smq("OrdersModel__orderId <= '100042'"), dialect=engine))
    assert [tuple(map(float, r)) for r in quoted] == [tuple(map(float, r)) for r in expected] == [(42.0,)]
