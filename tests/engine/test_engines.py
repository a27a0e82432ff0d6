"""Every compiler case, on every engine: golden SQL per dialect, and results equal to a
hand-written reference query (run on DuckDB) when executed on SQLite, DuckDB, PostgreSQL,
MariaDB and Snowflake (fakesnow).

A case runs on the demo layer, or (`layer: shop_with_extra_metrics`) on a copy of it with the
metrics of extra_metrics.yml added: shapes the demo's own metrics never reach."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import SUPPORTED_DIALECTS, Layer, load_layer, load_layers
from engine.errors import QueryError

from ..conftest import DEMO_MODELS

HERE = Path(__file__).parent
# cases.yml, then every cases.d/*.yml (one file per feature, in name order)
CASES = [case for file in [HERE / "cases.yml", *sorted((HERE / "cases.d").glob("*.yml"))]
         for case in yaml.safe_load(file.read_text()) or []]
GOLDEN = HERE / "golden"
ENGINES = ("sqlite", "duckdb", "postgres", "mysql", "snowflake")


EXTRA_METRICS = yaml.safe_load((HERE / "extra_metrics.yml").read_text())
# extra_metrics.d/*.yml: per model file, {dimensions: [...], measures: [...], metrics: [...]} to append
EXTRA_ELEMENTS = [yaml.safe_load(file.read_text()) or {} for file in sorted((HERE / "extra_metrics.d").glob("*.yml"))]
# extra_models/: whole model files added to the layer, and joins.yml's edges appended to the demo's
EXTRA_MODELS = HERE / "extra_models"


# `layer: shop_extra_on_time_axis`: the same, with OrdersModel on orderDate and PaymentsModel on paidAt (metric_time)
TIME_AXES = {"orders.yml": "orderDate", "payments.yml": "paidAt"}


def shop_with_extra_metrics(folder: Path, time_axes: dict[str, str] | None = None) -> Layer:
    """A copy of the demo layer in `folder` with extra_metrics.yml's metrics (and extra_metrics.d's
    dimensions, measures and metrics) appended to its models, and extra_models/' models and joins added."""
    target = folder / "shop"
    shutil.copytree(DEMO_MODELS / "shop", target, ignore=shutil.ignore_patterns("data"))
    additions = [{file: {"metrics": metrics} for file, metrics in EXTRA_METRICS.items()}, *EXTRA_ELEMENTS]
    for addition in additions:
        for file, kinds in addition.items():
            path = target / "models" / file
            model = yaml.safe_load(path.read_text())
            for kind, elements in kinds.items():
                model[kind] = [*(model.get(kind) or []), *elements]
            path.write_text(yaml.safe_dump(model, sort_keys=False))
    for file in sorted(EXTRA_MODELS.glob("*.yml")):
        if file.name != "joins.yml":
            shutil.copy(file, target / "models" / file.name)
    # appended as text: PyYAML would read joins.yml's bare `on:` keys as the boolean True
    extra_edges = (EXTRA_MODELS / "joins.yml").read_text().split("joins:\n", 1)[1]
    joins_file = target / "joins.yml"
    joins_file.write_text(joins_file.read_text().rstrip("\n") + "\n" + extra_edges)
    # a custom granularity of the spine (the demo's time_spine has the column): cases.d/custom_grains.yml
    database = target / "database.yml"
    spine = "  column: date_day\n"
    assert spine in database.read_text()
    database.write_text(database.read_text().replace(
        spine, spine + "  custom_granularities:\n    - {name: fiscal_quarter, column: fiscal_quarter}\n", 1))
    for file, dimension in (time_axes or {}).items():
        path = target / "models" / file
        if "default_time_dimension:" not in path.read_text():  # the demo declares its own (docs/smq.md's metric_time)
            path.write_text(path.read_text() + f"default_time_dimension: {dimension}\n")
    return load_layer(target)


@pytest.fixture(scope="module")
def layers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Layer]:
    return {"shop": load_layers(DEMO_MODELS)["shop"],
            "shop_with_extra_metrics": shop_with_extra_metrics(tmp_path_factory.mktemp("layers")),
            "shop_extra_on_time_axis": shop_with_extra_metrics(tmp_path_factory.mktemp("layers"), TIME_AXES)}


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


def refused(layers, case: dict, dialect: str) -> bool:
    """A case's `refused_on: {dialect: error code}`: compiling for that dialect must fail with that code."""
    code = (case.get("refused_on") or {}).get(dialect)
    if code is None:
        return False
    with pytest.raises(QueryError) as err:
        layers[case.get("layer", "shop")].compile(case["smq"], dialect=dialect, use_cache=False)
    assert err.value.code == code and dialect_name(dialect) in err.value.message, err.value.message
    return True


def dialect_name(dialect: str) -> str:
    return {"sqlite": "SQLite", "mysql": "MySQL", "clickhouse": "ClickHouse"}.get(dialect, dialect)


@pytest.mark.parametrize("dialect", SUPPORTED_DIALECTS)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_sql(layers, case: dict, dialect: str, update_golden: bool) -> None:
    if refused(layers, case, dialect):
        return
    sql = layers[case.get("layer", "shop")].compile(case["smq"], dialect=dialect, use_cache=False) + "\n"
    path = GOLDEN / case["name"] / f"{dialect}.sql"
    if update_golden or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql)
        if not update_golden:
            pytest.fail(f"golden file {path} was missing and has been written; check it in")
    assert sql == path.read_text(), f"compiled SQL differs from {path} (rerun with --update-golden if intended)"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_results_match_reference(layers, runners, case: dict, engine: str) -> None:
    if refused(layers, case, engine):
        return
    run = runners(engine)
    _, expected = runners("duckdb")(case["reference"])
    columns, actual = run(layers[case.get("layer", "shop")].compile(case["smq"], dialect=engine))
    smq = case["smq"]
    assert columns == [*smq.get("group_by", []), *smq.get("metrics", [])], "output columns are named and ordered as the SMQ"
    assert_same_rows(actual, expected, case.get("ordered", False), f"{case['name']} on {engine}")
