"""`smq import dbt` brings number formats over from `meta` (smq's shape or Lightdash's) and from labels
such as `Revenue (EUR)`; a malformed smq-shaped meta.format is refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import load_layer
from smq_authoring.dbt import ImportRefused, import_dbt

SEMANTIC = """\
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: {agg_time_dimension: ds}
    entities: [{name: order, type: primary, expr: order_id}]
    dimensions: [{name: ds, type: time, type_params: {time_granularity: day}}]
    measures:
      - {name: revenue, agg: sum, expr: amount, meta: {format: eur, round: 2}}
      - {name: order_count, agg: count, expr: order_id, config: {meta: {format: {type: number, decimals: 0}}}}
      - {name: tax, agg: sum, expr: tax, label: "Tax (€)"}
      - {name: weight, agg: sum, expr: kg, meta: {format: km}}
metrics:
  - name: paid_share
    type: ratio
    label: Paid share (%)
    type_params: {numerator: revenue_usd, denominator: revenue_usd}
  - name: revenue_usd
    type: simple
    type_params: {measure: revenue}
    meta: {format: {type: currency, currency: usd}}
"""


def _project(tmp_path: Path, text: str) -> Path:
    project = tmp_path / "proj"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: proj\nmodel-paths: [models]\n", encoding="utf-8")
    (project / "models" / "sm.yml").write_text(text, encoding="utf-8")
    return project


def test_formats_come_from_meta_and_labels(tmp_path: Path) -> None:
    import_dbt(_project(tmp_path, SEMANTIC), "proj", tmp_path / "out" / "proj")
    layer = load_layer(tmp_path / "out" / "proj")
    assert layer.element_format("orders__revenue") == {"type": "currency", "currency": "EUR", "decimals": 2}  # Lightdash's
    assert layer.element_format("orders__order_count") == {"type": "number", "decimals": 0}  # config.meta, smq's shape
    assert layer.element_format("orders__tax") == {"type": "currency", "currency": "EUR"}  # the label's unit
    assert layer.element_format("orders__weight") is None  # another tool's format: left alone
    assert layer.element_format("paid_share") == {"type": "percent"}
    assert layer.element_format("revenue_usd") == {"type": "currency", "currency": "USD"}


def test_a_malformed_meta_format_is_refused_at_its_line(tmp_path: Path) -> None:
    bad = SEMANTIC.replace("{format: {type: number, decimals: 0}}", "{format: {type: money}}")
    with pytest.raises(ImportRefused) as refused:
        import_dbt(_project(tmp_path, bad), "proj", tmp_path / "out" / "proj")
    assert any(":9:" in line and "measure 'order_count': meta.format.type 'money' is not one of number, currency, percent" in line
               for line in refused.value.errors), refused.value.errors
