"""`smq test`: starter tests pass on the data they were written from; wrong expectations and broken
assumptions fail with the expected and actual rows and the SQL."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path

import pytest

from smq_authoring import init_layer
from smq_authoring.modeltests import compare_rows


@pytest.fixture
def models(shop_db: Path, tmp_path: Path) -> Path:
    init_layer(f"sqlite:///{shop_db}", "shop", tmp_path / "models" / "shop")
    return tmp_path / "models"


def test_starter_tests_pass(cli, models: Path) -> None:
    code, out, err = cli("test", "--models-dir", models)
    assert code == 0, out
    assert "PASS  OrdersModel: the primary key is unique" in out and "FAIL" not in out
    assert " passed, 0 failed, 0 error(s)" in err


def test_failures_show_expected_actual_and_sql(cli, models: Path, shop_db: Path) -> None:
    folder = models / "shop"
    conn = sqlite3.connect(shop_db)
    conn.execute("INSERT INTO order_lines VALUES (999, 998, 'P001', 1)")  # an order line of an unknown order
    conn.execute("INSERT INTO orders VALUES (999, 1, -500, 'refund', 0, '2024-02-02')")  # a negative amount
    conn.commit()
    conn.close()
    with (folder / "joins.yml").open("a") as f:  # a join whose right side is not unique: it fans out
        f.write("  - {from: OrderLinesModel, to: PriceHistoryModel, key: price, relationship: many_to_one, type: left,\n"
                "     on: {left: product_code, right: product_code}}\n")
    (folder / "tests" / "checks.yml").write_text(textwrap.dedent("""
        tests:
          - name: orders per status
            smq: {metrics: [OrdersModel__orderCount], group_by: [OrdersModel__status]}
            expect:
              rows: [[new, 20], [paid, 20], [refund, 1], [shipped, 20]]
          - name: wrong amounts
            smq: {metrics: [OrdersModel__totalAmount], group_by: [OrdersModel__status], order_by: [OrdersModel__status]}
            expect:
              rows: [[new, 1], [paid, 2]]
          - name: amounts equal the hand query
            smq: {metrics: [OrdersModel__totalAmount], group_by: [CustomersModel__country]}
            expect:
              sql: SELECT c.country, SUM(o.amount) FROM orders o LEFT JOIN customers c ON c.id = o.customer_id GROUP BY 1
          - no_orphans: OrderLinesModel.order_line_order
          - name: a few orphans are fine
            no_orphans: OrderLinesModel.order_line_order
            max_share: 0.05
          - join_keeps_all_rows: OrderLinesModel.price
          - metric_non_negative: OrdersModel__totalAmount
            group_by: [OrdersModel__status]
          - row_count: {smq: {metrics: [OrdersModel__orderCount], group_by: [CustomersModel__country]}, min: 1, max: 3}
          - unique_key: NoSuchModel
          - colour: blue
    """))
    code, out, err = cli("test", "--models-dir", models, "--db", "shop")
    assert code == 1
    assert "PASS  orders per status" in out and "PASS  amounts equal the hand query" in out
    assert "FAIL  wrong amounts" in out and "expected, not returned: ['new', 1]" in out and "SQL: SELECT" in out
    assert "FAIL  no_orphans OrderLinesModel.order_line_order" in out and "matches no OrdersModel row, e.g. 998" in out
    assert "PASS  a few orphans are fine" in out
    assert "FAIL  join_keeps_all_rows OrderLinesModel.price" in out and "is not unique" in out
    assert "FAIL  metric_non_negative" in out and "-500" in out
    assert "PASS  row_count" in out
    assert "ERROR  unique_key NoSuchModel" in out and "unknown model 'NoSuchModel'" in out
    assert "tests[9]: unknown key 'colour'" in out and "checks.yml:" in out
    assert "failed" in err

    code, out, _ = cli("test", "--models-dir", models, "-k", "orders per status")
    assert out.count("PASS") == 1 and "FAIL" not in out  # the malformed entry is still reported (exit 1)


def test_unordered_comparison_tolerates_float_noise() -> None:
    ok, _ = compare_rows(["a", "b"], [["x", 0.30000000000000004], ["y", 2]], [["y", 2], ["x", 0.3]], ordered=False, tolerance=1e-6)
    assert ok
    ok, message = compare_rows(["a"], [["x"], ["y"]], [["y"], ["x"]], ordered=True, tolerance=1e-6)
    assert not ok and "same rows, different order" in message


def test_no_tests_and_unknown_database(cli, models: Path) -> None:
    for path in (models / "shop" / "tests").iterdir():
        path.unlink()
    code, _, err = cli("test", "--models-dir", models)
    assert code == 0 and "no tests" in err
    code, _, err = cli("test", "--models-dir", models, "--db", "shp")
    assert code == 2 and "did you mean 'shop'" in err
