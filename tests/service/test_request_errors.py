"""A body that is not JSON, or not sent as JSON, gets a detail saying so (still the 422 `invalid_request` problem)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from .conftest import auth


@pytest.mark.parametrize(("content", "headers", "fragment"), [
    (b'{"smq":\n {"metrics": ["OrdersModel__orderCount"]},}', {"Content-Type": "application/json"},
     "the request body is not valid JSON: Expecting property name enclosed in double quotes at line 2 column"),
    (b'{"smq": {"metrics": ["OrdersModel__orderCount"]}}', {}, "`Content-Type: application/json` (got no Content-Type)"),
    (b'{"smq": {"metrics": ["OrdersModel__orderCount"]}}', {"Content-Type": "text/plain"}, "(got 'text/plain')"),
    (b'[1]', {"Content-Type": "application/json"}, "must be a JSON object"),
])
def test_body_problems_say_what_to_send(client: TestClient, content: bytes, headers: dict, fragment: str) -> None:
    answer = client.post("/v1/databases/shop/compile", content=content, headers={**auth("shop-key"), **headers})
    body = answer.json()
    assert answer.status_code == 422 and answer.headers["content-type"] == "application/problem+json"
    assert body["code"] == "invalid_request" and fragment in body["detail"], body
    assert "JSON decode error" not in body["detail"] and "valid dictionary" not in body["detail"]
    assert body["errors"][0]["location"]["field"] == "body"


def test_other_validation_errors_are_unchanged(client: TestClient) -> None:
    answer = client.post("/v1/databases/shop/compile", json={"smq": {"metrics": ["OrdersModel__orderCount"]}, "bogus": 1},
                         headers=auth("shop-key"))
    assert answer.status_code == 422 and answer.json()["errors"][0]["location"]["field"] == "bogus"
