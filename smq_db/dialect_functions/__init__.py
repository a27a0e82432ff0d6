"""Per-dialect function knowledge for the distributed engines (Spark/Databricks, ClickHouse), as data.

Kept apart from the guard (smq_db/readonly.py, smq_db/denylist.py) so a per-dialect allow-list
can take it over: ``ALLOWED`` names the functions a read-only analytic query needs on that engine
(the ones the compiler emits first), ``DENIED`` the functions and table functions that read
files, reach the network, run programs or reflect into the JVM, each with the reason shown to the
user. Until the allow-list guard exists, ``refuse_unsafe`` applies ``DENIED`` (and ClickHouse's
query-level SETTINGS) after the guard in the executors of these engines.
"""

from __future__ import annotations

from sqlglot import exp, parse_one
from sqlglot.errors import ParseError

from . import clickhouse, spark

ALLOWED: dict[str, frozenset[str]] = {"spark": spark.ALLOWED, "databricks": spark.ALLOWED, "clickhouse": clickhouse.ALLOWED}
DENIED: dict[str, dict[str, str]] = {"spark": spark.DENIED, "databricks": spark.DENIED, "clickhouse": clickhouse.DENIED}


def refuse_unsafe(sql: str, dialect: str) -> None:
    """Raise ReadOnlyViolation for a denied function or table function, or a SETTINGS clause
    that changes more than the compiler's own ``join_use_nulls = 1`` (ClickHouse)."""
    from ..executors.errors import ReadOnlyViolation

    denied = DENIED.get(dialect)
    if not denied:
        return
    try:
        tree = parse_one(sql, read=dialect)
    except ParseError:
        return  # the guard, which ran first, accepted it; nothing more to inspect here
    for node in tree.walk():
        if isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name in denied:
                raise ReadOnlyViolation(f"function {name} is not allowed on {dialect} ({denied[name]})")
        if isinstance(node, exp.Select) and dialect == "clickhouse":
            for setting in node.args.get("settings") or ():
                if setting.sql(dialect) != clickhouse.COMPILER_SETTING:
                    raise ReadOnlyViolation(f"SETTINGS {setting.sql(dialect)} is not allowed: queries run with the "
                                            "service's limits (only join_use_nulls = 1 may be given)")
