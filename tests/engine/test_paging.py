"""Paging at the engine level (engine/paging.py): the pages of a query, concatenated, are its whole ordered result,
on every engine, also when its order has ties (many customer counts are equal), and never past the SMQ's own limit.
The probe row (one beyond the page) is fetched only while more rows may exist."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sqlglot

from engine import load_layers
from engine.facade import Layer
from engine.paging import paginate

from ..conftest import DEMO_MODELS, Runner

ENGINES = ("sqlite", "duckdb", "postgres", "mysql")
TIED = {"metrics": ["CustomersModel__customerCount"], "group_by": ["CustomersModel__segment", "NationsModel__country"],
        "order_by": ["-CustomersModel__customerCount"]}


@pytest.fixture(scope="module")
def shop() -> Layer:
    return load_layers(DEMO_MODELS)["shop"]


def pages(shop: Layer, run: Runner, smq: dict, engine: str, size: int) -> tuple[list[tuple], list[int]]:
    """Every page's rows in turn (until a short page), and how many rows each page's run fetched."""
    query = shop.compile_expression(smq, engine)
    out: list[tuple] = []
    fetched = []
    offset = 0
    for _ in range(200):  # a page that never comes up short is a bug, not a long result
        page = paginate(query, size, offset)
        _, rows = run(page.run.sql(dialect=engine))
        fetched.append(len(rows))
        out += rows[: page.size]
        if len(rows) <= page.size:
            return out, fetched
        offset += page.size
    raise AssertionError(f"pages of {size} never end on {engine}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("smq", "key"), [
    (TIED, 2),
    ({**TIED, "limit": 11}, 2),
    ({"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"],
      "order_by": ["OrdersModel__channel"]}, 0),  # ordered by one of two keys: every channel ties 24 times
], ids=["tied", "tied_limit", "tied_key"])
def test_pages_concatenated_are_the_whole_result(shop: Layer, runners: Callable[[str], Runner], engine: str, smq: dict,
                                                 key: int) -> None:
    run = runners(engine)
    _, whole = run(shop.compile(smq, dialect=engine))
    assert len(whole) > 7 and len(whole) == len(set(whole))
    ordered_by = [row[key] for row in whole]
    assert len(set(ordered_by)) < len(ordered_by), "the order must have ties for this test to mean anything"
    for size in (3, 7):
        got, fetched = pages(shop, run, smq, engine, size)
        assert got == whole, f"pages of {size} on {engine}"
        assert all(n == size + 1 for n in fetched[:-1]) and fetched[-1] <= size


def test_a_page_stays_within_the_queries_limit(shop: Layer) -> None:
    query = shop.compile_expression({**TIED, "limit": 5}, "duckdb")
    assert paginate(query, 3, 0).size == 3 and paginate(query, 3, 3).size == 2 and paginate(query, 3, 6).size == 0
    last = paginate(query, 3, 3)
    assert last.run.args["limit"].expression.name == "2"  # no probe row past the query's own limit
    assert sqlglot.parse_one(last.shown.sql("duckdb"), read="duckdb").args["offset"].expression.name == "3"


def test_paging_parses_no_sql(shop: Layer, monkeypatch: pytest.MonkeyPatch) -> None:
    """LIMIT and OFFSET are built from literals: sqlglot's builders would parse a Python int as SQL text (30 µs a
    call, more than the rest of paging). Also for a query paged over as a subquery (it has an OFFSET already)."""
    query = shop.compile_expression(TIED, "duckdb")
    wrapped = paginate(query, 5, 3).run  # has LIMIT and OFFSET: paged again, it is wrapped in a subquery

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"paging parsed SQL text: {args!r}")

    monkeypatch.setattr(sqlglot, "parse_one", no_parse)
    page = paginate(query, 10, 20)
    assert page.run.sql("duckdb").endswith("LIMIT 11 OFFSET 20") and page.shown.sql("duckdb").endswith("LIMIT 10 OFFSET 20")
    again = paginate(wrapped, 2, 1)
    assert again.run.sql("duckdb").startswith("SELECT * FROM (") and again.run.sql("duckdb").endswith("LIMIT 3 OFFSET 1")
