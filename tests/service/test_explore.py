"""What a query builder asks the service (service/routes/explore.py): a dimension's values, the check of
filter values (a typo'd value says so, with the nearest values), the group-by spellings next to metrics
(a join path where the plain name is ambiguous); and the formats in `/elements` and in `fields`.
All under the key's role, as `/query`."""

from __future__ import annotations

from .conftest import auth


def _values(client, body: dict, key: str = "shop-key", db: str = "shop"):
    return client.post(f"/v1/databases/{db}/values", json=body, headers=auth(key))


def test_values_of_a_dimension_and_a_search(client) -> None:
    answer = _values(client, {"dimension": "OrdersModel__status"}).json()
    assert answer["values"] == ["cancelled", "delivered", "pending", "returned", "shipped"] and not answer["truncated"]
    assert None not in answer["values"]  # orders without a status are no suggestion
    found = _values(client, {"dimension": "order.customer.nation.NationsModel__country", "search": "UNITED"}).json()
    assert found["values"] and all("united" in v.lower() for v in found["values"])
    days = _values(client, {"dimension": "OrdersModel__orderDate", "limit": 3}).json()
    assert len(days["values"]) == 3 and days["truncated"]


def test_a_value_no_row_has_is_reported_with_the_nearest(client) -> None:
    answer = _values(client, {"dimension": "OrdersModel__status", "check": ["shiped", "delivered", "Pending"]}).json()
    assert answer["missing"] == [{"value": "shiped", "suggestions": ["shipped"]}, {"value": "Pending", "suggestions": ["pending"]}]
    numbers = _values(client, {"dimension": "OrderItemsModel__quantity", "check": [1, 999]}).json()
    assert [m["value"] for m in numbers["missing"]] == [999]


def test_values_follow_the_role(client) -> None:
    everyone = _values(client, {"dimension": "NationsModel__country"}).json()["values"]
    german = _values(client, {"dimension": "NationsModel__country", "check": ["France"]}, "de-key").json()
    assert len(everyone) >= 13 and "France" in everyone and german["values"] == ["Germany"]
    assert german["missing"] == [{"value": "France", "suggestions": []}]  # the role's rows only: nothing leaks
    hidden = _values(client, {"dimension": "CustomersModel__customerName"}, "de-key")
    assert hidden.status_code == 400 and hidden.json()["code"] == "unknown_element"
    assert client.post("/v1/databases/shop/values", json={"dimension": "OrdersModel__status"}).status_code == 401
    assert _values(client, {"dimension": "OrdersModel__status"}, "other-key").status_code == 403


def test_bad_value_requests_say_where(client) -> None:
    typo = _values(client, {"dimension": "OrdersModel__stat"}).json()
    assert typo["errors"][0]["location"]["field"] == "dimension" and "OrdersModel__status" in typo["errors"][0]["suggestions"]
    assert _values(client, {"dimension": "OrdersModel__status", "limt": 3}).status_code == 422


def test_group_by_options_offer_the_paths_where_a_name_is_ambiguous(client) -> None:
    answer = client.post("/v1/databases/shop/group-by-options", json={"metrics": ["OrderItemsModel__revenue"]},
                         headers=auth("shop-key")).json()
    dims = {d["name"]: d for d in answer["dimensions"]}
    country = dims["NationsModel__country"]
    assert country["status"] == "ambiguous" and [o["spelling"] for o in country["options"]] == [
        "order.customer.nation.NationsModel__country", "product.supplier.nation.NationsModel__country"]
    assert country["options"][0]["via"] == ["OrderItemsModel", "OrdersModel", "CustomersModel", "NationsModel"]
    assert dims["OrdersModel__channel"] == {"name": "OrdersModel__channel", "type": "string", "status": "ok", "message": None,
                                            "options": [{"spelling": "OrdersModel__channel", "via": []}]}
    # each spelling offered compiles, the plain ambiguous one does not
    for option in country["options"]:
        compiled = client.post("/v1/databases/shop/compile", headers=auth("shop-key"), json={
            "smq": {"metrics": ["OrderItemsModel__revenue"], "group_by": [option["spelling"]]}, "preview": False})
        assert compiled.status_code == 200
    none = client.post("/v1/databases/shop/group-by-options", json={}, headers=auth("shop-key")).json()
    assert all(d["status"] == "ok" for d in none["dimensions"])
    role = client.post("/v1/databases/shop/group-by-options", json={"metrics": ["OrderItemsModel__revenue"]},
                       headers=auth("de-key")).json()
    assert "CustomersModel__customerName" not in {d["name"] for d in role["dimensions"]}
    bad = client.post("/v1/databases/shop/group-by-options", json={"metrics": ["revnue"]}, headers=auth("shop-key"))
    assert bad.status_code == 400 and bad.json()["errors"][0]["location"]["field"] == "metrics[0]"


def test_formats_in_elements_and_in_the_fields_of_an_answer(client) -> None:
    models = client.post("/v1/databases/shop/elements", json={}, headers=auth("shop-key")).json()["models"]
    listed = {e["name"]: e for m in models for e in m["measures"] + m["metrics"]}
    assert listed["OrderItemsModel__revenue"]["format"] == {"type": "currency", "currency": "EUR", "decimals": 2}
    assert listed["returnRate"]["format"] == {"type": "percent", "decimals": 1}
    answer = client.post("/v1/databases/shop/query", headers=auth("shop-key"), json={"smq": {
        "metrics": ["OrderItemsModel__revenue", "returnRate", "OrdersModel__firstOrderDate"], "group_by": ["OrdersModel__channel"]}}).json()
    fields = {f["name"]: f for f in answer["fields"]}
    assert fields["OrderItemsModel__revenue"]["format"]["currency"] == "EUR" and fields["returnRate"]["format"]["type"] == "percent"
    assert fields["OrdersModel__channel"].get("format") is None and fields["OrdersModel__firstOrderDate"].get("format") is None
