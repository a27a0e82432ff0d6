"""Bad SMQs get a typed error naming the field, what is wrong and the nearest valid name."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import QueryError, load_layer
from engine.facade import Layer


@pytest.fixture
def mini(mini_dir: Path) -> Layer:
    return load_layer(mini_dir / "mini")


def error(layer: Layer, smq: object, **kw) -> QueryError:
    with pytest.raises(QueryError) as info:
        layer.compile(smq, **kw)
    return info.value


@pytest.mark.parametrize(
    ("smq", "code", "field", "fragment"),
    [
        ({"metric": ["OrderModel__orderCount"]}, "unknown_key", "metric", "did you mean 'metrics'"),
        ({}, "empty_query", "metrics", "at least one entry"),
        ({"metrics": "OrderModel__orderCount", "limit": -1}, "invalid_smq", "limit", "non-negative integer"),
        ({"metrics": [3]}, "invalid_smq", "metrics[0]", "non-empty string"),
        ({"metrics": ["OrderModel__orderCount", "OrderModel__orderCount"]}, "duplicate_entry", "metrics[1]", "appears twice"),
        ({"metrics": ["OrderModel__ordercount"]}, "unknown_element", "metrics[0]", "did you mean 'OrderModel__orderCount'"),
        ({"metrics": ["revenue"]}, "unknown_element", "metrics[0]", "'ItemModel__revenue'"),
        ({"metrics": ["OrdrModel__orderCount"]}, "unknown_element", "metrics[0]", "unknown model 'OrdrModel'"),
        ({"metrics": ["OrderModel__status"]}, "not_a_metric", "metrics[0]", "is a dimension"),
        ({"group_by": ["OrderModel__orderCount"]}, "not_a_dimension", "group_by[0]", "is a measure"),
        ({"group_by": ["OrderModel__status__month"]}, "invalid_grain", "group_by[0]", "needs a date or timestamp"),
        ({"group_by": ["OrderModel__orderDate__fortnight"]}, "unknown_grain", "group_by[0]", "unknown grain"),
        ({"metrics": ["OrderModel__orderCount"], "order_by": ["-revenue"]}, "invalid_order_by", "order_by[0]", "not an output column"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["status = 'x'"]}, "unknown_element", "filters[0]",
         "raw column names are not allowed"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["OrderModel__status IN (SELECT 1)"]}, "invalid_filter", "filters[0]",
         "subqueries are not allowed"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["read_csv('x') = 1"]}, "invalid_filter", "filters[0]",
         "function READ_CSV is not allowed"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["OrderModel__status = 'a'; DROP TABLE orders"]}, "invalid_filter",
         "filters[0]", "one boolean expression"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["OrderModel__status = 'a' AND OrderModel__orderCount > 1"]},
         "invalid_filter", "filters[0]", "mixes dimensions and measures"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["COUNT(OrderModel__status) > 1"]}, "invalid_filter", "filters[0]",
         "aggregate COUNT is not allowed"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["OrderModel__status = "]}, "invalid_filter", "filters[0]", "does not parse"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["1"]}, "invalid_filter", "filters[0]", "is not a condition"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["OrderModel__status"]}, "invalid_filter", "filters[0]", "is not a condition"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["OrderModel__orderDate > INTERVAL 1 DAY"]}, "invalid_filter", "filters[0]",
         "INTERVAL is only allowed"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["OrderModel__orderDate > CURRENT_DATE - INTERVAL 1 HOUR"]},
         "invalid_filter", "filters[0]", "INTERVAL is only allowed"),
        ({"metrics": ["OrderModel__orderCount"], "filters": ["YEAR(OrderModel__orderDate) = 2024"]}, "invalid_filter", "filters[0]",
         "function YEAR is not allowed"),
        ({"metrics": ["OrderModel__orderCount"], "group_by": ["nope.NationModel__name"]}, "unknown_join_key", "group_by[0]",
         "no join edge with key 'nope'"),
    ],
)
def test_bad_queries_are_explained(mini: Layer, smq: dict, code: str, field: str, fragment: str) -> None:
    err = error(mini, smq)
    assert err.code == code, err.formatted()
    assert err.location.field == field, err.formatted()
    assert fragment in err.formatted(), err.formatted()


def test_ambiguous_role_playing_path_lists_every_path(tmp_path: Path) -> None:
    from ..conftest import write_layer

    root = write_layer(tmp_path, {"joins.yml": """
        joins:
          - {from: ItemModel, to: OrderModel, key: order, relationship: many_to_one, on: {left: order_id, right: id}}
          - {from: ItemModel, to: SupplierModel, key: supplier, relationship: many_to_one, on: {left: supp_id, right: id}}
          - {from: OrderModel, to: CustomerModel, key: customer, relationship: many_to_one, on: {left: cust_ref, right: code}}
          - {from: CustomerModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
          - {from: SupplierModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
          - {from: ItemModel, to: CustomerModel, key: buyer, relationship: many_to_one, on: {left: buyer, right: id}}
    """})
    layer = load_layer(root / "mini")
    err = error(layer, {"metrics": ["ItemModel__revenue"], "group_by": ["NationModel__name"]})
    assert err.code == "ambiguous_path"
    text = err.formatted()
    assert "ItemModel -[supplier]-> SupplierModel -[nation]-> NationModel" in text
    assert "ItemModel -[buyer]-> CustomerModel -[nation]-> NationModel" in text
    assert "supplier.nation.NationModel__name" in err.suggestions
    # naming the path by its edge keys picks one
    sql = layer.compile({"metrics": ["ItemModel__revenue"], "group_by": ["buyer.nation.NationModel__name"]})
    assert "customers" in sql and "suppliers" not in sql


def test_preferred_edge_breaks_a_tie(tmp_path: Path) -> None:
    from ..conftest import write_layer

    root = write_layer(tmp_path, {"joins.yml": """
        joins:
          - {from: ItemModel, to: SupplierModel, key: supplier, relationship: many_to_one, on: {left: supp_id, right: id}, preferred: true}
          - {from: SupplierModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
          - {from: ItemModel, to: CustomerModel, key: buyer, relationship: many_to_one, on: {left: buyer, right: id}}
          - {from: CustomerModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
          - {from: ItemModel, to: OrderModel, key: order, relationship: many_to_one, on: {left: order_id, right: id}}
    """})
    sql = load_layer(root / "mini").compile({"metrics": ["ItemModel__revenue"], "group_by": ["NationModel__name"]})
    assert "suppliers" in sql and "customers" not in sql


def test_fan_out_without_primary_key_is_refused(tmp_path: Path) -> None:
    from ..conftest import write_layer

    # suppliers have no primary key; the fan-out happens at the second step, so loading allows it
    root = write_layer(tmp_path, {"models/supplier.yml": """
        name: SupplierModel
        table: suppliers
        dimensions:
          - {name: name, type: string}
        measures:
          - {name: supplierCount, agg: count}
    """, "joins.yml": """
        joins:
          - {from: ItemModel, to: OrderModel, key: order, relationship: many_to_one, on: {left: order_id, right: id}}
          - {from: OrderModel, to: CustomerModel, key: customer, relationship: many_to_one, on: {left: cust_ref, right: code}}
          - {from: CustomerModel, to: NationModel, key: nation, relationship: many_to_one, on: {left: nation_id, right: id}}
          - {from: SupplierModel, to: NationModel, key: supplier_nation, relationship: many_to_one, on: {left: nation_id, right: id}}
    """})
    layer = load_layer(root / "mini")
    err = error(layer, {"metrics": ["SupplierModel__supplierCount"], "group_by": ["CustomerModel__segment"]})
    assert err.code == "fan_out_without_primary_key"
    assert "SupplierModel -[supplier_nation]-> NationModel -[nation]-> CustomerModel" in err.formatted()
    assert err.location.field == "metrics[0]"


def test_unreachable_dimension_names_the_measure(tmp_path: Path) -> None:
    from ..conftest import write_layer

    root = write_layer(tmp_path, {"models/island.yml": "name: IslandModel\ntable: island\ndimensions: [{name: x, type: string}]\n"})
    err = error(load_layer(root / "mini"), {"metrics": ["OrderModel__orderCount"], "group_by": ["IslandModel__x"]})
    assert err.code == "unreachable_model"
    assert err.location.field == "group_by[0]"
    assert "IslandModel cannot be reached from OrderModel" in err.formatted()


def test_hidden_elements_are_unknown_for_the_role(mini: Layer) -> None:
    err = error(mini, {"metrics": ["CustomerModel__customerCount"], "group_by": ["CustomerModel__name"]}, role="de")
    assert err.code == "unknown_element"
    assert "CustomerModel__name" not in err.suggestions
    names = [d["name"] for m in mini.elements(role="de")["models"] for d in m["dimensions"]]
    assert "CustomerModel__name" not in names and "CustomerModel__segment" in names


def test_unsupported_dialect(mini: Layer) -> None:
    err = error(mini, {"metrics": ["OrderModel__orderCount"]}, dialect="postgress")
    assert err.code == "unsupported_dialect" and "'postgres'" in err.formatted()


def test_same_input_gives_byte_identical_sql(mini: Layer) -> None:
    smq = {"metrics": ["aov", "net", "OrderModel__orderCount"], "group_by": ["CustomerModel__segment", "OrderModel__orderDate__week"],
           "filters": ["OrderModel__status = 'shipped'"], "order_by": ["-aov"], "limit": 3}
    first = mini.compile(smq, dialect="postgres", use_cache=False)
    again = load_layer(mini.semantic.directory).compile(dict(reversed(list(smq.items()))), dialect="postgres", use_cache=False)
    assert first == again


@pytest.mark.parametrize("metric", ["revenueLast7Days", "cumulativeRevenue"])
def test_cumulative_by_a_date_part_of_its_time_dimension_alone_is_refused(metric: str) -> None:
    """A date part is the period's; without the time dimension at a grain there are no periods (was an internal error)."""
    from engine import load_layers

    from ...conftest import DEMO_MODELS

    err = error(load_layers(DEMO_MODELS)["shop"], {"metrics": [metric], "group_by": ["OrdersModel__orderDate__extract_dow"]})
    assert err.code == "missing_time_dimension" and "OrdersModel__orderDate__day" in err.message
