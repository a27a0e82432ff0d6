"""`smq lint`: every rule fires on a layer written to trigger it, with file:line:col positions."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from smq_authoring import init_layer
from smq_authoring.lint import RULES

FILES = {
    "database.yml": "name: lintme\ndialect: sqlite\nconnection: {backend: sqlite, path: none.sqlite}\n",
    "models/orders.yml": """
        name: OrdersModel
        description: One row per order placed.
        table: orders
        primary_key: order_id
        dimensions:
          - {name: orderDate, type: string, expr: order_date, description: Day the order was placed.}
          - {name: status, type: string}
          - {name: channel, type: string, description: Channel.}
          - {name: isGift, type: number, expr: is_gift, description: True for orders sent as gifts.}
          - {name: customer_ref, type: string, expr: customer_ref, description: The customer code on the order.}
          - {name: region, type: string, description: The customer code on the order.}
        measures:
          - {name: customerIdTotal, expr: customer_id, description: Adds up customer numbers.}
          - {name: orderCount, agg: count, description: Number of orders.}
    """,
    "models/customers.yml": """
        name: CustomersModel
        table: customers
        dimensions:
          - {name: customerName, type: string, description: Full name of the customer.}
    """,
    "models/items.yml": """
        name: ItemsModel
        description: One row per order line.
        table: items
        primary_key: item_id
        dimensions:
          - {name: sku, type: string, description: Stock keeping unit of the product sold.}
    """,
    "models/notes.yml": """
        name: NotesModel
        description: Free-text notes nobody joins to.
        table: notes
        primary_key: note_id
    """,
    "joins.yml": """
        joins:
          - from: OrdersModel
            to: CustomersModel
            key: customer
            relationship: many_to_one
            on: {left: customer_id, right: customer_id}
          - from: ItemsModel
            to: CustomersModel
            key: customer
            relationship: many_to_one
            type: left
            on: {left: buyer_id, right: customer_id}
    """,
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "lintme" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): warning: (?P<message>.+) \[(?P<rule>[a-z-]+)\]$")


def test_every_rule_fires_with_positions(cli, tmp_path: Path) -> None:
    models = write(tmp_path, FILES)
    code, out, err = cli("lint", "--models-dir", models)
    assert code == 0 and "warning(s) in 1 database(s)" in err
    found: dict[str, list[re.Match]] = {}
    for line in out.strip().splitlines():
        m = LINE.match(line)
        assert m, line
        found.setdefault(m["rule"], []).append(m)
    expected = set(RULES) - {"join-missing-relationship", "draft-description"}  # covered below
    assert expected <= set(found), expected - set(found)
    time = found["time-as-string"][0]
    assert time["file"].endswith("models/orders.yml") and time["line"] == "6"
    assert found["sum-of-identifier"][0]["line"] == "13" and "customer_id" in found["sum-of-identifier"][0]["message"]
    assert any("status" in m["message"] for m in found["missing-description"])
    assert any("CustomersModel has no description" in m["message"] for m in found["missing-description"])
    assert found["unreachable-model"][0]["message"].startswith("model NotesModel is in no join")
    assert found["ambiguous-edge-key"][0]["file"].endswith("joins.yml")
    assert found["join-type-not-written"][0]["line"] == "2"

    assert cli("lint", "--models-dir", models, "--strict")[0] == 1
    code, out, _ = cli("lint", "--models-dir", models, "--ignore", ",".join(RULES))
    assert code == 0 and out == ""
    assert cli("lint", "--models-dir", models, "--ignore", "no-such-rule")[0] == 2


def test_join_without_relationship_is_reported_with_the_validation_error(cli, tmp_path: Path) -> None:
    files = dict(FILES)
    files["joins.yml"] = FILES["joins.yml"].replace("            relationship: many_to_one\n            on: {left: customer_id", "            on: {left: customer_id")
    models = write(tmp_path, files)
    code, out, _ = cli("lint", "--models-dir", models)
    assert code == 1
    assert "error: joins[0]: missing required key 'relationship' [invalid-layer]" in out
    assert "[join-missing-relationship]" in out


def test_drafts_from_init_are_pointed_out(cli, shop_db: Path, tmp_path: Path) -> None:
    init_layer(f"sqlite:///{shop_db}", "shop", tmp_path / "models" / "shop")
    code, out, _ = cli("lint", "--models-dir", tmp_path / "models", "--db", "shop")
    assert code == 0
    drafts = [line for line in out.splitlines() if line.endswith("[draft-description]")]
    assert any("descriptions in OrdersModel are still the drafts smq init wrote" in line for line in drafts)
    assert not any(line.endswith("[sum-of-identifier]") or line.endswith("[time-as-string]") for line in out.splitlines())
