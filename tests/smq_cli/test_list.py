"""`smq list metrics|measures|dimensions|models`: readable tables wrapped to the terminal, JSON for scripts (#31)."""

from __future__ import annotations

import json

import pytest

from engine import load_layers
from smq_cli.main import main
from tests.conftest import DEMO_MODELS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["list", *argv, "--models-dir", str(DEMO_MODELS)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_metrics_table_has_every_metric_wrapped_to_the_terminal(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "metrics", "--db", "shop")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["name", "type", "model", "description"]
    assert all(len(line) <= 80 for line in lines)
    shop = load_layers(DEMO_MODELS)["shop"]
    names = [line.split()[0] for line in lines[2:-1] if line and not line.startswith(" ")]
    assert sorted(names) == sorted(shop.semantic.metrics) and lines[-1] == f"({len(names)} metrics)"
    assert any(line.startswith("averageOrderValue") and " ratio " in line and "OrdersModel" in line for line in lines)


def test_dimensions_of_one_model_with_grains(capsys) -> None:
    code, out, _ = run(capsys, "dimensions", "--model", "OrdersModel")  # --db: the only database
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("OrdersModel__orderDate "))
    assert row.split()[:3] == ["OrdersModel__orderDate", "date", "day,week,month,quarter,year"]
    assert out.splitlines()[-1] == "(7 dimensions)"


def test_json_for_scripts_and_models(capsys) -> None:
    code, out, _ = run(capsys, "measures", "--model", "RegionsModel", "--format", "json")
    assert code == 0 and json.loads(out) == [{"name": "RegionsModel__regionCount", "model": "RegionsModel", "agg": "count",
                                             "description": "How many world regions there are (in the current grouping)."}]
    code, out, _ = run(capsys, "models", "--format", "json")
    assert code == 0 and [m["name"] for m in json.loads(out)] == list(load_layers(DEMO_MODELS)["shop"].models)


def test_errors_say_what_is_right(capsys) -> None:
    code, _, err = run(capsys, "metrics", "--model", "Orders")
    assert code == 2 and "unknown model 'Orders'; did you mean 'OrdersModel'?" in err
    code, _, err = run(capsys, "metrics", "--db", "shopp")
    assert code == 2 and "did you mean 'shop'?" in err
