"""Every compiler case on the distributed engines: Spark SQL on a real local Spark (pyspark,
``local[2]``, ANSI mode on and off) and ClickHouse SQL on chdb (ClickHouse in-process), each
result equal to the hand-written reference query run on DuckDB.

The demo database reaches both engines the same way: DuckDB writes each table to Parquet, Spark
reads the files as temporary views and chdb copies them into Memory tables. Nullability comes
with the files (primary keys are NOT NULL, every other column nullable), as in a real warehouse.
One Spark session serves the whole test session; it is started only when a Spark test runs.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine import load_layers
from engine.errors import QueryError

from ..conftest import DEMO_MODELS, normalize
from .test_engines import CASES, TIME_AXES, assert_same_rows, shop_with_extra_metrics

Runner = Callable[[str], tuple[list[str], list[tuple]]]


@pytest.fixture(scope="module")
def shop():
    return load_layers(DEMO_MODELS)["shop"]


class CaseLayers:
    """The layer a case names (`layer:` in cases.yml), the demo by default."""

    def __init__(self, layers: dict[str, Any]) -> None:
        self.layers = layers

    def compile(self, case: dict, dialect: str) -> str:
        return self.layers[case.get("layer", "shop")].compile(case["smq"], dialect=dialect)


@pytest.fixture(scope="module")
def case_layers(shop: Any, tmp_path_factory: pytest.TempPathFactory) -> CaseLayers:
    return CaseLayers({"shop": shop, "shop_with_extra_metrics": shop_with_extra_metrics(tmp_path_factory.mktemp("layers")),
                       "shop_extra_on_time_axis": shop_with_extra_metrics(tmp_path_factory.mktemp("layers"), TIME_AXES)})


@pytest.fixture(scope="session")
def demo_parquet(demo_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One Parquet file per demo table, written by DuckDB from the demo database file."""
    import duckdb

    from smq_db.demo.generate import generate

    folder = tmp_path_factory.mktemp("demo_parquet")
    files = {}
    with duckdb.connect(str(demo_files["duckdb"]), read_only=True) as conn:
        for table in generate():
            files[table.name] = folder / f"{table.name}.parquet"
            conn.table(table.name).write_parquet(str(files[table.name]))
    return files


# ---------------------------------------------------------------------------------------------
# Spark


@pytest.fixture(scope="session")
def spark(demo_parquet: dict[str, Path]) -> Iterator[Any]:
    """The one local Spark session: two cores, two shuffle partitions, no UI, UTC."""
    pytest.importorskip("pyspark")
    if os.environ.get("SMQ_SKIP_SPARK"):
        pytest.skip("SMQ_SKIP_SPARK is set: the Spark cases are skipped (they need a JVM and add minutes on a busy machine)")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)  # type: ignore[attr-defined]
    session = (
        SparkSession.builder.master("local[2]")
        .appName("smq-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.ansi.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    for name, path in demo_parquet.items():
        session.read.parquet(str(path)).createOrReplaceTempView(name)
    yield session
    session.stop()


class SparkRunner:
    """Runs Spark SQL with ANSI mode on (Spark 4's default) or off (Spark 3's and older Databricks runtimes')."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def ansi(self, on: bool) -> None:
        self.session.conf.set("spark.sql.ansi.enabled", "true" if on else "false")

    def __call__(self, sql: str) -> tuple[list[str], list[tuple]]:
        frame = self.session.sql(sql)
        return list(frame.columns), [tuple(normalize(v) for v in row) for row in frame.collect()]


@pytest.fixture(scope="session")
def spark_runner(spark: Any) -> Iterator[SparkRunner]:
    runner = SparkRunner(spark)
    yield runner
    runner.ansi(True)


# ---------------------------------------------------------------------------------------------
# ClickHouse (chdb)


@pytest.fixture(scope="session")
def chdb_session(demo_parquet: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    pytest.importorskip("chdb")
    from chdb import session as chdb_sessions

    db = chdb_sessions.Session(str(tmp_path_factory.mktemp("chdb")))
    for name, path in demo_parquet.items():
        # the Parquet schema's nullability becomes Nullable(...) (or not) column by column
        db.query(f"CREATE TABLE {name} ENGINE = Memory AS SELECT * FROM file('{path}', Parquet)")
    yield db
    db.close()


def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:  # a DateTime64 read back in the session's zone (UTC)
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    if isinstance(value, (dt.date, Decimal, bool)):
        return normalize(value)
    return value


@pytest.fixture(scope="session")
def clickhouse_runner(chdb_session: Any) -> Runner:
    def run(sql: str) -> tuple[list[str], list[tuple]]:
        table = chdb_session.query(sql, "ArrowTable")
        return list(table.column_names), [tuple(_plain(v) for v in row.values()) for row in table.to_pylist()]

    return run


# ---------------------------------------------------------------------------------------------
# the reference cases


def _check(layers: CaseLayers, duckdb_runner: Runner, run: Runner, case: dict, dialect: str) -> None:
    code = (case.get("refused_on") or {}).get(dialect)
    if code is not None:  # refused there, with its code (test_engines.py refused)
        with pytest.raises(QueryError) as err:
            layers.compile(case, dialect)
        assert err.value.code == code, err.value.message
        return
    _, expected = duckdb_runner(case["reference"])
    columns, actual = run(layers.compile(case, dialect))
    smq = case["smq"]
    assert columns == [*smq.get("group_by", []), *smq.get("metrics", [])], "output columns are named and ordered as the SMQ"
    assert_same_rows(actual, expected, case.get("ordered", False), f"{case['name']} on {dialect}")


# every case with ANSI mode on; with it off, the cases whose arithmetic and casts it changes.
# databricks compiles to the same SQL as spark (its golden files are identical), so it runs once.
LEGACY_CASES = [c for c in CASES if any(k in c["name"] for k in ("ratio", "derived", "cumulative_window", "filter"))]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_spark_matches_reference(case_layers, duckdb_runner, spark_runner, case: dict) -> None:
    spark_runner.ansi(True)
    _check(case_layers, duckdb_runner, spark_runner, case, "spark")


@pytest.mark.parametrize("case", LEGACY_CASES, ids=[c["name"] for c in LEGACY_CASES])
def test_spark_without_ansi_matches_reference(case_layers, duckdb_runner, spark_runner, case: dict) -> None:
    spark_runner.ansi(False)
    _check(case_layers, duckdb_runner, spark_runner, case, "spark")


def test_databricks_sql_is_spark_sql(case_layers) -> None:
    for case in CASES:
        assert case_layers.compile(case, "databricks") == case_layers.compile(case, "spark"), case["name"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_clickhouse_matches_reference(case_layers, duckdb_runner, clickhouse_runner, case: dict) -> None:
    _check(case_layers, duckdb_runner, clickhouse_runner, case, "clickhouse")


# ---------------------------------------------------------------------------------------------
# engine pitfalls, one by one (the cases above cover them in context: decimals in every revenue
# sum, identifier case in every output column name, NULL group keys in dirty_key_two_hops_null_group)


def _pitfall_probe(dialect: str) -> str:
    """One SELECT of the compiler's dialect helpers on constants: week start, grains, division."""
    from sqlglot import exp

    from engine.dialects import dialect as dialect_of
    from engine.dialects.base import float_division

    d = dialect_of(dialect)
    sunday = exp.Cast(this=exp.Literal.string("2024-01-07 13:45:00"), to=exp.DataType.build("TIMESTAMP"))
    one, two, zero = (exp.Literal.number(n) for n in (1, 2, 0))
    columns = {
        "week": d.truncate(sunday.copy(), "week"),
        "quarter": d.truncate(sunday.copy(), "quarter"),
        "day": d.truncate(sunday.copy(), "day"),
        "next_month": d.add_interval(d.truncate(sunday.copy(), "month"), 1, "month"),
        "half": float_division(one, two),  # integers: 0 under integer division
        "by_zero": float_division(one.copy(), zero),  # ANSI Spark raises DIVIDE_BY_ZERO for 1 / 0
    }
    return exp.select(*[exp.alias_(e, name, quoted=True) for name, e in columns.items()]).sql(dialect)


PITFALL_ROW = ("2024-01-01", "2024-01-01", "2024-01-07", "2024-02-01", 0.5, None)


def test_clickhouse_pitfalls(clickhouse_runner: Runner) -> None:
    columns, rows = clickhouse_runner(_pitfall_probe("clickhouse"))
    assert rows == [PITFALL_ROW], "ISO week from Monday, DATE results, floating division, NULL for / 0"


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "legacy"])
def test_spark_pitfalls(spark_runner: Any, ansi: bool) -> None:
    spark_runner.ansi(ansi)
    columns, rows = spark_runner(_pitfall_probe("spark"))
    assert rows == [PITFALL_ROW], "ISO week from Monday, DATE results, floating division, NULL for / 0"


def test_clickhouse_left_join_misses_are_null_not_defaults(shop, clickhouse_runner: Runner) -> None:
    """Without join_use_nulls ClickHouse gives '' for a customer without nation; the compiled SQL says 1."""
    from sqlglot import exp

    query = shop.compile_expression({"metrics": ["OrdersModel__orderCount"], "group_by": ["NationsModel__country"]}, "clickhouse")
    assert isinstance(query, exp.Select) and query.args["settings"][0].sql("clickhouse") == "join_use_nulls = 1"
    _, with_setting = clickhouse_runner(query.sql("clickhouse"))
    query.set("settings", None)
    _, without = clickhouse_runner(query.sql("clickhouse"))
    assert None in [r[0] for r in with_setting] and "" not in [r[0] for r in with_setting]
    assert "" in [r[0] for r in without], "ClickHouse's default behaviour, which the setting exists to avoid"


def test_null_group_keys_merge_across_aggregations(shop, duckdb_runner: Runner, clickhouse_runner: Runner) -> None:
    """Two facts grouped by a key with NULLs stack in a UNION ALL and regroup: one NULL row, not two."""
    smq = {"metrics": ["OrdersModel__orderCount", "OrderItemsModel__revenue"], "group_by": ["order.customer.nation.NationsModel__country"]}
    _, expected = duckdb_runner(shop.compile(smq, dialect="duckdb"))
    _, actual = clickhouse_runner(shop.compile(smq, dialect="clickhouse"))
    assert [r[0] for r in actual].count(None) == 1
    assert_same_rows(actual, expected, False, "null keys on clickhouse")


def test_clickhouse_range_join_is_stated_twice_only_when_alone() -> None:
    import sqlglot

    from engine.dialects import Engine, dialect

    finish = dialect(Engine.CLICKHOUSE).finish
    lone = finish(sqlglot.parse_one("SELECT 1 FROM p LEFT JOIN r ON r.t < p.e", read="clickhouse"))
    assert "ON r.t < p.e AND r.t < p.e" in lone.sql("clickhouse")
    keyed = finish(sqlglot.parse_one("SELECT 1 FROM p LEFT JOIN r ON r.k = p.k", read="clickhouse"))
    assert "ON r.k = p.k SETTINGS" in keyed.sql("clickhouse")
