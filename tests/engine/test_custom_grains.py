"""Custom granularities of the time spine: how they are declared, checked and refused (the numbers on every engine:
cases.d/custom_grains.yml)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import LayerValidationError, load_layer
from engine.errors import QueryError

from ..conftest import DEMO_MODELS

SPINE = "  column: date_day\n"


def shop_with(tmp_path: Path, custom: str) -> Path:
    target = tmp_path / "shop"
    shutil.copytree(DEMO_MODELS / "shop", target, ignore=shutil.ignore_patterns("data"))
    database = target / "database.yml"
    database.write_text(database.read_text().replace(SPINE, SPINE + "  custom_granularities:\n" + custom, 1))
    return target


def test_declared_grain_is_read_from_the_spine(tmp_path: Path) -> None:
    layer = load_layer(shop_with(tmp_path, "    - {name: Fiscal_Quarter, column_name: fiscal_quarter}\n"))
    sql = layer.compile({"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__fiscal_quarter"]})
    assert '"custom_spine"."fiscal_quarter"' in sql and '"custom_spine"."date_day" = CAST("orders".order_date AS DATE)' in sql


def test_a_typo_names_the_custom_grain(tmp_path: Path) -> None:
    layer = load_layer(shop_with(tmp_path, "    - {name: fiscal_quarter}\n"))
    with pytest.raises(QueryError) as err:
        layer.compile({"metrics": ["OrdersModel__orderCount"], "group_by": ["OrdersModel__orderDate__fiscal_quartr"]})
    assert err.value.code == "unknown_grain" and "fiscal_quarter" in err.value.message
    assert list(err.value.suggestions) == ["OrdersModel__orderDate__fiscal_quarter"]


def test_bad_declarations_are_reported_with_their_line(tmp_path: Path) -> None:
    folder = shop_with(tmp_path, "    - {name: month}\n    - {name: fq, colum: fiscal_quarter}\n    - {name: fq}\n")
    with pytest.raises(LayerValidationError) as info:
        load_layer(folder)
    errors = [e.formatted() for e in info.value.errors]
    assert any("database.yml:" in e and "invalid custom granularity 'month' (a standard grain or date part)" in e for e in errors)
    assert any("unknown key 'colum'" in e and "did you mean 'column'" in e for e in errors)
    assert any("duplicate custom granularity 'fq'" in e for e in errors)


def test_what_reads_the_spine_by_its_own_periods_is_refused(tmp_path: Path) -> None:
    """A conversion metric (its window by day) and join_to_timespine (the spine's periods at a grain) are not read
    by a custom granularity; cumulative metrics and offsets are (cases.d/custom_grains.yml)."""
    from .test_engines import shop_with_extra_metrics

    layer = shop_with_extra_metrics(tmp_path)
    for metric in ("consumerSignupToWebOrderRate", "orderCountOnSpine"):
        with pytest.raises(QueryError) as err:
            layer.compile({"metrics": [metric], "group_by": ["metric_time__fiscal_quarter"]})
        assert err.value.code == "unsupported_grain" and "custom granularity" in err.value.message, err.value.message
    assert "fiscal_quarter" in layer.compile({"metrics": ["ordersYearToDate"], "group_by": ["OrdersModel__orderDate__fiscal_quarter"]})


def test_a_custom_unit_must_be_declared(tmp_path: Path) -> None:
    folder = shop_with(tmp_path, "    - {name: fiscal_quarter}\n")
    orders = folder / "models" / "orders.yml"
    orders.write_text(orders.read_text() + """  - name: ordersAFiscalYearEarlier
    type: derived
    expr: earlier
    inputs:
      - {name: OrdersModel__orderCount, alias: earlier, offset_window: 1 fiscal_year}
""")
    with pytest.raises(LayerValidationError) as info:
        load_layer(folder)
    text = "\n".join(e.formatted() for e in info.value.errors)
    assert "offset_window: '1 fiscal_year' is not a window" in text and "fiscal_quarter" in text, text
