"""Overflowing filter values over REST and Cube: a 400 naming the field, never a 500 (`inDateRange ["9999-12-31"]` was
500 internal_error, an OverflowError). The cases themselves are in tests/engine/resolve/test_structured_overflow.py."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from .conftest import auth

DATE = "OrdersModel__orderDate"


@pytest.mark.parametrize(("structured", "field"), [
    ({"member": DATE, "operator": "inDateRange", "values": ["9999-12-31"]}, "smq.filters[0].values[0]"),
    ({"member": "OrderItemsModel__quantity", "operator": "gt", "values": ["1e999"]}, "smq.filters[0].values[0]"),
])
def test_rest_query_and_compile_answer_400_at_the_field(client: TestClient, structured: dict, field: str) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "filters": [structured]}
    for path in ("/v1/databases/shop/query", "/v1/databases/shop/compile"):
        r = client.post(path, json={"smq": smq}, headers=auth("de-key"))
        assert r.status_code == 400 and r.json()["code"] == "invalid_filter", (path, r.text)
        assert r.json()["errors"][0]["location"]["field"].endswith(field.removeprefix("smq.")), r.json()["errors"]


def test_cube_date_range_past_the_calendar_is_a_400_at_its_field(client: TestClient) -> None:
    query = {"measures": ["OrdersModel.orderCount"],
             "timeDimensions": [{"dimension": "OrdersModel.orderDate", "dateRange": ["9999-12-31"]}]}
    r = client.post("/cubejs-api/v1/load", json={"query": query}, headers={"Authorization": "shop-key"})
    assert r.status_code == 400 and r.json()["code"] == "invalid_filter", r.text
    assert "timeDimensions" in r.json()["errors"][0]["location"]["field"] and "last day of the calendar" in r.json()["error"]
