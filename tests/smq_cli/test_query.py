"""`smq query`: mf query's options or a whole SMQ, run on the layer's database, printed as a table, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
import yaml

from smq_cli.main import main
from tests.conftest import DEMO_MODELS


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory, demo_files: dict[str, Path]) -> Path:
    """The demo layer on a copy of the session's demo DuckDB file (the original is held open by duckdb_runner)."""
    root = tmp_path_factory.mktemp("smq_query_models")
    database = shutil.copy(demo_files["duckdb"], root / "shop.duckdb")
    shutil.copytree(DEMO_MODELS / "shop", root / "shop", ignore=shutil.ignore_patterns("data"))
    config = yaml.safe_load((root / "shop" / "database.yml").read_text(encoding="utf-8"))
    config["connection"] = {"backend": "duckdb", "path": str(database)}
    (root / "shop" / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return root


def run(models: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["query", "--models-dir", str(models), "--db", "shop", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_options_build_the_query_and_rows_match_the_database(models: Path, capsys: pytest.CaptureFixture[str],
                                                              duckdb_runner) -> None:
    code, out, _ = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--group-by", "OrdersModel__channel",
                       "--order-by", "-OrdersModel__orderCount", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["OrdersModel__channel", "OrdersModel__orderCount"]
    _, expected = duckdb_runner("SELECT channel, COUNT(*) FROM orders GROUP BY channel ORDER BY 2 DESC")
    assert [(r[0], int(r[1])) for r in rows[1:]] == [(c, n) for c, n in expected]


def test_where_filters_repeat_and_limit_applies(models: Path, capsys: pytest.CaptureFixture[str], duckdb_runner) -> None:
    code, out, _ = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--group-by", "OrdersModel__channel",
                       "--where", "OrdersModel__status = 'shipped'", "--where", "OrdersModel__channel <> 'store'",
                       "--order-by", "OrdersModel__channel", "--limit", "1", "--format", "json")
    assert code == 0
    body = json.loads(out)
    _, expected = duckdb_runner("SELECT channel, COUNT(*) FROM orders WHERE TRIM(status) = 'shipped' AND channel <> 'store' "
                                "GROUP BY channel ORDER BY channel LIMIT 1")
    assert body == {"columns": ["OrdersModel__channel", "OrdersModel__orderCount"], "rows": [list(r) for r in expected]}


def test_a_whole_smq_and_the_table_format(models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(models, capsys, '{"metrics": ["OrdersModel__orderCount"]}')
    assert code == 0
    assert out.splitlines()[0] == "OrdersModel__orderCount" and "5000" in out and out.rstrip().endswith("(1 row)")


def test_explain_prints_sql_in_any_dialect(models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--explain", "--dialect", "mysql")
    assert code == 0 and "COUNT(`orders`.order_id)" in out


def test_bad_names_and_arguments_say_what_is_wrong(models: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(models, capsys, "--metrics", "OrdersModel__orderCnt")
    assert code == 2 and "did you mean 'OrdersModel__orderCount'" in err
    code, _, err = run(models, capsys)
    assert code == 2 and "nothing to query" in err
    code, _, err = run(models, capsys, "--metrics", "x", '{"metrics": ["y"]}')
    assert code == 2 and "not both (--metrics with an SMQ)" in err
    code, _, err = run(models, capsys, "--metrics", "OrdersModel__orderCount", "--dialect", "mysql")
    assert code == 2 and "--dialect only applies with --explain" in err


def test_an_unreachable_database_is_a_configuration_error(tmp_path: Path, models: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(models / "shop", tmp_path / "shop")
    config = yaml.safe_load((tmp_path / "shop" / "database.yml").read_text(encoding="utf-8"))
    config["connection"] = {"backend": "duckdb", "path": str(tmp_path / "missing" / "nothing.duckdb")}
    (tmp_path / "shop" / "database.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    code, _, err = run(tmp_path, capsys, "--metrics", "OrdersModel__orderCount")
    assert code == 3 and "cannot reach the database" in err
