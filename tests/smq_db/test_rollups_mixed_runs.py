"""Running mixed queries (smq_db/rollup_runs.py): the parts run on the embedded store and their rows fill the
warehouse's query; a part with more rows than a mixed query carries falls back to the facts' text; the CLI runs
and shows them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Layer, load_layer
from smq_db import rollup_runs, rollups
from smq_db.compiled import compiled_sql
from smq_db.open import open_for_layer

from .test_rollups_build import shop_copy

MIXED = {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"],
         "group_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"],
         "order_by": ["OrdersModel__channel", "OrdersModel__orderDate__month"]}


@pytest.fixture()
def built(tmp_path: Path) -> Iterator[tuple[Layer, Any]]:
    layer = load_layer(shop_copy(tmp_path))
    executor = open_for_layer(layer)
    rollups.build(layer, executor)
    rollups.follow_store(layer)
    yield layer, executor
    executor.close()


def test_the_parts_fill_the_warehouse_query_and_equal_the_facts(built: tuple[Layer, Any]) -> None:
    layer, executor = built
    sql = compiled_sql(layer, MIXED)
    assert layer.compile_routed(MIXED).store == "mixed" and rollup_runs.rollups_of(sql) == ("orders_daily",)
    facts = executor.execute(compiled_sql(layer, MIXED, rollups=False)).rows
    assert executor.execute(sql).rows == facts and len(facts) > 20


def test_a_part_with_too_many_rows_falls_back_to_the_facts(built: tuple[Layer, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    layer, executor = built
    sql = compiled_sql(layer, MIXED)
    seen: list[str] = []
    store = executor._store()
    original = type(store).execute
    monkeypatch.setattr(rollup_runs, "MIX_ROWS", 3)  # the part has a row per channel and month: more than 3
    monkeypatch.setattr(type(store), "execute", lambda self, text, **kw: seen.append(text) or original(self, text, **kw))
    assert executor.execute(sql).rows == executor.execute(compiled_sql(layer, MIXED, rollups=False)).rows
    assert len(seen) == 1 and "smq_rollups.orders_daily" in seen[0]  # the part ran once, then the facts answered


def test_the_cli_runs_a_mixed_query_and_shows_its_parts(built: tuple[Layer, Any], capsys: pytest.CaptureFixture[str]) -> None:
    from smq_cli.main import main

    layer, executor = built
    facts = executor.execute(compiled_sql(layer, MIXED, rollups=False)).rows
    executor.close()
    root = str(layer.semantic.directory.parent)
    assert main(["query", "--db", "shop", "--models-dir", root, "--format", "json", json.dumps(MIXED)]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == facts
    assert main(["compile", "--db", "shop", "--models-dir", root, json.dumps(MIXED)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("-- answered from rollup(s) orders_daily on the embedded rollup store") and "-- __smq_rollup_rows_" in shown


def test_a_compiled_text_is_remembered_again_when_the_runner_forgot_it(built: tuple[Layer, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.lru import LruCache

    layer, executor = built
    sql = compiled_sql(layer, MIXED)
    monkeypatch.setattr(rollup_runs, "_MIXED", LruCache(8))  # the runner's memory lost (evicted), the compiled text cached
    assert rollup_runs.rollups_of(sql) == ()
    assert compiled_sql(layer, MIXED) == sql and rollup_runs.rollups_of(sql) == ("orders_daily",)
    assert executor.execute(sql).rows == executor.execute(compiled_sql(layer, MIXED, rollups=False)).rows
