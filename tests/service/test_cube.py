"""Cube's REST API (/cubejs-api/v1/load, /meta, /sql) on the semantic layer.

The proof is the real `@cubejs-client/core` from npm, run in Node against a live `smq serve`: the
numbers it loads equal the SMQ `/query` answers. The rest (errors, keys, roles) is checked over HTTP.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .conftest import auth, node_client, running_service

CLIENT = Path(__file__).parent / "cube_client"

CUSTOMER_COUNTRY = "OrderItemsModel.OrdersModel.CustomersModel.NationsModel.country"
SUPPLIER_COUNTRY = "OrderItemsModel.ProductsModel.SuppliersModel.NationsModel.country"
QUERIES = [
    {"measures": ["OrdersModel.orderCount", "Metrics.unpaidRevenue"], "dimensions": ["OrdersModel.status"],
     "filters": [{"member": "OrdersModel.channel", "operator": "equals", "values": ["web"]}],
     "order": {"OrdersModel.orderCount": "desc"}},
    {"measures": ["OrdersModel.orderCount"],
     "timeDimensions": [{"dimension": "OrdersModel.orderDate", "granularity": "quarter", "dateRange": ["2024-01-01", "2024-06-30"]}],
     "filters": [{"or": [{"member": "OrdersModel.status", "operator": "equals", "values": ["shipped"]},
                         {"member": "OrdersModel.status", "operator": "startsWith", "values": ["deliv"]}]}],
     "order": [["OrdersModel.orderDate", "asc"]], "limit": 5, "offset": 1},
    # a join path, as Cube spells one: the cubes walked, then the member (the customer's country, not the supplier's)
    {"measures": ["OrderItemsModel.revenue"], "dimensions": [CUSTOMER_COUNTRY], "order": {"OrderItemsModel.revenue": "desc"}},
]
SMQS = [
    {"metrics": ["OrdersModel__orderCount", "unpaidRevenue"], "group_by": ["OrdersModel__status"],
     "filters": ["OrdersModel__channel = 'web'"], "order_by": ["-OrdersModel__orderCount"]},
    {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__quarter"],
     "filters": ["OrdersModel__orderDate BETWEEN '2024-01-01' AND '2024-06-30'",
                 "OrdersModel__status = 'shipped' OR OrdersModel__status LIKE 'deliv%'"],
     "order_by": ["OrdersModel__orderDate__quarter"]},
    {"metrics": ["OrderItemsModel__revenue"], "group_by": ["order.customer.nation.NationsModel__country"],
     "order_by": ["-OrderItemsModel__revenue"]},
]


def test_cube_js_client_loads_the_numbers_of_the_smq(models_dir, keys_file, client, tmp_path) -> None:
    folder = node_client(CLIENT, ("@cubejs-client/core",), "the Cube client test")
    (tmp_path / "queries.json").write_text(json.dumps(QUERIES))
    with running_service("--models-dir", str(models_dir), "--api-keys", str(keys_file)) as base:
        done = subprocess.run(["node", str(folder / "load.mjs"), base, "shop-key", str(tmp_path / "queries.json")],
                              capture_output=True, text=True, timeout=120, cwd=folder)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert not (out["error"] or {}).get("fatal"), out["error"]
    cubes = {c["name"]: c for c in out["meta"]}
    assert "OrdersModel.orderCount" in cubes["OrdersModel"]["measures"]
    assert "OrdersModel.status" in cubes["OrdersModel"]["dimensions"]
    assert "Metrics.unpaidRevenue" in cubes["Metrics"]["measures"]

    first = client.post("/v1/databases/shop/query", json={"smq": SMQS[0]}, headers=auth("shop-key")).json()
    expected = [[r[0], r[1], r[2]] for r in first["rows"]]
    got = [[r["OrdersModel.status"], float(r["OrdersModel.orderCount"]),
            None if r["Metrics.unpaidRevenue"] is None else float(r["Metrics.unpaidRevenue"])] for r in out["results"][0]["raw"]]
    assert len(got) == len(expected) >= 3
    for g, e in zip(got, expected):
        assert g[0] == e[0] and g[1] == e[1] and (g[2] == e[2] or abs(g[2] - e[2]) < 1e-6)

    second = client.post("/v1/databases/shop/query", json={"smq": SMQS[1], "limit": 5, "offset": 1},
                         headers=auth("shop-key")).json()
    got2 = [(r["OrdersModel.orderDate.quarter"][:10], float(r["OrdersModel.orderCount"])) for r in out["results"][1]["raw"]]
    assert got2 == [(str(r[0])[:10], float(r[1])) for r in second["rows"]] and got2
    assert out["results"][1]["rows"], "tablePivot() works on the answer"

    assert CUSTOMER_COUNTRY in cubes["OrderItemsModel"]["dimensions"] and SUPPLIER_COUNTRY in cubes["OrderItemsModel"]["dimensions"]
    third = client.post("/v1/databases/shop/query", json={"smq": SMQS[2]}, headers=auth("shop-key")).json()
    got3 = [(r[CUSTOMER_COUNTRY], float(r["OrderItemsModel.revenue"])) for r in out["results"][2]["raw"]]
    assert got3 == [(r[0], r[1]) for r in third["rows"]] and len(got3) >= 10

    assert out["sql"].lstrip().upper().startswith(("SELECT", "WITH"))
    assert out["error"]["status"] == 400 and "did you mean 'OrdersModel.orderCount'" in out["error"]["message"]


def _load(client, query, key="shop-key", **headers):
    return client.post("/cubejs-api/v1/load", json={"query": query}, headers={**auth(key), **headers})


def test_keys_as_cube_sends_them_and_the_database_header(client) -> None:
    query = {"measures": ["OrdersModel.orderCount"]}
    bare = client.get("/cubejs-api/v1/load", params={"query": json.dumps(query)}, headers={"Authorization": "shop-key"})
    assert bare.status_code == 200 and set(bare.json()) >= {"query", "data", "annotation", "lastRefreshTime"}
    assert bare.json()["annotation"]["measures"]["OrdersModel.orderCount"]["type"] == "number"
    assert _load(client, query, "admin-key").json()["code"] == "database_required"
    assert _load(client, query, "admin-key", **{"X-SMQ-Database": "shop"}).status_code == 200
    forbidden = _load(client, query, "shop-key", **{"X-SMQ-Database": "other"})
    assert forbidden.status_code == 403 and "may not use database 'other'" in forbidden.json()["error"]
    wrong = client.post("/cubejs-api/v1/load", json={"query": query}, headers={"Authorization": "nope"})
    assert wrong.status_code == 401 and wrong.json()["error"]


def test_a_role_sees_what_it_sees_on_query(client) -> None:
    """The key's role applies as on /query: same rows, hidden members absent from /meta."""
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"]}
    expected = client.post("/v1/databases/shop/query", json={"smq": smq}, headers=auth("de-key")).json()["rows"]
    got = _load(client, {"measures": ["OrdersModel.orderCount"], "dimensions": ["OrdersModel.status"]}, "de-key",
                **{"X-SMQ-Database": "shop"}).json()["data"]
    assert sorted((r["OrdersModel.status"] or "", int(r["OrdersModel.orderCount"])) for r in got) == \
        sorted((r[0] or "", r[1]) for r in expected)
    everyone = client.get("/cubejs-api/v1/meta", headers=auth("shop-key")).json()
    role = client.get("/cubejs-api/v1/meta", headers={**auth("de-key"), "X-SMQ-Database": "shop"}).json()
    members = lambda meta: {m["name"] for c in meta["cubes"] for m in c["measures"] + c["dimensions"]}  # noqa: E731
    assert members(role) <= members(everyone)


@pytest.mark.parametrize(("query", "status", "fragment"), [
    ({"measures": ["OrdersModel.orderCount"], "segments": ["OrdersModel.big"]}, 400, "segments are not supported"),
    ({"measures": ["orderCount"]}, 400, "write 'Cube.member'"),
    ({"measures": ["OrdersModel.orderCount"], "timeDimensions": [{"dimension": "OrdersModel.orderDate", "granularity": "hour"}]},
     400, "granularity 'hour' is not supported"),
    ({"measures": ["OrdersModel.orderCount"], "filters": [{"member": "OrdersModel.status", "operator": "equal", "values": ["x"]}]},
     400, "query.filters[0].operator: unknown operator 'equal'"),
    ({"measures": ["OrdersModel.orderCount"], "order": {"OrdersModel.status": "desc"}}, 400, "cannot order by"),
    ({"measures": ["OrdersModel.orderCount"], "limit": -1}, 400, "'limit' must be a non-negative integer"),
    ({"measure": ["OrdersModel.orderCount"]}, 400, "did you mean 'measures'"),
])
def test_bad_cube_queries_get_cube_errors(client, query, status, fragment) -> None:
    answer = _load(client, query)
    assert answer.status_code == status and fragment in answer.json()["error"], answer.json()


def test_malformed_query_parameter(client) -> None:
    answer = client.get("/cubejs-api/v1/load", params={"query": "{"}, headers=auth("shop-key"))
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_json"


def test_join_paths_in_cubes_spelling(client) -> None:
    """Revenue by the customer's and by the supplier's country: members named by the cubes walked (Cube's join paths)."""
    def rows(smq: dict) -> list[list]:
        return client.post("/v1/databases/shop/query", json={"smq": smq}, headers=auth("shop-key")).json()["rows"]

    for member, path in ((CUSTOMER_COUNTRY, "order.customer.nation"), (SUPPLIER_COUNTRY, "product.supplier.nation")):
        answer = _load(client, {"measures": ["OrderItemsModel.revenue", "Metrics.revenuePerUnit"], "dimensions": [member],
                                "filters": [{"member": member, "operator": "equals", "values": ["Germany", "United States"]}],
                                "order": [[member, "asc"]]}).json()
        expected = rows({"metrics": ["OrderItemsModel__revenue", "revenuePerUnit"], "group_by": [f"{path}.NationsModel__country"],
                         "filters": [f"{path}.NationsModel__country IN ('Germany', 'United States')"],
                         "order_by": [f"{path}.NationsModel__country"]})
        assert [[r[member], float(r["OrderItemsModel.revenue"]), float(r["Metrics.revenuePerUnit"])] for r in answer["data"]] == \
            [[r[0], r[1], r[2]] for r in expected] and len(expected) == 2
        assert answer["annotation"]["dimensions"][member]["type"] == "string" and answer["query"]["order"] == [[member, "asc"]]
    # the two paths give different numbers (else the test would prove nothing)
    assert rows({"metrics": ["OrderItemsModel__revenue"], "group_by": ["order.customer.nation.NationsModel__country"]}) != \
        rows({"metrics": ["OrderItemsModel__revenue"], "group_by": ["product.supplier.nation.NationsModel__country"]})
    by_year = _load(client, {"measures": ["OrderItemsModel.revenue"], "timeDimensions": [
        {"dimension": "OrderItemsModel.OrdersModel.CustomersModel.signupDate", "granularity": "year"}]}).json()
    assert by_year["data"] and "OrderItemsModel.OrdersModel.CustomersModel.signupDate.year" in by_year["data"][0]

    meta = client.get("/cubejs-api/v1/meta", headers=auth("shop-key")).json()
    items = {d["name"]: d for c in meta["cubes"] if c["name"] == "OrderItemsModel" for d in c["dimensions"]}
    assert items[CUSTOMER_COUNTRY]["meta"] == {"joinPath": ["OrderItemsModel", "OrdersModel", "CustomersModel", "NationsModel"],
                                               "element": "order.customer.nation.NationsModel__country"}
    assert "OrderItemsModel.ProductsModel.SuppliersModel.NationsModel.RegionsModel.region" in items
    assert not any(name.count(".") > 1 for c in meta["cubes"] if c["name"] != "OrderItemsModel"
                   for name in (d["name"] for d in c["dimensions"]))  # only role-playing paths, none that fan out


def test_an_ambiguous_dimension_offers_the_paths_in_cubes_spelling(client) -> None:
    answer = _load(client, {"measures": ["OrderItemsModel.revenue"], "dimensions": ["NationsModel.country"]}).json()
    assert answer["code"] == "ambiguous_path" and answer["errors"][0]["suggestions"] == [CUSTOMER_COUNTRY, SUPPLIER_COUNTRY]
    assert f"write {CUSTOMER_COUNTRY})" in answer["error"]
    wrong = _load(client, {"measures": ["OrderItemsModel.revenue"], "dimensions": ["OrderItemsModel.OrdersModel.NationsModel.country"]})
    assert wrong.status_code == 400 and "NationsModel is not joined to OrdersModel" in wrong.json()["error"]
    assert "query.dimensions[0]" in wrong.json()["error"]
    unknown = _load(client, {"measures": ["OrderItemsModel.revenue"], "dimensions": ["OrderItemsModel.Orders.country"]}).json()
    assert unknown["code"] == "unknown_model" and "OrdersModel" in unknown["errors"][0]["suggestions"]
    metrics = _load(client, {"measures": ["Metrics.a.b"]}).json()
    assert metrics["code"] == "invalid_query" and "write 'Cube.member'" in metrics["error"]


def test_meta_lists_the_formats_of_measures(client) -> None:
    meta = client.get("/cubejs-api/v1/meta", headers=auth("shop-key")).json()
    measures = {m["name"]: m for c in meta["cubes"] for m in c["measures"]}
    assert measures["OrderItemsModel.revenue"]["format"] == "currency"
    assert measures["OrderItemsModel.revenue"]["meta"]["format"] == {"type": "currency", "currency": "EUR", "decimals": 2}
    assert measures["Metrics.returnRate"]["format"] == "percent"
