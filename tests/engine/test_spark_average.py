"""Spark answers AVG over DECIMAL(p, s) at scale s + 4 (0.050081 where the others give 0.0500813...): its dialect
averages a DOUBLE; the other engines keep AVG as written."""

from __future__ import annotations

from sqlglot import exp

from engine.dialects import dialect


def test_spark_averages_a_double_and_the_others_the_value() -> None:
    value = exp.column("discount")
    assert dialect("spark").average(value.copy()).sql(dialect="spark") == "AVG(CAST(discount AS DOUBLE))"
    assert dialect("databricks").average(value.copy()).sql(dialect="databricks") == "AVG(CAST(discount AS DOUBLE))"
    assert dialect("duckdb").average(value.copy()).sql(dialect="duckdb") == "AVG(discount)"
