"""The distributed engines' second lock: ``refuse_unsafe`` runs after the read-only guard in the executors of
Spark/Databricks and ClickHouse, on everything they run (compiled SMQs included), refusing what
engine/dialect_functions ``DENIED`` names for that engine (files, network, programs, JVM reflection) and any
ClickHouse query-level SETTINGS but the compiler's own. Raw SQL meets the same names earlier, in the
read policy's allow-list (engine/allowlist.py).
"""

from __future__ import annotations

from sqlglot import exp, parse_one
from sqlglot.errors import ParseError

from engine.dialect_functions import ALLOWED, DENIED, clickhouse  # noqa: F401 - the data lives in engine/ (the allow-list reads it)


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
