"""`total=true`: the row count of a query's whole answer, not only of the page returned.

The count runs over the compiled SMQ (the caller's role applied, the SMQ's own `limit` kept, the page
not applied) as `SELECT COUNT(*) FROM (<query>)`, built with sqlglot; the query's CTEs are lifted to the
outer statement (not every dialect takes a WITH inside a subquery) and its ORDER BY is dropped when no
LIMIT/OFFSET depends on it. It costs one more query, so it is asked for, never implied.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from engine import Layer
from smq_db.compiled import generated_sql
from smq_db.executors.base import Executor


def count_query(query: exp.Query) -> exp.Select:
    """COUNT(*) over `query`, its CTEs lifted to the outer statement."""
    inner = query.copy()
    ctes = inner.args.get("with_")
    inner.set("with_", None)
    if inner.args.get("limit") is None and inner.args.get("offset") is None:
        inner.set("order", None)
    count = exp.select(exp.alias_(exp.Count(this=exp.Star()), "total")).from_(inner.subquery("smq_total"))
    if ctes is not None:
        count.set("with_", ctes)
    return count


def total_rows(layer: Layer, smq: Any, role: str | None, executor: Executor, timeout_s: float) -> int:
    """The number of rows the SMQ's whole answer has, counted by the database."""
    sql = generated_sql(count_query(layer.compile_expression(smq, layer.dialect, role)), layer.dialect)
    result = executor.execute(sql, max_rows=1, timeout_s=timeout_s)
    return int(result.rows[0][0]) if result.rows else 0
