"""`format:` on measures and metrics: read and validated at load (file:line), listed by `Layer.elements`,
inherited by a simple or cumulative metric from its measure, never part of the SQL."""

from __future__ import annotations

from pathlib import Path

from engine import load_layer

from ..conftest import errors_of, write_layer

ORDERS = """
    name: OrderModel
    description: One row per order.
    table: orders
    primary_key: id
    dimensions:
      - {name: orderDate, type: date, expr: odate}
      - {name: status, type: string, expr: TRIM(status)}
    measures:
      - {name: orderCount, agg: count, expr: id, format: {type: number, decimals: 0}}
      - name: freight
        agg: sum
        expr: freight
        format: {type: currency, currency: EUR, decimals: 2}
      - {name: avgFreight, agg: avg, expr: freight}
      - {name: customers, agg: count_distinct, expr: customer_id}
    metrics:
      - {name: shippedCount, type: simple, measure: OrderModel__orderCount, filters: ["OrderModel__status = 'shipped'"]}
      - {name: cumOrders, type: cumulative, measure: OrderModel__freight, time_dimension: OrderModel__orderDate}
      - {name: shippedShare, type: ratio, numerator: shippedCount, denominator: OrderModel__orderCount, format: percent}
      - {name: freightUsd, type: simple, measure: OrderModel__freight, format: {type: currency, currency: USD}}
"""


def _listing(layer, kind: str) -> dict[str, dict]:
    return {e["name"]: e for m in layer.elements()["models"] for e in m[kind]}


def test_formats_are_listed_and_inherited_by_simple_and_cumulative_metrics(tmp_path: Path) -> None:
    layer = load_layer(write_layer(tmp_path, {"models/orders.yml": ORDERS}) / "mini")
    measures, metrics = _listing(layer, "measures"), _listing(layer, "metrics")
    assert measures["OrderModel__freight"]["format"] == {"type": "currency", "currency": "EUR", "decimals": 2}
    assert measures["OrderModel__orderCount"]["format"] == {"type": "number", "decimals": 0}
    assert metrics["shippedShare"]["format"] == {"type": "percent"}
    assert metrics["shippedCount"]["format"] == {"type": "number", "decimals": 0}  # its measure's
    assert metrics["cumOrders"]["format"]["currency"] == "EUR"
    assert metrics["freightUsd"]["format"] == {"type": "currency", "currency": "USD"}  # its own wins
    assert "format" not in metrics["aov"] and "format" not in measures["ItemModel__revenue"]  # none given
    assert layer.element_format("OrderModel__status") is None
    plain = load_layer(write_layer(tmp_path / "plain", {}) / "mini")
    for smq in ({"metrics": ["OrderModel__freight"]}, {"metrics": ["shippedCount", "OrderModel__orderCount"], "group_by": ["OrderModel__orderDate__month"]}):
        assert layer.compile(smq) == plain.compile(smq)  # a format never reaches the SQL


def test_bad_formats_are_reported_at_their_line(tmp_path: Path) -> None:
    bad = ORDERS.replace("format: {type: number, decimals: 0}", "format: {type: money}").replace(
        "format: {type: currency, currency: EUR, decimals: 2}", "format: {type: currency, currency: eur, decimals: 12, unit: x}").replace(
        "format: percent}", "format: percnt}").replace("format: {type: currency, currency: USD}", "format: {type: currency}")
    errors = [e.split("orders.yml:", 1)[1] for e in errors_of(tmp_path, {"models/orders.yml": bad})]
    lines = bad.strip("\n").splitlines()
    line = {key: next(i for i, text in enumerate(lines, 1) if key in text) for key in ("money", "eur", "percnt", "freightUsd")}
    assert any(e.startswith(f"{line['money']}:") and "measures[0].format.type: unknown format 'money'" in e
               and "number, currency, percent" in e for e in errors), errors
    assert any(e.startswith(f"{line['eur']}:") and "'eur' is not an ISO 4217 currency code" in e and "EUR" in e for e in errors)
    assert any(e.startswith(f"{line['eur']}:") and "decimals: expected a whole number from 0 to 10, got 12" in e for e in errors)
    assert any(e.startswith(f"{line['eur']}:") and "unknown key 'unit'" in e for e in errors)
    assert any(e.startswith(f"{line['percnt']}:") and "metrics[2].format: unknown format 'percnt'" in e and "percent" in e
               for e in errors)
    assert any(e.startswith(f"{line['freightUsd']}:") and "needs 'currency'" in e for e in errors)
    assert len(errors) == 6, errors


def test_a_currency_on_a_non_currency_format_is_refused(tmp_path: Path) -> None:
    bad = ORDERS.replace("format: percent}", "format: {type: percent, currency: EUR}}")
    errors = errors_of(tmp_path, {"models/orders.yml": bad})
    assert len(errors) == 1 and "only a currency format takes 'currency' (this one is percent)" in errors[0]


def test_additive_says_which_groups_add_up(tmp_path: Path) -> None:
    layer = load_layer(write_layer(tmp_path, {"models/orders.yml": ORDERS}) / "mini")
    listed = {**_listing(layer, "measures"), **_listing(layer, "metrics")}
    assert listed["OrderModel__freight"]["additive"] and listed["OrderModel__orderCount"]["additive"]
    assert listed["shippedCount"]["additive"] and listed["cumOrders"]["additive"]  # over a count / a sum
    assert not listed["shippedShare"]["additive"] and not listed["aov"]["additive"] and not listed["net"]["additive"]
    assert not listed["OrderModel__avgFreight"]["additive"] and not listed["OrderModel__customers"]["additive"]
