"""The one column-statistics query and the one top-values query, run on real DuckDB and SQLite demo files
and checked against the same numbers counted in Python from the raw rows."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlglot import exp

from smq_db.executors import Executor, create_executor
from smq_db.stats import ColumnStatsQuery, column_stats_query, top_values_query


@pytest.fixture(scope="module", params=["duckdb", "sqlite"])
def executor(request: pytest.FixtureRequest, demo_files: dict[str, Path],
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[Executor]:
    backend = request.param
    # a copy: DuckDB refuses a second connection to a file another session fixture holds with other settings
    path = shutil.copy(demo_files[backend], tmp_path_factory.mktemp("stats") / demo_files[backend].name)
    ex = create_executor({"backend": backend, "path": str(path)}, base_dir=Path.cwd())
    yield ex
    ex.close()


def _column(ex: Executor, table: str, column: str) -> list[Any]:
    return [r[0] for r in ex.execute(f'SELECT "{column}" FROM {table}', max_rows=100_000).rows]


def _run(ex: Executor, tree: exp.Expression, max_rows: int = 100) -> list[list[Any]]:
    return ex.execute(tree.sql(dialect=ex.dialect), max_rows=max_rows).rows


def test_one_column_counts_rows_non_nulls_distinct_values_and_range(executor: Executor) -> None:
    values = _column(executor, "customers", "segment")
    query = column_stats_query(exp.to_table("customers"), "segment")
    stats = query.read(_run(executor, query.tree())[0])
    present = [v for v in values if v is not None]
    assert stats.rows == len(values)
    segment = stats.columns["segment"]
    assert (segment.non_null, segment.distinct) == (len(present), len(set(present)))
    assert (segment.low, segment.high) == (min(present), max(present))
    assert segment.non_null < stats.rows  # the demo has customers without a segment: NULLs are not counted


def test_several_columns_on_a_sample_with_the_range_only_where_asked(executor: Executor) -> None:
    sample = exp.select("*").from_("orders").limit(50).subquery("s")
    query = ColumnStatsQuery(sample, ("order_id", "channel"), ranged=("order_id",), count_rows=False)
    stats = query.read(_run(executor, query.tree())[0])
    assert stats.rows is None
    order_id, channel = stats.columns["order_id"], stats.columns["channel"]
    assert order_id.non_null == order_id.distinct == 50
    assert order_id.low is not None and order_id.low < order_id.high
    assert (channel.low, channel.high) == (None, None)
    assert 1 <= channel.distinct <= channel.non_null <= 50


def test_null_counts_read_as_zero() -> None:
    query = ColumnStatsQuery(exp.to_table("t"), ("a",))
    stats = query.read([None, None, None, None, None])
    assert (stats.rows, stats.columns["a"].non_null, stats.columns["a"].distinct) == (0, 0, 0)


def test_top_values_most_frequent_first_ties_by_value_nulls_counted(executor: Executor) -> None:
    counts = Counter(_column(executor, "customers", "segment"))
    rows = _run(executor, top_values_query(exp.to_table("customers"), exp.column("segment", quoted=True), 100))
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] is None, kv[0] or ""))
    non_null = [tuple(r) for r in rows if r[0] is not None]
    assert non_null == [kv for kv in expected if kv[0] is not None]
    assert [r[1] for r in rows if r[0] is None] == ([counts[None]] if None in counts else [])


def test_top_values_skip_nulls_narrow_and_limit(executor: Executor) -> None:
    segment = exp.column("segment", quoted=True)
    rows = _run(executor, top_values_query(exp.to_table("customers"), segment, 3, skip_nulls=True))
    assert len(rows) == 3 and all(v is not None for v, _ in rows)
    assert [n for _, n in rows] == sorted((n for _, n in rows), reverse=True)
    only_c = exp.Like(this=segment.copy(), expression=exp.Literal.string("c%"))
    narrowed = _run(executor, top_values_query(exp.to_table("customers"), segment, 100, where=only_c))
    assert narrowed and all(str(v).startswith("c") for v, _ in narrowed)
    counts = Counter(_column(executor, "customers", "segment"))
    assert dict((v, n) for v, n in narrowed) == {v: n for v, n in counts.items() if v is not None and v.startswith("c")}


def test_an_expression_subject_groups_on_the_expression(executor: Executor) -> None:
    upper = exp.Upper(this=exp.column("segment", quoted=True))
    rows = _run(executor, top_values_query(exp.to_table("customers"), upper, 100, skip_nulls=True))
    counts = Counter(v.upper() for v in _column(executor, "customers", "segment") if v is not None)
    assert dict((v, n) for v, n in rows) == dict(counts)
