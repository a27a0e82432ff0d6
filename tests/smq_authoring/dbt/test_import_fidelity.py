"""`smq import dbt` of a project folder keeps what a dbt user wrote: --schema on every table (the time spine too),
labels, descriptions and meta, saved queries runnable by name; what it does not import is a file:line note."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import yaml

from engine import load_layer
from smq_authoring.dbt import import_dbt
from smq_cli.main import main

MODELS = """
models:
  - name: time_spine
    time_spine:
      standard_granularity_column: date_day
      custom_granularities:
        - name: fiscal_quarter
          column_name: fq
    columns:
      - name: date_day
        granularity: day
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: {agg_time_dimension: ordered_at}
    entities:
      - {name: order_id, type: primary}
    dimensions:
      - name: ordered_at
        type: time
        label: Ordered at
        type_params: {time_granularity: day}
      - {name: order_number, type: categorical}
      - {name: region, type: categorical, is_partition: true}
    measures:
      - {name: order_total, agg: sum, label: Order total, meta: {format: eur}}
      - {name: order_count, agg: sum, expr: "1"}
metrics:
  - name: revenue
    label: Revenue (EUR)
    description: All order totals
    type: simple
    config: {meta: {owner: finance}}
    type_params: {measure: order_total}
  - name: first_orders
    label: First orders
    type: simple
    type_params: {measure: order_count}
    filter: "{{ Dimension('order_id__order_number') }} = 1"
saved_queries:
  - name: daily_revenue
    label: Daily revenue
    query_params:
      metrics: [revenue, first_orders]
      group_by: ["TimeDimension('metric_time', 'day')"]
    exports:
      - name: daily_revenue
        config: {export_as: table}
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text("name: p\nmodel-paths: [models]\n", encoding="utf-8")
    (root / "models" / "orders.yml").write_text(MODELS, encoding="utf-8")
    return root


def _with_data(layer_dir: Path, tmp_path: Path) -> Path:
    path = tmp_path / "p.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE SCHEMA analytics")
        conn.execute("CREATE TABLE analytics.orders AS SELECT * FROM (VALUES (1, DATE '2024-01-01', 1, 'eu', 10.0), "
                     "(2, DATE '2024-01-01', 2, 'eu', 5.0), (3, DATE '2024-01-02', 1, 'us', 7.5)) t(order_id, ordered_at, "
                     "order_number, region, order_total)")
        conn.execute("CREATE TABLE analytics.time_spine AS SELECT CAST(d AS DATE) AS date_day FROM "
                     "range(DATE '2024-01-01', DATE '2024-01-04', INTERVAL 1 DAY) r(d)")
    config = yaml.safe_load((layer_dir / "database.yml").read_text(encoding="utf-8"))
    config["connection"] = {"backend": "duckdb", "path": str(path)}
    (layer_dir / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def test_schema_labels_meta_and_notes(project: Path, tmp_path: Path) -> None:
    result = import_dbt(project, "p", tmp_path / "out" / "p", schema="analytics")
    database = yaml.safe_load((tmp_path / "out" / "p" / "database.yml").read_text(encoding="utf-8"))
    assert database["time_spine"] == {"table": "analytics.time_spine", "column": "date_day",
                                      "custom_granularities": [{"name": "fiscal_quarter", "column": "fq"}]}
    layer = load_layer(tmp_path / "out" / "p")
    listing = layer.elements()["models"][0]
    metrics = {m["name"]: m for m in listing["metrics"]}
    assert metrics["revenue"]["label"] == "Revenue (EUR)" and metrics["revenue"]["description"] == "All order totals"
    assert metrics["revenue"]["meta"] == {"owner": "finance"}
    measures = {m["name"]: m for m in listing["measures"]}
    assert measures["orders__order_total"]["label"] == "Order total"
    assert measures["orders__order_total"]["format"]["currency"] == "EUR"  # meta.format, Lightdash's shape
    assert {d["name"]: d.get("label") for d in listing["dimensions"]}["orders__ordered_at"] == "Ordered at"
    notes = [n.formatted() for n in result.notes]
    assert [d.name for m in layer.semantic.models.values() for d in m.dimensions.values() if d.partition] == ["region"]
    assert not any("custom granularit" in n or "is_partition" in n for n in notes)  # both imported (#28 items 2, 3)
    assert any("saved query 'daily_revenue': 'exports' not imported" in n for n in notes)
    assert "1 note(s)" in result.summary()


def test_an_imported_saved_query_runs_by_name(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layer_dir = tmp_path / "models" / "p"
    import_dbt(project, "p", layer_dir, schema="analytics")
    _with_data(layer_dir, tmp_path)
    layer = load_layer(layer_dir)
    assert layer.saved_query_list()[0]["label"] == "Daily revenue"
    assert layer.saved_query_list()[0]["query"]["group_by"] == ["metric_time__day"]
    assert main(["query", "--models-dir", str(tmp_path / "models"), "--db", "p", "--saved-query", "daily_revenue",
                 "--order-by", "metric_time__day", "--format", "csv"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    assert rows == ["metric_time__day,revenue,first_orders", "2024-01-01,15.0,1", "2024-01-02,7.5,1"]


def test_the_cli_prints_each_note_with_its_line(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "dbt", "--from", str(project), "--db", "p", "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert ": note: saved query 'daily_revenue': 'exports' not imported" in err
