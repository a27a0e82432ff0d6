"""Answers the way front ends fetch them: typed columns, JSON/CSV/Arrow/NDJSON, totals, GET, compression.

Every format is checked against the JSON answer of the same query, on the demo database (DuckDB) and,
when the local server is up, on PostgreSQL (its own type names).
"""

from __future__ import annotations

import gzip
import io
import json
import urllib.parse

import brotli
import pandas as pd
import pyarrow as pa
import pytest

from .conftest import auth

QUERY = "/v1/databases/shop/query"
SMQ = {"metrics": ["OrdersModel__orderCount", "unpaidRevenue"],
       "group_by": ["OrdersModel__status", "OrdersModel__orderDate__month", "OrdersModel__orderDate__extract_year"],
       "order_by": ["OrdersModel__status", "OrdersModel__orderDate__month"]}
BIG = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__day", "OrdersModel__status"],
       "order_by": ["OrdersModel__orderDate__day", "OrdersModel__status"]}
KEY = auth("shop-key")


def _value(value):
    """A pandas cell as JSON has it: None for every kind of missing value."""
    return None if value is None or value is pd.NaT or (not isinstance(value, str) and pd.isna(value)) else value


def _post(client, body, **params):
    return client.post(QUERY, json=body, params=params, headers=KEY)


def test_columns_are_typed_from_the_layer_and_the_database(client) -> None:
    answer = _post(client, {"smq": SMQ, "limit": 5}).json()
    fields = {f["name"]: f for f in answer["fields"]}
    assert [f["name"] for f in answer["fields"]] == answer["columns"]
    assert fields["OrdersModel__status"] == {"name": "OrdersModel__status", "type": "string", "grain": None,
                                             "db_type": "VARCHAR", "element": "OrdersModel__status",
                                             "element_kind": "dimension", "format": None}
    month = fields["OrdersModel__orderDate__month"]
    assert (month["type"], month["grain"], month["element"], month["db_type"]) == ("time", "month", "OrdersModel__orderDate", "DATE")
    year = fields["OrdersModel__orderDate__extract_year"]
    assert (year["type"], year["grain"], year["element"]) == ("number", None, "OrdersModel__orderDate")
    count = fields["OrdersModel__orderCount"]
    assert (count["type"], count["element_kind"], count["element"], count["db_type"]) == ("number", "measure", "OrdersModel__orderCount", "BIGINT")
    revenue = fields["unpaidRevenue"]
    assert (revenue["type"], revenue["element_kind"], revenue["element"]) == ("number", "metric", "unpaidRevenue")
    assert revenue["db_type"].startswith("DECIMAL")
    # the existing fields are unchanged
    assert {"sql", "columns", "rows", "row_count", "truncated", "elapsed_ms", "limit", "offset"} <= answer.keys()
    assert answer["total"] is None


def test_raw_sql_columns_have_database_types_and_no_element(client) -> None:
    answer = client.post("/v1/databases/shop/execute", headers=KEY,
                         json={"sql": "SELECT status, COUNT(*) AS n, MIN(order_date) AS first_day, TRUE AS flag "
                                      "FROM orders GROUP BY status"}).json()
    types = {f["name"]: (f["type"], f["grain"], f["db_type"], f["element"]) for f in answer["fields"]}
    assert types == {"status": ("string", None, "VARCHAR", None), "n": ("number", None, "BIGINT", None),
                     "first_day": ("time", "day", "DATE", None), "flag": ("boolean", None, "BOOLEAN", None)}


def test_postgres_columns_carry_postgres_type_names(client, pg_available) -> None:
    if not pg_available:
        pytest.skip("PostgreSQL is not reachable")
    answer = client.post("/v1/databases/shop_pg/query", headers=auth("all-key"), json={"smq": SMQ, "limit": 3}).json()
    fields = {f["name"]: f for f in answer["fields"]}
    assert fields["OrdersModel__orderCount"]["db_type"] == "int8"
    assert fields["OrdersModel__orderDate__month"]["type"] == "time"
    assert fields["unpaidRevenue"]["db_type"].startswith("numeric") and fields["unpaidRevenue"]["type"] == "number"


def test_csv_opens_in_pandas_with_the_json_values(client) -> None:
    expected = _post(client, {"smq": SMQ}).json()
    response = _post(client, {"smq": SMQ}, format="csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert response.headers["x-smq-row-count"] == str(expected["row_count"])
    frame = pd.read_csv(io.BytesIO(response.content))
    assert list(frame.columns) == expected["columns"]
    got = [[None if pd.isna(v) else v for v in row] for row in frame.astype(object).values.tolist()]
    for mine, theirs in zip(got, expected["rows"], strict=True):
        assert mine[:4] == theirs[:4]
        assert (mine[4] is None and theirs[4] is None) or mine[4] == pytest.approx(theirs[4])


def test_arrow_opens_in_pandas_with_the_json_values_and_typed_columns(client) -> None:
    expected = _post(client, {"smq": SMQ}).json()
    response = _post(client, {"smq": SMQ}, format="arrow")
    assert response.headers["content-type"] == "application/vnd.apache.arrow.stream"
    table = pa.ipc.open_stream(response.content).read_all()
    assert table.column_names == expected["columns"]
    assert pa.types.is_date32(table.schema.field("OrdersModel__orderDate__month").type)
    assert table.schema.field("OrdersModel__orderDate__month").metadata[b"smq.grain"] == b"month"
    assert pa.types.is_integer(table.schema.field("OrdersModel__orderCount").type)
    assert json.loads(table.schema.metadata[b"row_count"]) == expected["row_count"]
    frame = table.to_pandas()
    for i, row in enumerate(expected["rows"]):
        status, month, year, count, revenue = (_value(frame[c][i]) for c in expected["columns"])
        assert [status, year, count] == [row[0], row[2], row[3]]
        assert (month is None and row[1] is None) or month.isoformat() == row[1]
        assert (revenue is None and row[4] is None) or revenue == pytest.approx(row[4])


def test_ndjson_streams_a_head_line_then_one_row_per_line(client, monkeypatch) -> None:
    monkeypatch.setattr("service.result_formats.NDJSON_CHUNK_ROWS", 100)  # the 1,000-row cap: ten pieces
    expected = _post(client, {"smq": BIG}).json()
    with client.stream("POST", QUERY, json={"smq": BIG}, headers={**KEY, "Accept": "application/x-ndjson"}) as response:
        assert response.headers["content-type"] == "application/x-ndjson"
        assert "content-length" not in response.headers  # streamed, not one body
        lines = [json.loads(line) for line in response.iter_lines() if line]
    head, rows = lines[0], lines[1:]
    assert head["columns"] == expected["columns"] and head["fields"] == expected["fields"] and "rows" not in head
    assert head["row_count"] == len(rows) == expected["row_count"] == 1000 and head["truncated"]
    assert rows == expected["rows"]


@pytest.mark.parametrize(("accept", "media"), [
    ("text/csv", "text/csv"), ("application/vnd.apache.arrow.stream", "application/vnd.apache.arrow.stream"),
    ("text/csv;q=0.5, application/x-ndjson", "application/x-ndjson"), ("text/html, */*", "application/json"),
])
def test_the_accept_header_picks_the_format(client, accept, media) -> None:
    response = client.post(QUERY, json={"smq": SMQ, "limit": 2}, headers={**KEY, "Accept": accept})
    assert response.status_code == 200 and response.headers["content-type"].startswith(media)
    assert "Accept" in response.headers["vary"]


def test_the_format_parameter_wins_over_accept_and_is_checked(client) -> None:
    response = client.post(QUERY, json={"smq": SMQ, "limit": 2}, params={"format": "csv"},
                           headers={**KEY, "Accept": "application/json"})
    assert response.headers["content-type"].startswith("text/csv")
    bad = client.post(QUERY, json={"smq": SMQ}, params={"format": "xml"}, headers=KEY)
    assert bad.status_code == 422 and bad.headers["content-type"] == "application/problem+json"


def test_total_counts_the_whole_answer_not_the_page(client, duck) -> None:
    page = _post(client, {"smq": SMQ, "limit": 3, "offset": 2, "total": True}).json()
    whole = _post(client, {"smq": SMQ}).json()
    assert page["row_count"] == 3 and page["total"] == whole["row_count"] > 3
    assert _post(client, {"smq": SMQ, "limit": 3}, total="true").json()["total"] == whole["row_count"]
    (truth,) = duck(f"SELECT COUNT(*) FROM ({whole['sql']})")
    assert page["total"] == truth[0]
    limited = _post(client, {"smq": {**SMQ, "limit": 7}, "limit": 2, "total": True}).json()
    assert limited["total"] == 7  # the SMQ's own limit is part of the query; the page is not
    n = whole["row_count"]
    for offset in (n - 2, n, n + 5):  # the last page knows its total; past the end it is counted
        assert _post(client, {"smq": SMQ, "limit": 5, "offset": offset, "total": True}).json()["total"] == n
    csv = _post(client, {"smq": SMQ, "limit": 3}, format="csv", total="true")
    assert csv.headers["x-smq-total"] == str(whole["row_count"])


def test_get_equals_post(client) -> None:
    posted = _post(client, {"smq": SMQ, "limit": 4, "offset": 1}).json()
    got = client.get(QUERY, params={"q": json.dumps(SMQ), "limit": 4, "offset": 1}, headers=KEY)
    assert got.status_code == 200
    body = got.json()
    for key in ("sql", "columns", "fields", "rows", "row_count", "truncated", "limit", "offset"):
        assert body[key] == posted[key], key
    url = f"{QUERY}?q={urllib.parse.quote(json.dumps(SMQ))}&format=csv"
    assert client.get(url, headers=KEY).content == _post(client, {"smq": SMQ}, format="csv").content


def test_a_wrong_method_lists_both_methods_of_query(client) -> None:
    response = client.request("PUT", QUERY, headers=KEY)
    assert response.status_code == 405 and set(response.headers["allow"].split(", ")) == {"GET", "POST"}


@pytest.mark.parametrize("q", ["{not json", "[1, 2]"])
def test_get_with_a_bad_q_is_a_problem(client, q) -> None:
    response = client.get(QUERY, params={"q": q}, headers=KEY)
    assert response.status_code == 422 and response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "invalid_request" and response.json()["errors"][0]["location"]["field"] == "q"


@pytest.mark.parametrize(("body", "field"), [
    ({"smq": {**SMQ, "limit": 10**20}}, "smq.limit"),
    ({"smq": SMQ, "limit": 10**20}, "limit"),
    ({"smq": SMQ, "offset": 10**20}, "offset"),
])
def test_a_limit_above_the_maximum_is_a_clear_422(client, body, field) -> None:
    response = _post(client, body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "limit_too_large" and "1,000,000,000" in problem["detail"]
    assert problem["errors"][0]["location"]["field"] == field
    assert "INT128" not in response.text and "overflow" not in response.text.lower()
    get = client.get(QUERY, params={"q": json.dumps(body["smq"]), **{k: v for k, v in body.items() if k != "smq"}},
                     headers=KEY)
    assert get.status_code == 422 and get.json()["code"] == "limit_too_large"


def test_compile_refuses_the_same_limit(client) -> None:
    response = client.post("/v1/databases/shop/compile", json={"smq": {**SMQ, "limit": 10**12}}, headers=KEY)
    assert response.status_code == 422 and response.json()["code"] == "limit_too_large"
    fine = client.post("/v1/databases/shop/compile", json={"smq": {**SMQ, "limit": 10**9}, "preview": False}, headers=KEY)
    assert fine.status_code == 200 and "1000000000" in fine.json()["sql"]


def test_the_limit_maximum_is_in_the_smq_schema(client) -> None:
    doc = client.get("/openapi.json").json()
    smq = doc["components"]["schemas"]["QueryRequest"]["properties"]["smq"]
    assert {"type": "integer", "minimum": 0, "maximum": 1_000_000_000} in smq["properties"]["limit"]["anyOf"]


@pytest.mark.parametrize(("encoding", "decode"), [("br", brotli.decompress), ("gzip", gzip.decompress)])
def test_answers_are_compressed_when_the_client_accepts_it(client, encoding, decode) -> None:
    plain = _post(client, {"smq": BIG})
    with client.stream("POST", QUERY, json={"smq": BIG}, headers={**KEY, "Accept-Encoding": encoding}) as packed:
        wire = b"".join(packed.iter_raw())  # as sent, before httpx decodes it
    assert packed.headers["content-encoding"] == encoding and "Accept-Encoding" in packed.headers["vary"]
    assert int(packed.headers["content-length"]) == len(wire)
    unpacked, expected = json.loads(decode(wire)), plain.json()
    assert unpacked.pop("elapsed_ms") > 0 and expected.pop("elapsed_ms") > 0
    assert unpacked == expected
    assert len(wire) * 5 < len(plain.content), (len(wire), len(plain.content))  # rows of JSON compress well over 5x
    identity = client.post(QUERY, json={"smq": BIG}, headers={**KEY, "Accept-Encoding": "identity"})
    assert "content-encoding" not in identity.headers


def test_problems_are_compressed_too_and_small_answers_are_not(client) -> None:
    small = client.post("/v1/databases/shop/execute", json={"sql": "SELECT 1 AS one"},
                        headers={**KEY, "Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers  # under the minimum size
    big_problem = client.post(QUERY, json={"smq": {"metrics": ["x" * 2000]}}, headers={**KEY, "Accept-Encoding": "gzip"})
    assert big_problem.status_code == 400 and big_problem.headers["content-type"] == "application/problem+json"
    assert big_problem.headers.get("content-encoding") == "gzip"


def test_browser_scripts_on_other_origins_may_read_the_format_headers(models_dir, keys_file) -> None:
    from fastapi.testclient import TestClient

    from service.app import create_app
    from service.settings import Settings

    app = create_app(Settings(models_dir=models_dir, api_keys_file=keys_file, cors_origins=["https://bi.example"]))
    with TestClient(app) as browser:
        response = browser.post(QUERY, json={"smq": SMQ, "limit": 2}, params={"format": "csv", "total": "true"},
                                headers={**KEY, "Origin": "https://bi.example"})
    exposed = {h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"x-smq-row-count", "x-smq-truncated", "x-smq-total", "server-timing"} <= exposed
    assert response.headers["x-smq-total"].isdigit()
