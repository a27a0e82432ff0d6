"""Partition dimensions (`is_partition`, MetricFlow's): an edge between two models sharing one joins on it too.
The numbers on every engine: tests/engine/cases.d/partitions.yml."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import LayerValidationError, load_layer

ORDER = """
name: OrderModel
table: orders
primary_key: id
dimensions:
  - {name: ds, type: date, expr: order_day, is_partition: %s}
measures:
  - {name: orderCount, agg: count, expr: id}
"""
SNAPSHOT = """
name: SnapshotModel
table: snapshots
primary_key: [customer_id, ds]
dimensions:
  - {name: ds, type: date, expr: snapshot_day, is_partition: true}
  - {name: tier, type: string}
"""
JOINS = """
joins:
  - {from: OrderModel, to: SnapshotModel, key: customer, relationship: many_to_one, on: {left: customer_id, right: customer_id}}
"""


def layer_with(tmp_path: Path, flag: str):
    folder = tmp_path / "mini"
    (folder / "models").mkdir(parents=True)
    (folder / "database.yml").write_text("name: mini\ndialect: duckdb\n")
    (folder / "joins.yml").write_text(JOINS.lstrip())
    (folder / "models" / "order.yml").write_text((ORDER % flag).lstrip())
    (folder / "models" / "snapshot.yml").write_text(SNAPSHOT.lstrip())
    return load_layer(folder)


def test_shared_partition_joins_on_it_too(tmp_path: Path) -> None:
    sql = layer_with(tmp_path, "true").compile({"metrics": ["OrderModel__orderCount"], "group_by": ["SnapshotModel__tier"]})
    on = sql[sql.index(" ON "):]
    assert '"orders".customer_id = "snapshots".customer_id\n  AND "orders".order_day = "snapshots".snapshot_day\n' in on


def test_one_sided_partition_is_not_joined(tmp_path: Path) -> None:
    sql = layer_with(tmp_path, "false").compile({"metrics": ["OrderModel__orderCount"], "group_by": ["SnapshotModel__tier"]})
    assert "order_day" not in sql


def test_is_partition_must_be_a_boolean(tmp_path: Path) -> None:
    with pytest.raises(LayerValidationError) as info:
        layer_with(tmp_path, "'yes'")
    [err] = [e.formatted() for e in info.value.errors]
    assert "order.yml:5:" in err and "dimensions[0].is_partition: expected true or false" in err
