"""`smq rollups build`: rollups computed by the engine's SQL on the warehouse, written to the embedded DuckDB store
atomically (a failed build leaves the previous one), under a lock, by partition when declared; a changed fact row is
seen after the refresh."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from engine import Layer, load_layer
from smq_db import rollups
from smq_db.compiled import compiled_sql
from smq_db.executors.errors import ExecutionError
from smq_db.open import open_for_layer

from ..conftest import DEMO_MODELS

ROLLUPS = """
rollups:
  - name: orders_daily
    model: OrdersModel
    measures: [orderCount, customerCount, lastOrderDate]
    dimensions: [channel, status, CustomersModel__segment]
    time_dimension: orderDate
    grain: day
    partition_by: month
    refresh: {every: 1h}
"""
BY_STATUS = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__status"], "order_by": ["OrdersModel__status"]}
BY_MONTH = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__month"],
            "order_by": ["OrdersModel__orderDate__month"]}


def shop_copy(folder: Path, rollups_yml: str = ROLLUPS) -> Path:
    """The demo layer over a private copy of its database (so rows can change), with rollups declared."""
    from smq_db.demo.build import build_duckdb

    target = folder / "shop"
    shutil.copytree(DEMO_MODELS / "shop", target, ignore=shutil.ignore_patterns("data"))
    build_duckdb(target / "warehouse.duckdb")
    text = (target / "database.yml").read_text()
    text = text.replace("path: data/shop.duckdb", "path: warehouse.duckdb").replace("demo: shop", "")
    (target / "database.yml").write_text(text)
    (target / "rollups.yml").write_text(rollups_yml)
    return target


@pytest.fixture()
def shop(tmp_path: Path) -> Iterator[tuple[Layer, Any]]:
    layer = load_layer(shop_copy(tmp_path))
    executor = open_for_layer(layer)
    yield layer, executor
    executor.close()


def run(layer: Layer, executor: Any, smq: dict, **kw: Any) -> list[list]:
    return executor.execute(compiled_sql(layer, smq, **kw)).rows


def change_rows(layer: Layer, executor: Any, sql: str) -> None:
    executor.close()  # the warehouse is opened read-only by the executor: write with a connection of our own
    con = duckdb.connect(str(layer.semantic.directory / "warehouse.duckdb"))
    con.execute(sql)
    con.close()


def test_build_then_status_then_answered_from_the_rollup(shop: tuple[Layer, Any]) -> None:
    layer, executor = shop
    assert rollups.status(layer)[0]["built"] is False
    assert layer.compile_routed(BY_STATUS).rollups == ()  # not built: the facts
    lines: list[str] = []
    (built,) = rollups.build(layer, executor, progress=lines.append)
    assert built.rows > 1000 and built.partial_since is None
    assert any("writing" in line for line in lines) and lines[0].startswith("[1/1]")
    (entry,) = rollups.status(layer)
    assert entry["built"] and entry["rows"] == built.rows and entry["bytes"] > 0 and entry["used"] and not entry["stale"]
    routed = layer.compile_routed(BY_STATUS)
    assert routed.rollups == ("orders_daily",) and routed.store == "rollups" and "smq_rollups.orders_daily" in routed.sql
    assert run(layer, executor, BY_STATUS) == run(layer, executor, BY_STATUS, rollups=False)
    assert run(layer, executor, BY_MONTH) == run(layer, executor, BY_MONTH, rollups=False)


def test_a_changed_fact_row_is_seen_after_the_refresh(shop: tuple[Layer, Any]) -> None:
    layer, executor = shop
    rollups.build(layer, executor)
    before = run(layer, executor, BY_STATUS)
    change_rows(layer, executor, "UPDATE orders SET status = 'returned' WHERE TRIM(status) = 'pending'")
    executor = open_for_layer(layer)
    try:
        assert run(layer, executor, BY_STATUS) == before  # within its hour: the rollup, as built
        facts = run(layer, executor, BY_STATUS, rollups=False)
        assert facts != before and not any(row[0] == "pending" for row in facts)
        rollups.build(layer, executor, full=True)
        assert run(layer, executor, BY_STATUS) == facts
    finally:
        executor.close()


def test_a_partitioned_rollup_rebuilds_from_its_last_partition(shop: tuple[Layer, Any]) -> None:
    layer, executor = shop
    rollups.build(layer, executor)
    change_rows(layer, executor, "UPDATE orders SET channel = 'web' WHERE order_date >= DATE '2024-12-01'")
    executor = open_for_layer(layer)
    try:
        (built,) = rollups.build(layer, executor)
        assert built.partial_since == "2024-12-01"
        by_channel = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"],
                      "order_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"]}
        assert layer.compile_routed(by_channel).rollups == ("orders_daily",)
        assert run(layer, executor, by_channel) == run(layer, executor, by_channel, rollups=False)
    finally:
        executor.close()


def test_a_failed_build_leaves_the_previous_rollup_in_use(shop: tuple[Layer, Any]) -> None:
    layer, executor = shop
    rollups.build(layer, executor)
    answer = run(layer, executor, BY_STATUS)
    change_rows(layer, executor, "ALTER TABLE orders RENAME COLUMN channel TO sales_channel")
    executor = open_for_layer(layer)
    try:
        with pytest.raises(ExecutionError):
            rollups.build(layer, executor, full=True)
        assert not (layer.semantic.directory / "rollups.duckdb.building").exists()
        assert rollups.status(layer)[0]["built"] and layer.compile_routed(BY_STATUS).rollups == ("orders_daily",)
        assert run(layer, executor, BY_STATUS) == answer
    finally:
        executor.close()


def test_two_builds_of_one_store_are_refused(shop: tuple[Layer, Any]) -> None:
    layer, executor = shop
    with rollups.build_lock(rollups.store_path(layer)):
        with pytest.raises(rollups.RollupError, match="another build"):
            rollups.build(layer, executor)


def test_the_cli_builds_and_shows_status(shop: tuple[Layer, Any], capsys: pytest.CaptureFixture[str]) -> None:
    from smq_cli.main import main

    layer, executor = shop
    executor.close()
    root = str(layer.semantic.directory.parent)
    assert main(["rollups", "status", "--db", "shop", "--models-dir", root]) == 0
    assert "not built" in capsys.readouterr().out
    assert main(["rollups", "build", "--db", "shop", "--models-dir", root, "--rollup", "orders_daily"]) == 0
    captured = capsys.readouterr()
    assert "orders_daily:" in captured.out and "[1/1]" in captured.err
    assert main(["rollups", "status", "--db", "shop", "--models-dir", root]) == 0
    assert "used by queries" in capsys.readouterr().out
    assert main(["rollups", "build", "--db", "shop", "--models-dir", root, "--rollup", "orders_dialy"]) != 0
    assert "orders_daily" in capsys.readouterr().err


def test_a_monthly_rollup_is_computed_from_the_daily_one(tmp_path: Path) -> None:
    monthly = ROLLUPS + """
  - name: orders_monthly
    model: OrdersModel
    measures: [orderCount, lastOrderDate]
    dimensions: [channel]
    time_dimension: orderDate
    grain: month
    refresh: {every: 1h}
"""
    layer = load_layer(shop_copy(tmp_path, monthly))
    executor = open_for_layer(layer)
    try:
        lines: list[str] = []
        built = rollups.build(layer, executor, progress=lines.append)
        assert [b.name for b in built] == ["orders_daily", "orders_monthly"]
        assert any("orders_monthly: computing from rollup orders_daily" in line for line in lines), lines
        by_month = {"metrics": ["OrdersModel__orderCount", "OrdersModel__lastOrderDate"],
                    "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__quarter"],
                    "order_by": ["OrdersModel__channel", "OrdersModel__orderDate__quarter"]}
        assert layer.compile_routed(by_month).rollups == ("orders_monthly",)  # the coarsest that answers
        assert run(layer, executor, by_month) == run(layer, executor, by_month, rollups=False)
    finally:
        executor.close()


def test_the_schedule_builds_what_is_due(shop: tuple[Layer, Any]) -> None:
    import threading

    layer, executor = shop
    assert rollups.due(layer) == ["orders_daily"]
    rollups.build(layer, executor)
    assert rollups.due(layer) == [] and rollups.due(layer, now=time.time() + 3601) == ["orders_daily"]
    stop = threading.Event()
    stop.set()  # one round, then stop
    (layer.semantic.directory / "rollups.duckdb").unlink()
    lines: list[str] = []
    rollups.build_on_schedule(layer.semantic.directory.parent, stop, log=lines.append)
    assert any("orders_daily" in line and "rows" in line for line in lines), lines
    assert rollups.due(layer) == []


def test_rollups_stored_in_the_warehouse_with_their_own_login(tmp_path: Path, demo_files: dict[str, Path]) -> None:
    """SQLite as the warehouse: the build writes with the storage's connection, queries read with the layer's
    read-only one, and facts and rollups mix in one query there."""
    data = Path(shutil.copy(demo_files["sqlite"], tmp_path / "warehouse.sqlite"))
    folder = tmp_path / "shop"
    shutil.copytree(DEMO_MODELS / "shop", folder, ignore=shutil.ignore_patterns("data"))
    text = (folder / "database.yml").read_text().replace("dialect: duckdb", "dialect: sqlite").replace("backend: duckdb", "backend: sqlite")
    (folder / "database.yml").write_text(text.replace("path: data/shop.duckdb", f"path: {data}").replace("demo: shop", ""))
    (folder / "rollups.yml").write_text(f"""
storage:
  warehouse: true
  schema: main
  connection: {{backend: sqlite, path: {data}}}
rollups:
  - name: orders_daily
    model: OrdersModel
    measures: [orderCount]
    dimensions: [channel]
    time_dimension: orderDate
    refresh: {{every: 1h}}
""")
    layer = load_layer(folder)
    executor = open_for_layer(layer)
    try:
        (built,) = rollups.build(layer, executor)
        assert built.rows > 100 and rollups.status(layer, executor)[0]["used"]
        mixed = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__channel"],
                 "order_by": ["OrdersModel__channel"]}
        routed = layer.compile_routed(mixed)
        assert routed.store == "warehouse" and routed.rollups == ("orders_daily",) and routed.dialect == "sqlite"
        assert "orders_daily" in layer.compile(mixed)  # compile() is the warehouse's SQL: stored rollups are in it
        on, off = run(layer, executor, mixed), run(layer, executor, mixed, rollups=False)
        assert len(on) == len(off) and all(a[:2] == b[:2] and abs(a[2] - b[2]) < 1e-6 for a, b in zip(on, off))
    finally:
        executor.close()


def test_a_role_filter_on_a_rollup_dimension_gives_the_role_its_rows(tmp_path: Path) -> None:
    folder = shop_copy(tmp_path)
    db = (folder / "database.yml").read_text()
    (folder / "database.yml").write_text(db.replace("  roles:\n", "  roles:\n    web_only:\n      row_filters: [\"OrdersModel__channel = 'web'\"]\n", 1))
    layer = load_layer(folder)
    executor = open_for_layer(layer)
    try:
        rollups.build(layer, executor)
        assert layer.compile_routed(BY_STATUS, "web_only").rollups == ("orders_daily",)
        assert layer.compile_routed(BY_STATUS, "de_analyst").rollups == ()  # its filter is on a country: not in the rollup
        for role in ("web_only", "de_analyst"):
            on = executor.execute(compiled_sql(layer, BY_STATUS, role)).rows
            assert on == executor.execute(compiled_sql(layer, BY_STATUS, role, rollups=False)).rows
        assert on != run(layer, executor, BY_STATUS)
    finally:
        executor.close()
