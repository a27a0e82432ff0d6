"""The distributed engines' second lock: `refuse_unsafe` runs after the read-only guard in the executors of
Spark/Databricks and ClickHouse, on everything they run (compiled SMQs included), refusing what the engine's
dialect (engine/dialects/<engine>.py `denied_functions`) names as unsafe there (files, network, programs, JVM
reflection) and any query-level SETTINGS but the compiler's own. Raw SQL meets the same names earlier, in the
read policy's allow-list (engine/allowlist.py).
"""

from __future__ import annotations

from sqlglot import exp, parse_one
from sqlglot.errors import ParseError

from engine.dialects import dialect as dialect_of


def refuse_unsafe(sql: str, dialect: str) -> None:
    """Raise ReadOnlyViolation for a denied function or table function, or a SETTINGS clause
    that changes more than the compiler's own (ClickHouse's `join_use_nulls = 1`)."""
    from .executors.errors import ReadOnlyViolation

    engine = dialect_of(dialect)
    denied, settings = engine.denied_functions, engine.allowed_settings
    if not denied and settings is None:
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
        if isinstance(node, exp.Select) and settings is not None:
            for setting in node.args.get("settings") or ():
                if setting.sql(dialect) not in settings:
                    raise ReadOnlyViolation(f"SETTINGS {setting.sql(dialect)} is not allowed: queries run with the "
                                            f"service's limits (only {', '.join(settings)} may be given)")
