"""Loading and validating layers: every error has file:line:col, a clear message, a suggestion."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import load_layer, load_layers

from ..conftest import errors_of, write_layer


def test_valid_layer_loads_into_frozen_objects(mini_dir: Path) -> None:
    layer = load_layer(mini_dir / "mini")
    assert layer.name == "mini" and layer.dialect == "duckdb"
    assert list(layer.models) == ["CustomerModel", "ItemModel", "NationModel", "OrderModel", "SupplierModel"]
    order = layer.models["OrderModel"]
    assert order.primary_key == ("id",)
    assert order.dimensions["orderDate"].type == "date"
    assert layer.models["ItemModel"].primary_key == ("order_id", "line")
    # `on:` is a key, not YAML 1.1's boolean true
    assert layer.semantic.joins[0].left == "order_id"
    with pytest.raises(Exception):
        order.name = "x"  # type: ignore[misc]


def test_yaml_syntax_error_points_at_the_line(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"models/nation.yml": "name: NationModel\ntable: nations\ndimensions: [\n  {name: x\n"})
    assert len(errs) == 1
    assert errs[0].startswith(str(Path("models/nation.yml"))) or "models/nation.yml:" in errs[0]
    assert "YAML syntax error" in errs[0]


def test_unknown_key_is_reported_with_the_nearest_key(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"models/nation.yml": "name: NationModel\ntable: nations\nprimary_key: id\ndimension:\n  - {name: name, type: string}\n"})
    [err] = [e for e in errs if "unknown key" in e]
    assert "nation.yml:4:1:" in err
    assert "did you mean 'dimensions'" in err


def test_all_errors_of_a_layer_are_reported_at_once(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {
        "models/nation.yml": """
            name: NationModel
            table: nations
            primary_key: id
            dimensions:
              - {name: name, type: strng}
              - {name: bad__name, type: string}
              - {name: when, type: date, expr: "odate +"}
            measures:
              - {name: total, agg: summ, expr: x}
              - {name: name, agg: sum, expr: y}
        """,
    })
    text = "\n".join(errs)
    assert "unknown type 'strng'" in text and "did you mean 'string'" in text
    assert "invalid dimension name 'bad__name'" in text
    assert "'odate +' does not parse" in text
    assert "unknown aggregation 'summ'" in text and "did you mean 'sum'" in text
    assert "duplicate element name 'name'" in text
    # every line is file:line:col: message
    for e in errs:
        file, line, col, _ = e.split(":", 3)
        assert file.endswith("nation.yml") and int(line) > 0 and int(col) > 0


def test_expression_error_column_points_into_the_expression(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"models/nation.yml": "name: NationModel\ntable: nations\ndimensions:\n  - name: name\n    type: string\n    expr: UPPER(name,\n"})
    [err] = errs
    assert ":6:" in err and "does not parse" in err


def test_join_endpoints_must_exist(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"joins.yml": """
        joins:
          - {from: ItemModel, to: OrderModell, key: order, relationship: many_to_one, on: {left: order_id, right: id}}
          - {from: ItemModel, to: SupplierModel, key: supplier, relationship: many_to_many, on: {left: a, right: b}}
    """})
    text = "\n".join(errs)
    assert "unknown model 'OrderModell'" in text and "did you mean 'OrderModel'" in text
    assert "joins.yml:2:" in text
    assert "unknown relationship 'many_to_many'" in text


def test_metric_inputs_must_exist_and_not_form_cycles(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"models/nation.yml": """
        name: NationModel
        table: nations
        primary_key: id
        dimensions:
          - {name: name, type: string}
        metrics:
          - {name: a, type: derived, expr: "b + 1"}
          - {name: b, type: ratio, numerator: a, denominator: OrderModel__orderCont}
          - {name: c, type: simple, measure: OrderModel__freigth}
          - {name: d, type: cumulative, measure: OrderModel__orderCount, time_dimension: OrderModel__status}
    """})
    text = "\n".join(errs)
    assert "metrics form a cycle: b -> a -> b" in text or "metrics form a cycle: a -> b -> a" in text
    assert "'OrderModel__orderCont'" in text and "did you mean 'OrderModel__orderCount'" in text
    assert "'OrderModel__freigth'" in text and "'OrderModel__freight'" in text
    assert "has type string; a time dimension must be date or timestamp" in text


def test_cumulative_metric_needs_a_time_spine(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"database.yml": "name: mini\ndialect: duckdb\n"})
    assert any("needs a time spine" in e for e in errs)


def test_primary_key_required_where_fan_out_is_possible(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"models/orders.yml": """
        name: OrderModel
        table: orders
        dimensions:
          - {name: orderDate, type: date, expr: odate}
          - {name: status, type: string}
        measures:
          - {name: orderCount, agg: count, expr: id}
          - {name: freight, agg: sum, expr: freight}
    """, "models/items.yml": """
        name: ItemModel
        table: items
        primary_key: [order_id, line]
        dimensions:
          - {name: line, type: number}
        measures:
          - {name: revenue, agg: sum, expr: qty * price}
    """})
    assert any("model OrderModel has measures and a one_to_many join to ItemModel" in e and "primary_key" in e for e in errs)


def test_unknown_dialect_suggests_the_nearest(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"database.yml": "name: mini\ndialect: postgress\ntime_spine: {table: s, column: d}\n"})
    assert any("unsupported dialect 'postgress'" in e and "'postgres'" in e for e in errs)
    errs = errors_of(tmp_path / "b", {"database.yml": "name: mini\ndialect: oracle\ntime_spine: {table: s, column: d}\n"})
    assert any("unsupported dialect 'oracle'" in e and "supported: sqlite, duckdb" in e for e in errs)


def test_sources_yml_checks_columns(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"sources.yml": """
        sources:
          - table: nations
            columns: [{name: id}, {name: nation_name}]
          - {table: orders, columns: [{name: id}, {name: odate}, {name: status}, {name: freight}, {name: cust_ref}]}
          - {table: items, columns: [{name: order_id}, {name: line}, {name: qty}, {name: price}, {name: supp_id}]}
          - {table: customers, columns: [{name: id}, {name: name}, {name: segment}, {name: code}, {name: nation_id}]}
          - {table: suppliers, columns: [{name: id}, {name: name}, {name: nation_id}]}
    """})
    [err] = errs
    assert "column 'name' is not a column of nations" in err and "nation.yml" in err


def test_one_broken_database_does_not_stop_the_others(tmp_path: Path) -> None:
    write_layer(tmp_path, {})
    write_layer(tmp_path, {"database.yml": "name: broken\ndialect: duckdb\n", "models/nation.yml": "name: [oops\n"}, name="broken")
    layers = load_layers(tmp_path)
    assert list(layers) == ["mini"]
    assert "broken" in layers.errors
    with pytest.raises(Exception) as info:
        layers["broken"]
    assert "failed to load" in str(info.value)


def test_duplicate_yaml_keys_are_errors(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"models/nation.yml": "name: NationModel\ntable: nations\ntable: nations2\n"})
    assert any("duplicate key 'table'" in e and "nation.yml:3:1" in e for e in errs)


def test_self_join_refused_with_advice(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"joins.yml": """
        joins:
          - {from: ItemModel, to: ItemModel, key: parent, relationship: many_to_one, on: {left: order_id, right: order_id}}
    """})
    assert any("cannot join itself" in e for e in errs)


def test_compile_time_checks_also_run_at_load(tmp_path: Path) -> None:
    errs = errors_of(tmp_path, {"database.yml": """
        name: mini
        dialect: duckdb
        time_spine: {table: spine, column: d}
        access:
          roles:
            mixed:
              row_filters: ["NationModel__name = 'DE' AND CustomerModel__segment = 'x'"]
              hidden: [aov]
    """, "models/nation.yml": """
        name: NationModel
        table: nations
        primary_key: id
        dimensions:
          - {name: name, type: string}
        metrics:
          - {name: weird, type: derived, expr: "SUM(ItemModel__revenue) - 1"}
          - {name: picky, type: simple, measure: OrderModel__orderCount, filters: ["read_csv(OrderModel__status) = 1"]}
    """})
    text = "\n".join(errs)
    assert "uses dimensions of CustomerModel and NationModel" in text
    assert "aggregate SUM is not allowed" in text
    assert "function READ_CSV is not allowed" in text
    assert "hidden: unknown element 'aov'" not in text  # metrics may be hidden
