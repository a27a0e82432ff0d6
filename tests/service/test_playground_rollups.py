"""The playground names the rollup that answered a query (issue #30 item 4): the /query answer's Server-Timing says
which (`rollup;desc="..."`), and the result view shows it, for a query answered wholly from a rollup and for a mixed
one (a rollup beside the facts); a query the facts answer shows nothing. In Debian's Chromium driven by Playwright,
against a real `smq serve` over a layer whose rollup is built."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from engine import load_layer
from smq_db import rollups
from smq_db.open import open_for_layer
from tests.service.conftest import copy_layer, running_service

from .test_playground import browser, open_page, wait_rows  # noqa: F401 - fixtures
from .test_rollups_api import ROLLUPS


@pytest.fixture(scope="module")
def rollup_base(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path]) -> Iterator[str]:
    root = tmp_path_factory.mktemp("playground-rollups")
    data = Path(shutil.copy(demo_files["duckdb"], root / "warehouse.duckdb"))
    folder = copy_layer(root / "shop", "shop", {"backend": "duckdb", "path": str(data)})
    (folder / "rollups.yml").write_text(ROLLUPS)
    layer = load_layer(folder)
    executor = open_for_layer(layer)
    rollups.build(layer, executor)
    executor.close()
    with running_service("--models-dir", str(root), "--open") as url:
        yield url


def _open(browser, base: str, smq: dict):
    page = open_page(browser, f"{base}/#db=shop&smq={quote(json.dumps(smq))}")
    wait_rows(page)
    return page


def _facts_rows(base: str, smq: dict) -> list:
    answer = httpx.post(f"{base}/v1/databases/shop/query?rollups=off", json={"smq": smq}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["rows"]


SHOWN = "[aria-label='Answered from rollups']"


@pytest.mark.parametrize("smq", [
    {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__channel"]},
    {"metrics": ["OrdersModel__orderCount", "PaymentsModel__amountPaid"], "group_by": ["OrdersModel__channel"]},  # mixed
], ids=["rollup", "mixed"])
def test_the_result_view_names_the_rollup_that_answered(browser, rollup_base, smq: dict) -> None:
    page = _open(browser, rollup_base, smq)
    shown = page.locator(SHOWN)
    shown.wait_for()
    assert "orders_daily" in shown.inner_text() and "rollup" in shown.inner_text()
    cells = page.locator("table:has(caption:text-is('Query rows')) tbody tr").count()
    assert cells == len(_facts_rows(rollup_base, smq))
    assert not page.errors


def test_a_query_the_facts_answer_names_no_rollup(browser, rollup_base) -> None:
    smq = {"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__isShipped"]}  # isShipped is in no rollup
    page = _open(browser, rollup_base, smq)
    assert page.locator(SHOWN).count() == 0
    assert not page.errors
