"""database.yml `semantics: native | metricflow`: where smq and MetricFlow differ on purpose, which one a layer
answers with (docs/dbt.md lists each difference). Each one is asked both ways on a small DuckDB layer, the
answers held to SQL written by hand; a bad value is refused at its line."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import duckdb
import pytest

from engine import LayerValidationError, load_layer, load_layers

DATA = """
CREATE TABLE orders (id INTEGER, order_date DATE, amount DOUBLE, refund DOUBLE, customer_id INTEGER);
CREATE TABLE customers (id INTEGER, country VARCHAR);
INSERT INTO customers VALUES (1, 'DE'), (2, 'FR'), (3, 'IT');
INSERT INTO orders VALUES (1, '2024-01-05', 10, 0, 1), (2, '2024-01-20', 20, 0, 1), (3, '2024-02-03', 30, 5, 2),
                          (4, '2024-02-28', 40, 0, 9), (5, '2024-04-10', 50, 10, 2);
CREATE TABLE spine AS SELECT CAST(d AS DATE) AS d FROM range(DATE '2024-01-01', DATE '2024-06-01', INTERVAL 1 DAY) t(d);
"""
MODEL = """
name: OrdersModel
table: orders
primary_key: id
default_time_dimension: orderDate
dimensions:
  - {name: orderDate, type: date, expr: order_date}
  - {name: orderId, type: number, expr: id}
measures:
  - {name: orderCount, agg: count, expr: id}
  - {name: amount, agg: sum, expr: amount}
  - {name: refunds, agg: sum, expr: refund}
metrics:
  - name: runningAmount
    type: cumulative
    measure: OrdersModel__amount
    time_dimension: OrdersModel__orderDate
  - name: runningAmountLast
    type: cumulative
    measure: OrdersModel__amount
    time_dimension: OrdersModel__orderDate
    period_agg: last
    periods: data_range
  - name: amountPerRefund
    type: derived
    expr: OrdersModel__amount / OrdersModel__refunds
"""

CUSTOMERS = """name: CustomersModel
table: customers
primary_key: id
dimensions:
  - {name: country, type: string}
"""
JOINS = """joins:
  - {from: OrdersModel, to: CustomersModel, key: customer, relationship: many_to_one, on: {left: customer_id, right: id}}
"""


def layer_dir(root: Path, semantics: str | None, database: Path) -> Path:
    folder = root / "mf"
    (folder / "models").mkdir(parents=True, exist_ok=True)
    setting = f"semantics: {semantics}\n" if semantics is not None else ""
    (folder / "database.yml").write_text(
        f"name: mf\ndialect: duckdb\n{setting}time_spine: {{table: spine, column: d}}\n"
        f"connection: {{backend: duckdb, path: {database}}}\n", encoding="utf-8")
    (folder / "models" / "orders.yml").write_text(textwrap.dedent(MODEL).lstrip(), encoding="utf-8")
    (folder / "models" / "customers.yml").write_text(CUSTOMERS, encoding="utf-8")
    (folder / "joins.yml").write_text(JOINS, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("semantics_db") / "mf.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute(DATA)
    return path


def answer(tmp_path: Path, database: Path, semantics: str | None, smq: dict) -> list[tuple]:
    layer = load_layers(layer_dir(tmp_path / (semantics or "unset"), semantics, database))["mf"]
    with duckdb.connect(str(database), read_only=True) as conn:
        return conn.execute(layer.compile(smq)).fetchall()


def months(*pairs: tuple[str, float]) -> list[tuple]:
    import datetime as dt

    return [(dt.date.fromisoformat(m), v) for m, v in pairs]


def test_the_setting_defaults_to_native_and_is_read(tmp_path: Path, database: Path) -> None:
    assert load_layers(layer_dir(tmp_path / "a", None, database))["mf"].semantic.semantics == "native"
    assert load_layers(layer_dir(tmp_path / "b", "MetricFlow", database))["mf"].semantic.semantics == "metricflow"


@pytest.mark.parametrize("value, message", [
    ("metricflw", "semantics: unknown semantics 'metricflw' (use native, smq's own, or metricflow"),
    ("[native]", "semantics: expected one of native, metricflow, got a list"),
])
def test_a_bad_value_is_refused_at_its_line(tmp_path: Path, database: Path, value: str, message: str) -> None:
    with pytest.raises(LayerValidationError) as info:
        load_layer(layer_dir(tmp_path, value, database) / "mf")
    [error] = [e for e in info.value.errors if "semantics" in e.message]
    assert message in error.message and error.location.line == 3 and error.location.file.endswith("database.yml")
    if value == "metricflw":
        assert error.code == "unknown_semantics" and list(error.suggestions) == ["metricflow"]


def test_cumulative_by_month_last_day_or_first_day(tmp_path: Path, database: Path) -> None:
    """smq: each month's running total at its last day; MetricFlow: at its first day (period_agg first)."""
    smq = {"metrics": ["runningAmount"], "group_by": ["metric_time__month"], "order_by": ["metric_time__month"]}
    assert answer(tmp_path, database, "native", smq) == months(
        ("2024-01-01", 30.0), ("2024-02-01", 100.0), ("2024-03-01", 100.0), ("2024-04-01", 150.0))
    # MetricFlow: the first day of each month with rows in its window (January's is the 5th, the first order), and every
    # month of the spine to its end (May), since an all-time window holds rows from the first order on
    assert answer(tmp_path, database, "metricflow", smq) == months(
        ("2024-01-01", 10.0), ("2024-02-01", 30.0), ("2024-03-01", 100.0), ("2024-04-01", 100.0), ("2024-05-01", 150.0))
    # a metric that says its own period_agg and periods keeps them whatever the layer's setting
    own = {**smq, "metrics": ["runningAmountLast"]}
    assert answer(tmp_path, database, "metricflow", own) == answer(tmp_path, database, "native", smq)


def test_derived_division_by_zero_null_or_the_warehouses(tmp_path: Path, database: Path) -> None:
    """smq: x / 0 is NULL; MetricFlow writes the expression as is, so DuckDB's own division gives inf."""
    smq = {"metrics": ["amountPerRefund"], "group_by": ["metric_time__month"], "order_by": ["metric_time__month"]}
    native = answer(tmp_path, database, "native", smq)
    assert native == months(("2024-01-01", None), ("2024-02-01", 14.0), ("2024-04-01", 5.0))
    mf = answer(tmp_path, database, "metricflow", smq)
    assert [m for m, _ in mf] == [m for m, _ in native] and mf[1:] == native[1:] and math.isinf(mf[0][1])


def test_dimensions_only_across_models_left_or_full_outer_join(tmp_path: Path, database: Path) -> None:
    """smq: from the first dimension's model, left joins (every order's id with its customer's country); MetricFlow:
    FULL OUTER JOIN, so a customer without orders is a row too (IT, with a NULL order)."""
    smq = {"group_by": ["OrdersModel__orderId", "CustomersModel__country"]}
    native = sorted(answer(tmp_path, database, "native", smq), key=repr)
    assert native == sorted([(1, "DE"), (2, "DE"), (3, "FR"), (4, None), (5, "FR")], key=repr)
    assert sorted(answer(tmp_path, database, "metricflow", smq), key=repr) == sorted([*native, (None, "IT")], key=repr)
    # MySQL/MariaDB have no FULL JOIN: the left joins stay (docs/dbt.md)
    layer = load_layers(layer_dir(tmp_path / "mysql", "metricflow", database))["mf"]
    assert "FULL" in layer.compile(smq) and "FULL" not in layer.compile(smq, dialect="mysql")
