"""cases_metric_time.yml on every engine: metric_time and date parts over the demo data, with golden SQL
per dialect, like test_engines.py. The layer is a copy of the demo's in which OrdersModel sits on
orderDate and PaymentsModel on paidAt (`default_time_dimension`); the demo itself keeps the spec's keys."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from engine import SUPPORTED_DIALECTS, load_layers

from ..conftest import DEMO_MODELS
from .test_engines import ENGINES, GOLDEN, assert_same_rows

HERE = Path(__file__).parent
CASES = yaml.safe_load((HERE / "cases_metric_time.yml").read_text())
TIME_AXES = {"orders.yml": "orderDate", "payments.yml": "paidAt"}


@pytest.fixture(scope="module")
def shop_on_time_axis(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("shop_time")
    shutil.copytree(Path(DEMO_MODELS) / "shop", root / "shop", ignore=shutil.ignore_patterns("data", "*.duckdb", "*.sqlite"))
    for file, dimension in TIME_AXES.items():
        path = root / "shop" / "models" / file
        text = path.read_text(encoding="utf-8")
        assert f"default_time_dimension: {dimension}\n" in text  # the demo declares its time axis (docs/smq.md runs on it)
    return load_layers(root)["shop"]


@pytest.mark.parametrize("dialect", SUPPORTED_DIALECTS)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_sql(shop_on_time_axis, case: dict, dialect: str, update_golden: bool) -> None:
    sql = shop_on_time_axis.compile(case["smq"], dialect=dialect, use_cache=False) + "\n"
    path = GOLDEN / case["name"] / f"{dialect}.sql"
    if update_golden or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql)
        if not update_golden:
            pytest.fail(f"golden file {path} was missing and has been written; check it in")
    assert sql == path.read_text(), f"compiled SQL differs from {path} (rerun with --update-golden if intended)"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_results_match_reference(shop_on_time_axis, runners, case: dict, engine: str) -> None:
    run = runners(engine)
    _, expected = runners("duckdb")(case["reference"])
    columns, actual = run(shop_on_time_axis.compile(case["smq"], dialect=engine))
    smq = case["smq"]
    assert columns == [*smq.get("group_by", []), *smq.get("metrics", [])], "output columns are named and ordered as the SMQ"
    assert_same_rows(actual, expected, case.get("ordered", False), f"{case['name']} on {engine}")


def test_a_model_without_time_axis_is_refused() -> None:
    """Without default_time_dimension (OrderItemsModel has none), metric_time is refused with the way to declare it."""
    from engine import QueryError

    with pytest.raises(QueryError, match="declare default_time_dimension on model OrderItemsModel"):
        load_layers(DEMO_MODELS)["shop"].compile({"metrics": ["OrderItemsModel__revenue"], "group_by": ["metric_time__month"]})
