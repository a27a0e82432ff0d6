"""Re-running `smq init` after hand edits: keep every edit, add what is new, drop what is gone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine import load_layer
from smq_authoring import MergeError, init_layer
from smq_authoring.layerdoc import read_layer_doc, render_files, write_files


def model(doc, name: str) -> dict:
    return next(e.body for e in doc.models.values() if e.body["name"] == name)


def element(body: dict, kind: str, name: str) -> dict:
    return next(e for e in body[kind] if e["name"] == name)


def test_rerun_keeps_hand_edits_and_adds_new_columns_and_tables(shop_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    url = f"sqlite:///{shop_db}"
    init_layer(url, "shop", folder)

    doc = read_layer_doc(folder)  # the user's edits
    orders = model(doc, "OrdersModel")
    element(orders, "dimensions", "status")["description"] = "Where the order stands in its life cycle."
    element(orders, "dimensions", "amount").update(name="orderAmount", expr="amount")
    orders["dimensions"] = [d for d in orders["dimensions"] if d["name"] != "isPaid"]
    orders["metrics"] = [{"name": "bigOrderCount", "type": "simple", "measure": "OrdersModel__orderCount",
                          "filters": ["OrdersModel__orderAmount > 50"], "description": "Orders above 50."}]
    model(doc, "CustomersModel")["name"] = "ClientsModel"
    for join in doc.joins:
        join["from"] = "ClientsModel" if join["from"] == "CustomersModel" else join["from"]
        join["to"] = "ClientsModel" if join["to"] == "CustomersModel" else join["to"]
        if join["key"] == "customer":
            join["type"] = "inner"
    write_files(folder, render_files(doc))
    load_layer(folder)

    conn = sqlite3.connect(shop_db)  # the database changes
    conn.executescript("""
        ALTER TABLE orders ADD COLUMN channel TEXT;
        UPDATE orders SET channel = CASE WHEN order_id % 2 = 0 THEN 'web' ELSE 'store' END;
        ALTER TABLE products DROP COLUMN unit_price;
        CREATE TABLE refunds (refund_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(order_id), refunded REAL);
        INSERT INTO refunds VALUES (1, 3, 5.0), (2, 7, 2.5);
    """)
    conn.commit()
    conn.close()

    result = init_layer(url, "shop", folder)
    layer = load_layer(folder)
    orders = layer.models["OrdersModel"]
    assert orders.dimensions["status"].description == "Where the order stands in its life cycle."
    assert "orderAmount" in orders.dimensions and "amount" not in orders.dimensions
    assert "isPaid" not in orders.dimensions  # deleted by hand: not added back
    assert "bigOrderCount" in layer.semantic.metrics
    assert "channel" in orders.dimensions and "'store', 'web'" in orders.dimensions["channel"].description
    assert "ClientsModel" in layer.models and "CustomersModel" not in layer.models
    customer = next(e for e in layer.semantic.joins if e.key == "customer")
    assert (customer.to_model, customer.type) == ("ClientsModel", "inner")
    assert "RefundsModel" in layer.models
    assert any(e.from_model == "RefundsModel" and e.to_model == "OrdersModel" for e in layer.semantic.joins)
    assert "unitPrice" not in layer.models["ProductsModel"].dimensions  # the column is gone and was not edited
    changes = "\n".join(result.changes)
    assert "added OrdersModel.dimensions.channel" in changes
    assert "not re-adding OrdersModel.dimensions.isPaid: you deleted it" in result.kept
    assert "added model RefundsModel" in changes and "removed ProductsModel.dimensions.unitPrice" in changes
    tests_text = (folder / "tests" / "generated.yml").read_text()
    assert "ClientsModel" in tests_text and "CustomersModel" not in tests_text  # untouched file follows the rename

    again = init_layer(url, "shop", folder)  # nothing changed since: nothing is rewritten
    assert again.written == [] and again.changes == []
    assert "not re-adding OrdersModel.dimensions.isPaid: you deleted it" in again.kept


def test_rerun_refuses_a_merge_that_does_not_validate(shop_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    url = f"sqlite:///{shop_db}"
    init_layer(url, "shop", folder)
    path = folder / "models" / "orders.yml"
    text = path.read_text().replace("primary_key: order_id\n", "")
    path.write_text(text)  # OrdersModel has measures and lines join to it: it needs its key
    with pytest.raises(MergeError) as caught:
        init_layer(url, "shop", folder)
    assert any("missing" in e or "primary_key" in e for e in caught.value.errors)
    assert path.read_text() == text  # nothing written


def test_hand_written_layer_without_snapshot_is_kept(shop_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    url = f"sqlite:///{shop_db}"
    init_layer(url, "shop", folder)
    (folder / ".smq" / "scaffold.json").unlink()
    path = folder / "models" / "orders.yml"
    path.write_text(path.read_text().replace("name: amount\n", "name: grossAmount\n    expr: amount\n"))
    result = init_layer(url, "shop", folder)
    orders = load_layer(folder).models["OrdersModel"]
    assert "grossAmount" in orders.dimensions and "amount" not in orders.dimensions  # same column, the user's name
    assert not any("amount" in c for c in result.changes)
