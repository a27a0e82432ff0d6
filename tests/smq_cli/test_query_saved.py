"""`smq query --saved-query NAME`: a saved query of the layer by name, --where/--order-by/--limit as overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.smq_cli.test_query import models, run  # noqa: F401 - the module fixture

SAVED = """saved_queries:
  - name: orders_by_channel
    query:
      metrics: [OrdersModel__orderCount]
      group_by: [OrdersModel__channel]
      order_by: [OrdersModel__channel]
"""


@pytest.fixture(scope="module")
def saved_models(models: Path) -> Path:  # noqa: F811
    (models / "shop" / "saved_queries.yml").write_text(SAVED, encoding="utf-8")
    return models


def test_a_saved_query_runs_by_name_with_overrides(saved_models: Path, capsys: pytest.CaptureFixture[str], duckdb_runner) -> None:
    code, out, _ = run(saved_models, capsys, "--saved-query", "orders_by_channel", "--format", "json")
    assert code == 0
    _, expected = duckdb_runner("SELECT channel, COUNT(*) FROM orders GROUP BY channel ORDER BY channel")
    assert json.loads(out)["rows"] == [list(r) for r in expected]
    code, out, _ = run(saved_models, capsys, "--saved-query", "orders_by_channel", "--where", "OrdersModel__channel <> 'store'",
                       "--order-by", "-OrdersModel__orderCount", "--limit", "1", "--format", "json")
    _, expected = duckdb_runner("SELECT channel, COUNT(*) FROM orders WHERE channel <> 'store' GROUP BY channel ORDER BY 2 DESC LIMIT 1")
    assert code == 0 and json.loads(out)["rows"] == [list(r) for r in expected]


def test_a_wrong_saved_query_is_a_clear_error(saved_models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(saved_models, capsys, "--saved-query", "orders_by_chanel")
    assert code != 0 and "unknown saved query 'orders_by_chanel'" in err and "did you mean 'orders_by_channel'" in err
    code, _, err = run(saved_models, capsys, "--saved-query", "orders_by_channel", "--metrics", "x")
    assert code != 0 and "--metrics cannot be given with --saved-query" in err
    assert "Traceback" not in err


def test_a_saved_query_takes_a_time_constraint(saved_models: Path, capsys: pytest.CaptureFixture[str], duckdb_runner) -> None:
    """--start-time / --end-time on a saved query, as mf query takes them: its own group_by decides the grain (day here)."""
    code, out, _ = run(saved_models, capsys, "--saved-query", "orders_by_channel", "--start-time", "2024-03-01",
                       "--end-time", "2024-03-31T23:00:00", "--format", "json")
    _, expected = duckdb_runner("SELECT channel, COUNT(*) FROM orders WHERE order_date::DATE BETWEEN '2024-03-01' AND '2024-03-31' "
                                "GROUP BY channel ORDER BY channel")
    assert code == 0 and json.loads(out)["rows"] == [list(r) for r in expected]
    code, _, err = run(saved_models, capsys, '{"metrics": ["OrdersModel__orderCount"]}', "--start-time", "2024-03-01")
    assert code == 2 and "not both (--start-time with an SMQ)" in err
