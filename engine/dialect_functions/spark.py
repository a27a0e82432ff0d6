"""Spark SQL / Databricks functions: what a read-only analytic query needs, and what is refused."""

from __future__ import annotations

FILE = "file access"
SYSTEM = "runs JVM code or programs"
NETWORK = "network access"

DENIED: dict[str, str] = {
    "reflect": SYSTEM, "java_method": SYSTEM, "try_reflect": SYSTEM, "transform": SYSTEM,
    "read_files": FILE, "input_file_name": FILE, "input_file_block_start": FILE, "input_file_block_length": FILE,
    "http_request": NETWORK, "ai_query": NETWORK, "secret": SYSTEM, "current_user": SYSTEM,
}

ALLOWED: frozenset[str] = frozenset({
    # emitted by the compiler
    "date_trunc", "date_add", "add_months", "cast", "nullif", "coalesce", "count", "sum", "min", "max", "avg",
    "trim", "upper", "lower", "case", "row_number",
    # common in layer expressions and filters
    "abs", "round", "floor", "ceil", "greatest", "least", "concat", "substring", "substr", "length", "replace",
    "date_format", "to_date", "to_timestamp", "year", "month", "day", "dayofweek", "weekofyear", "quarter",
    "datediff", "months_between", "current_date", "current_timestamp", "if", "ifnull", "nvl", "percentile_approx",
    "approx_count_distinct", "stddev", "variance", "median", "regexp_extract", "split", "lag", "lead", "rank", "dense_rank",
})
