"""ClickHouse functions and table functions: what a read-only analytic query needs, and what is refused.

ClickHouse's ``readonly = 1`` stops writes and SET, not table functions that read files, URLs,
object stores or other databases, nor ``executable`` (runs a script): these are refused here.
"""

from __future__ import annotations

FILE = "file access"
NETWORK = "network access"
SYSTEM = "runs programs or reads server internals"

COMPILER_SETTING = "join_use_nulls = 1"  # the one query-level setting compiled SQL carries

DENIED: dict[str, str] = {
    "file": FILE, "hdfs": FILE, "hdfscluster": FILE, "filecluster": FILE, "iceberg": FILE, "deltalake": FILE,
    "hudi": FILE, "input": FILE, "format": FILE,
    "url": NETWORK, "urlcluster": NETWORK, "s3": NETWORK, "s3cluster": NETWORK, "gcs": NETWORK, "azureblobstorage": NETWORK,
    "remote": NETWORK, "remotesecure": NETWORK, "cluster": NETWORK, "clusterallreplicas": NETWORK,
    "mysql": NETWORK, "postgresql": NETWORK, "mongodb": NETWORK, "redis": NETWORK, "odbc": NETWORK, "jdbc": NETWORK,
    "sqlite": FILE, "dictionary": SYSTEM, "executable": SYSTEM, "executablepool": SYSTEM,
    "getsetting": SYSTEM, "getmacro": SYSTEM, "sleep": SYSTEM, "sleepeachrow": SYSTEM, "throwif": SYSTEM,
}

ALLOWED: frozenset[str] = frozenset({
    # emitted by the compiler
    "toDate", "toMonday", "quantileExactInclusive", "quantileExact", "quantilesExactInclusive", "groupArray",
    "arraySort", "arrayElement", "toUInt64", "toStartOfMonth", "toStartOfQuarter", "toStartOfYear", "addDays", "addMonths", "addYears",
    "CAST", "nullIf", "coalesce", "count", "sum", "min", "max", "avg", "trim", "upper", "lower", "row_number",
    # common in layer expressions and filters
    "abs", "round", "floor", "ceil", "greatest", "least", "concat", "substring", "length", "replaceAll",
    "formatDateTime", "toYear", "toMonth", "toDayOfMonth", "toDayOfWeek", "toQuarter", "dateDiff", "today", "now",
    "if", "ifNull", "multiIf", "uniq", "uniqExact", "quantile", "median", "stddevPop", "varPop", "lagInFrame",
    "leadInFrame", "rank", "dense_rank", "extract", "splitByChar",
})
