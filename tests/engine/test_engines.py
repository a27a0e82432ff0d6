"""Every compiler case, on every engine: golden SQL per dialect, and results equal to a
hand-written reference query (run on DuckDB) when executed on SQLite, DuckDB, PostgreSQL,
MariaDB and Snowflake (fakesnow)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import SUPPORTED_DIALECTS, load_layers

from ..conftest import DEMO_MODELS

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "cases.yml").read_text())
GOLDEN = HERE / "golden"
ENGINES = ("sqlite", "duckdb", "postgres", "mysql", "snowflake")


@pytest.fixture(scope="module")
def shop():
    return load_layers(DEMO_MODELS)["shop"]


def _key(value: Any) -> tuple:
    if value is None:
        return (1, "")
    if isinstance(value, (int, float)):
        return (0, f"{float(value):020.6f}")
    return (0, str(value))


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-7, abs_tol=1e-6)
    return a == b


def assert_same_rows(actual: list[tuple], expected: list[tuple], ordered: bool, context: str) -> None:
    if not ordered:
        actual = sorted(actual, key=lambda r: [_key(v) for v in r])
        expected = sorted(expected, key=lambda r: [_key(v) for v in r])
    assert len(actual) == len(expected), f"{context}: {len(actual)} rows, expected {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected)):
        assert len(a) == len(e), f"{context}: row {i} has {len(a)} columns, expected {len(e)}"
        assert all(same_value(x, y) for x, y in zip(a, e)), f"{context}: row {i} is {a}, expected {e}"


@pytest.mark.parametrize("dialect", SUPPORTED_DIALECTS)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_sql(shop, case: dict, dialect: str, update_golden: bool) -> None:
    sql = shop.compile(case["smq"], dialect=dialect, use_cache=False) + "\n"
    path = GOLDEN / case["name"] / f"{dialect}.sql"
    if update_golden or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql)
        if not update_golden:
            pytest.fail(f"golden file {path} was missing and has been written; check it in")
    assert sql == path.read_text(), f"compiled SQL differs from {path} (rerun with --update-golden if intended)"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_results_match_reference(shop, runners, case: dict, engine: str) -> None:
    run = runners(engine)
    _, expected = runners("duckdb")(case["reference"])
    columns, actual = run(shop.compile(case["smq"], dialect=engine))
    smq = case["smq"]
    assert columns == [*smq.get("group_by", []), *smq.get("metrics", [])], "output columns are named and ordered as the SMQ"
    assert_same_rows(actual, expected, case.get("ordered", False), f"{case['name']} on {engine}")
