"""`smq validate` catches what would fail at query time, at its YAML line, once, with what would be right (#31).

Each case breaks one thing in a copy of the demo layer (on a copy of the session's demo DuckDB file) and
checks the exact error and the exit code 1; filters broken in a query say what is wrong without sqlglot's
class names.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from smq_cli.main import main
from tests.conftest import DEMO_MODELS


@pytest.fixture
def layer(tmp_path: Path, demo_files: dict[str, Path]) -> Path:
    """A copy of the demo layer whose connection names a copy of the demo DuckDB file; returns the models dir."""
    database = shutil.copy(demo_files["duckdb"], tmp_path / "shop.duckdb")
    shutil.copytree(DEMO_MODELS / "shop", tmp_path / "m" / "shop", ignore=shutil.ignore_patterns("data"))
    path = tmp_path / "m" / "shop" / "database.yml"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"connection:\n(  .*\n)+", f"connection:\n  backend: duckdb\n  path: {database}\n", text)
    path.write_text(text, encoding="utf-8")
    return tmp_path / "m"


def edit(models: Path, rel: str, old: str, new: str) -> None:
    path = models / "shop" / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def validate(models: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["validate", "--models-dir", str(models), *argv])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_the_demo_is_valid_against_its_database(layer: Path, capsys) -> None:
    code, out, err = validate(layer, capsys, "--db", "shop")
    assert (code, out) == (0, []) and "shop: ok (8 models" in err and "not checked" not in err


def test_validate_db_prints_the_errors_and_exits_1(layer: Path, capsys) -> None:
    edit(layer, "models/orders.yml", "agg: count\n", "agg: cnt\n")
    code, out, err = validate(layer, capsys, "--db", "shop")
    assert code == 1 and len(out) == 1
    assert out[0].startswith("shop/models/orders.yml:") or "orders.yml:" in out[0]
    assert "unknown aggregation 'cnt'" in out[0] and "did you mean 'count'" in out[0]
    assert "failed to load" not in err and err.strip() == "1 error(s) in 1 database(s)"


def test_keys_and_columns_are_checked_against_the_catalog(layer: Path, capsys) -> None:
    edit(layer, "models/orders.yml", "primary_key: order_id\n", "primary_key: order_idd\n")
    edit(layer, "models/orders.yml", "    expr: channel\n", "    expr: chanel\n")
    code, out, _ = validate(layer, capsys, "--db", "shop")
    assert code == 1 and len(out) == 2, out
    assert re.match(r".*orders\.yml:9:14: primary_key: column 'order_idd' is not a column of orders; did you mean 'order_id'", out[0])
    assert re.match(r".*orders\.yml:\d+:\d+: dimensions\[3\]: column 'chanel' is not a column of orders; did you mean 'channel'\?$",
                    out[1])
    assert main(["validate", "--offline", "--models-dir", str(layer)]) == 0  # the YAML alone cannot know
    capsys.readouterr()


def test_a_misspelled_backend_and_a_missing_file(layer: Path, capsys) -> None:
    edit(layer, "database.yml", "backend: duckdb", "backend: duckbd")
    code, out, _ = validate(layer, capsys, "--offline")
    assert code == 1 and len(out) == 1 and "database.yml:" in out[0]
    assert "connection.backend: unknown backend 'duckbd'" in out[0] and out[0].endswith("did you mean 'duckdb'?")
    edit(layer, "database.yml", "backend: duckbd", "backend: duckdb")
    text = (layer / "shop" / "database.yml").read_text(encoding="utf-8")
    (layer / "shop" / "database.yml").write_text(re.sub(r"path: .*", "path: data/nothing.duckdb", text), encoding="utf-8")
    code, out, _ = validate(layer, capsys)
    assert code == 1 and len(out) == 1 and re.search(r"database\.yml:\d+:\d+: connection\.path: the database file .*nothing\.duckdb "
                                                     r"does not exist", out[0])


def test_a_layer_without_connection(layer: Path, capsys) -> None:
    """What `smq import dbt` writes: validate says to add one; `smq query` says the same, not `unknown backend ''`."""
    text = (layer / "shop" / "database.yml").read_text(encoding="utf-8")
    (layer / "shop" / "database.yml").write_text(re.sub(r"connection:\n(  .*\n)+", "", text), encoding="utf-8")
    code, out, _ = validate(layer, capsys)
    assert code == 1 and len(out) == 1 and "add a `connection:` to database.yml" in out[0]
    assert main(["validate", "--offline", "--models-dir", str(layer)]) == 0
    capsys.readouterr()
    code = main(["query", "--models-dir", str(layer), "--db", "shop", "--metrics", "OrdersModel__orderCount"])
    err = capsys.readouterr().err
    assert code == 3 and "add a `connection:` to database.yml" in err and "unknown backend" not in err


def test_layer_filters_say_what_is_wrong_once(layer: Path, capsys) -> None:
    edit(layer, "models/orders.yml", "filters: [\"OrdersModel__status = 'shipped'\"]", "filters: ['OrdersModel__status = \"shipped\"']")
    edit(layer, "models/orders.yml", "filters: [\"OrdersModel__status = 'returned'\"]", "filters: [\"OrdersModel__orderId + > 3\"]")
    edit(layer, "database.yml", "\"NationsModel__country = 'Germany'\"", "'NationsModel__country = \"Germany\"'")
    code, out, _ = validate(layer, capsys, "--offline")
    assert code == 1 and len(out) == 3, out  # one error per mistake: no follow-on "uses dimensions of Germany and ..."
    text = "\n".join(out)
    assert "sqlglot" not in text and "Required keyword" not in text
    assert "'OrdersModel__orderId + > 3' does not parse: '+' has nothing on its right (column 24, near '>')" in text
    assert "\"shipped\" in double quotes is a name in SQL: write the value in single quotes, 'shipped'" in text
    assert "\"Germany\" in double quotes is a name in SQL: write the value in single quotes, 'Germany'" in text


@pytest.mark.parametrize(("where", "expected"), [
    ('OrdersModel__status = "shipped"', "smq: filters[0]: filter 'OrdersModel__status = \"shipped\"': \"shipped\" in double quotes is "
                                        "a name in SQL: write the value in single quotes, 'shipped'"),
    ("OrdersModel__orderId + > 3", "smq: filters[0]: filter 'OrdersModel__orderId + > 3' does not parse: '+' has nothing on its "
                                   "right (column 24, near '>')"),
    ("OrdersModel__status =", "smq: filters[0]: filter 'OrdersModel__status =' does not parse: '=' has nothing on its right "
                              "(column 21, near '=')"),
])
def test_query_filters_say_what_is_wrong(where: str, expected: str, capsys) -> None:
    code = main(["compile", "--models-dir", str(DEMO_MODELS), "--db", "shop",
                 json.dumps({"metrics": ["OrdersModel__orderCount"], "filters": [where]})])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == expected
