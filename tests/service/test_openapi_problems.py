"""The OpenAPI document says what the service sends: every error as application/problem+json with the
Problem schema (not FastAPI's application/json and HTTPValidationError), and result columns typed."""

from __future__ import annotations

from .conftest import auth

PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def test_every_error_response_is_declared_as_problem_json(client) -> None:
    doc = client.get("/openapi.json").json()
    errors = [(path, method, status, response)
              for path, operations in doc["paths"].items() for method, operation in operations.items()
              for status, response in operation["responses"].items() if status[0] in "45"]
    assert len(errors) > 40
    wrong = [(path, method, status) for path, method, status, response in errors if response.get("content") != PROBLEM]
    assert not wrong, wrong
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    assert doc["paths"]["/v1/databases/{db}/query"]["post"]["responses"]["422"]["content"] == PROBLEM


def test_what_is_declared_is_what_is_sent(client) -> None:
    bad_body = client.post("/v1/databases/shop/query", json={"smq": {}, "limt": 1}, headers=auth("shop-key"))
    no_key = client.post("/v1/databases/shop/query", json={"smq": {}})
    for response in (bad_body, no_key):
        assert response.headers["content-type"] == "application/problem+json"
        assert {"type", "title", "status", "detail", "code", "errors", "instance"} <= response.json().keys()


def test_result_columns_are_typed_in_the_document(client) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["QueryResponse"]["properties"]["fields"]["items"] == {"$ref": "#/components/schemas/ResultColumn"}
    assert schemas["Rows"]["properties"]["fields"]["items"] == {"$ref": "#/components/schemas/ResultColumn"}
    column = schemas["ResultColumn"]["properties"]
    assert {"enum": ["number", "string", "time", "boolean", "other"], "type": "string"} in column["type"]["anyOf"]
    assert set(column) == {"name", "type", "grain", "db_type", "element", "element_kind", "format"}
    assert "fields" in schemas["QueryResponse"]["required"] and "columns" in schemas["QueryResponse"]["required"]
    assert schemas["QueryResponse"]["properties"]["rows"]["items"]["type"] == "array"  # rows stay arrays
    content = client.get("/openapi.json").json()["paths"]["/v1/databases/{db}/query"]["get"]["responses"]["200"]["content"]
    assert {"application/json", "text/csv", "application/vnd.apache.arrow.stream", "application/x-ndjson"} <= content.keys()
