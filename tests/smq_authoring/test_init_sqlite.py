"""`smq init` on SQLite: declared and inferred joins, odd names, tables without keys, and results
that match hand-written SQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine import load_layer
from smq_authoring import init_layer
from smq_authoring.layerdoc import SNAPSHOT


def rows(db: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return [tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in conn.execute(sql).fetchall()]
    finally:
        conn.close()


@pytest.fixture
def scaffolded(shop_db: Path, tmp_path: Path):
    return init_layer(f"sqlite:///{shop_db}", "shop", tmp_path / "models" / "shop")


def edges(layer) -> dict[tuple[str, str], object]:
    return {(e.from_model, e.to_model): e for e in layer.semantic.joins}


def test_layer_validates_with_declared_and_inferred_joins(scaffolded) -> None:
    layer = load_layer(scaffolded.layer_dir)
    assert set(layer.models) == {"CustomersModel", "OrdersModel", "ProductsModel", "OrderLinesModel", "OrderNotesModel",
                                 "PriceHistoryModel", "AuditLogModel", "LabelsModel", "TaggedModel"}
    found = edges(layer)
    declared = found[("OrdersModel", "CustomersModel")]
    assert (declared.left, declared.right, declared.relationship) == ("customer_id", "id", "many_to_one")
    assert found[("OrderLinesModel", "OrdersModel")].left == "order_id"  # same name as the key, no FK declared
    assert (found[("OrderLinesModel", "ProductsModel")].left, found[("OrderLinesModel", "ProductsModel")].right) == ("product_code", "code")
    assert found[("OrderNotesModel", "OrdersModel")].left == '"Order Id"'  # a column with a space, quoted
    joins_text = (scaffolded.layer_dir / "joins.yml").read_text()
    assert "# declared foreign key orders(customer_id) -> customers(id)" in joins_text
    assert "# inferred, confidence 0.99: product_code names products and its key code" in joins_text
    assert (scaffolded.layer_dir / SNAPSHOT).exists() and (scaffolded.layer_dir / "sources.yml").exists()


def test_names_types_and_keys(scaffolded) -> None:
    layer = load_layer(scaffolded.layer_dir)
    notes = layer.models["OrderNotesModel"]
    assert notes.table == '"Order Notes"' and notes.primary_key == ('"Note Id"',)
    assert notes.dimensions["noteText"].expr == '"Note Text"'
    assert notes.dimensions["order"].expr == '"order"'  # a reserved word is quoted (t.order fails in SQLite)
    orders = layer.models["OrdersModel"]
    assert orders.dimensions["orderDate"].type == "date"  # ISO text in SQLite
    assert orders.dimensions["isPaid"].type == "boolean"  # 0/1 named like a flag
    assert "'new', 'paid', 'shipped'" in orders.dimensions["status"].description  # low-cardinality values listed
    assert {m.name: m.agg for m in orders.measures.values()} == {"orderCount": "count", "customerCount": "count_distinct",
                                                                 "totalAmount": "sum"}
    assert layer.models["PriceHistoryModel"].primary_key == ("product_code", "valid_from", "price")  # all columns
    assert layer.models["AuditLogModel"].primary_key == ()  # duplicate rows: no key, but nothing fans it out
    assert "auditLogCount" in layer.models["AuditLogModel"].measures
    labels = layer.models["LabelsModel"]  # joined to from tagged, no usable key: no measures
    assert labels.primary_key == () and not labels.measures and "no measures" in labels.description


def test_compiled_queries_match_hand_sql(scaffolded, shop_db: Path) -> None:
    layer = load_layer(scaffolded.layer_dir)
    sql = layer.compile({"metrics": ["OrdersModel__totalAmount", "OrderLinesModel__totalQuantity"],
                         "group_by": ["CustomersModel__country"], "order_by": ["CustomersModel__country"]})
    hand = """
        WITH a AS (SELECT c.country, SUM(o.amount) AS amount FROM orders o LEFT JOIN customers c ON o.customer_id = c.id GROUP BY 1),
             q AS (SELECT c.country, SUM(l.quantity) AS qty FROM order_lines l LEFT JOIN orders o ON l.order_id = o.order_id
                   LEFT JOIN customers c ON o.customer_id = c.id GROUP BY 1)
        SELECT a.country, a.amount, q.qty FROM a JOIN q ON a.country = q.country ORDER BY 1"""
    assert rows(shop_db, sql) == rows(shop_db, hand)
    sql = layer.compile({"metrics": ["OrderNotesModel__orderNoteCount"], "group_by": ["OrdersModel__status"]})
    hand = 'SELECT o.status, COUNT(*) FROM "Order Notes" n LEFT JOIN orders o ON n."Order Id" = o.order_id GROUP BY 1 ORDER BY 1'
    assert sorted(rows(shop_db, sql)) == sorted(rows(shop_db, hand))


def test_starter_tests_pass_and_are_written(scaffolded) -> None:
    text = (scaffolded.layer_dir / "tests" / "generated.yml").read_text()
    assert scaffolded.tests_passed > 10 and not scaffolded.tests_failed
    assert "join_keeps_all_rows: OrdersModel.customer" in text and "unique_key: OrdersModel" in text


def test_inference_only_finds_the_declared_join_too(shop_db: Path, tmp_path: Path) -> None:
    result = init_layer(f"sqlite:///{shop_db}", "shop", tmp_path / "shop", use_declared_fks=False)
    link = next(found for found in result.links if found.from_table == "orders" and found.to_table == "customers")
    assert link.origin == "inferred" and link.from_columns == ("customer_id",) and link.confidence >= 0.9


def test_sample_rows_profiles_big_tables_on_a_sample(shop_db: Path, tmp_path: Path) -> None:
    result = init_layer(f"sqlite:///{shop_db}", "shop", tmp_path / "shop", sample_rows=25)
    lines = next(t for t in result.catalog.tables if t.name == "order_lines")
    assert lines.sampled and lines.row_count == 150 and lines.key == ("line_id",)
    load_layer(tmp_path / "shop")
