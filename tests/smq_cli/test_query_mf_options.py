"""`smq query`'s other `mf query` options: --start-time/--end-time (MetricFlow's time constraint, widened to whole
periods), --order, --csv FILE, --decimals, --quiet, --explain --show-dataflow-plan; bad values name the option."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest

from smq_cli.commands.time_constraint import constraint_filter, query_grain
from tests.smq_cli.test_query import models, run  # noqa: F401 - the module fixture


def test_start_and_end_time_keep_whole_periods_of_the_querys_grain(models: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
                                                                   duckdb_runner) -> None:
    code, out, _ = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--group-by", "metric_time__month",
                       "--start-time", "2024-01-15", "--end-time", "2024-03-02", "--format", "json")
    assert code == 0
    _, expected = duckdb_runner("SELECT DATE_TRUNC('month', order_date)::DATE, COUNT(*) FROM orders "
                                "WHERE order_date::DATE BETWEEN '2024-01-01' AND '2024-03-31' GROUP BY 1 ORDER BY 1")
    assert json.loads(out)["rows"] == [[str(m), n] for m, n in expected] and len(expected) == 3


def test_by_day_the_ends_are_the_days_given_inclusive(models: Path, capsys: pytest.CaptureFixture[str], duckdb_runner) -> None:  # noqa: F811
    code, out, _ = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--start-time", "2024-01-15T10:30:00",
                       "--end-time", "2024-01-20", "--format", "json")
    _, expected = duckdb_runner("SELECT COUNT(*) FROM orders WHERE order_date::DATE BETWEEN '2024-01-15' AND '2024-01-20'")
    assert code == 0 and json.loads(out)["rows"] == [[expected[0][0]]]
    code, out, _ = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--end-time", "2023-12-31", "--format", "json")
    _, expected = duckdb_runner("SELECT COUNT(*) FROM orders WHERE order_date::DATE <= '2023-12-31'")
    assert code == 0 and json.loads(out)["rows"] == [[expected[0][0]]]


def test_the_constraint_widens_as_metricflows() -> None:
    day = dt.datetime.fromisoformat
    assert query_grain(["metric_time__month", "metric_time__week", "metric_time__extract_dow"], []) == "week"
    assert query_grain(["OrdersModel__channel"], ["month", None]) == "month"
    assert query_grain(["metric_time"], [None]) == "day"
    assert constraint_filter(day("2024-01-03"), day("2024-01-03"), "week") == "metric_time__day BETWEEN '2024-01-01' AND '2024-01-07'"
    assert constraint_filter(day("2024-02-10"), day("2024-05-01"), "quarter") == \
        "metric_time__day BETWEEN '2024-01-01' AND '2024-06-30'"
    assert constraint_filter(day("2024-02-10T05:20:00"), None, "hour") == "metric_time__hour >= '2024-02-10 05:00:00'"
    assert constraint_filter(None, day("2024-02-10"), "year") == "metric_time__day <= '2024-12-31'"


@pytest.mark.parametrize("argv, message", [
    (["--start-time", "2024-13-01"], "--start-time: '2024-13-01' is not an ISO 8601 date or timestamp"),
    (["--end-time", "yesterday"], "--end-time: 'yesterday' is not an ISO 8601 date or timestamp, e.g. 2024-01-15"),
    (["--start-time", "2024-01-01T00:00:00+02:00"], "--start-time: '2024-01-01T00:00:00+02:00' has a time zone offset"),
    (["--start-time", "2024-03-01", "--end-time", "2024-01-01"], "--start-time 2024-03-01 is after --end-time 2024-01-01"),
    (["--display-plans"], "--display-plans (mf query's plan drawn in a browser) is not offered"),
    (["--show-sql-descriptions"], "--show-sql-descriptions is not offered"),
    (["--show-dataflow-plan"], "--show-dataflow-plan only applies with --explain"),
    (["--csv", "x.csv", "--explain"], "--csv writes rows; with --explain there are none"),
])
def test_bad_values_name_the_option_and_the_format(models: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
                                                    argv: list[str], message: str) -> None:
    code, _, err = run(models, capsys, "--metrics", "OrdersModel__orderCount", *argv)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("option, value, message", [
    ("--limit", "ten", "argument --limit: expected a whole number of rows (0 or more), got 'ten'"),
    ("--decimals", "-1", "argument --decimals: expected a number of digits after the point (0 or more), got '-1'"),
])
def test_bad_numbers_are_refused_by_the_parser(models: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
                                               option: str, value: str, message: str) -> None:
    with pytest.raises(SystemExit) as stop:
        run(models, capsys, "--metrics", "OrdersModel__orderCount", option, value)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_a_time_constraint_is_refused_with_an_offset_metric() -> None:
    from types import SimpleNamespace

    from smq_cli.commands.query_commands import with_time_constraint

    spec = SimpleNamespace(offset="2 weeks")
    metrics = {"growth": SimpleNamespace(name="growth", input_specs=(), inputs=lambda: ("lagged",), time_grain=None),
               "lagged": SimpleNamespace(name="lagged", input_specs=(spec,), inputs=lambda: (), time_grain=None)}
    layer = SimpleNamespace(semantic=SimpleNamespace(metrics=metrics, saved_queries={}))
    with pytest.raises(Exception, match="--start-time / --end-time with metric growth, which reads an input at an offset"):
        with_time_constraint(layer, {"metrics": ["growth"], "group_by": ["metric_time__day"]}, "2024-01-01", None)
    assert with_time_constraint(layer, {"metrics": ["x"]}, None, None) == {"metrics": ["x"]}


def test_order_csv_decimals_and_quiet(models: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,  # noqa: F811
                                      duckdb_runner) -> None:
    target = tmp_path / "out.csv"
    code, out, err = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--group-by", "OrdersModel__channel",
                         "--order", "-OrdersModel__orderCount", "--csv", str(target))
    _, expected = duckdb_runner("SELECT channel, COUNT(*) FROM orders GROUP BY channel ORDER BY 2 DESC")
    assert code == 0 and out == "" and f"wrote {len(expected)} rows to {target}" in err
    rows = list(csv.reader(target.open(encoding="utf-8")))
    assert rows[0] == ["OrdersModel__channel", "OrdersModel__orderCount"] and [(c, int(n)) for c, n in rows[1:]] == expected
    code, out, err = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--csv", str(target), "--quiet")
    assert code == 0 and err == "" and len(target.read_text(encoding="utf-8").splitlines()) == 2
    code, out, _ = run(models, capsys, "--metrics", "OrderItemsModel__revenue", "--decimals", "3", "--quiet")
    assert code == 0 and "rows)" not in out and "row)" not in out
    value = out.splitlines()[-1].strip()
    assert len(value.split(".")[1]) == 3, out


def test_explain_shows_the_dataflow_plan(models: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    code, out, _ = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--group-by", "metric_time__month",
                       "--start-time", "2024-01-15", "--explain", "--show-dataflow-plan")
    assert code == 0
    assert "-- Resolved query" in out and "-- Plan" in out and "metric_time__day >= '2024-01-01'" in out
    assert "SELECT" in out.split("-- Plan")[1]
