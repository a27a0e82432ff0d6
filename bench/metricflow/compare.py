"""Rows compared as multisets, numbers to a relative 1e-6 (docs/dbt.md, "Checking the numbers")."""

from __future__ import annotations

import datetime as dt
import decimal
import math

REL = 1e-6


def norm(value: object) -> object:
    """One spelling per value: dates and timestamps as ISO timestamps, decimals and ints as floats."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat()
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day).isoformat()
    if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
        return value + "T00:00:00"
    if isinstance(value, (int, float, decimal.Decimal)):
        return float(value)
    return value


def _sort_key(row: tuple) -> tuple:
    # numbers rounded so that rows equal within REL sort alike; type name first so None/str/float never compare
    return tuple((type(v).__name__, f"{v:.5e}" if isinstance(v, float) and math.isfinite(v) else repr(v)) for v in row)


def same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= REL * max(abs(a), abs(b))
    return a == b


def first_difference(ours: list[tuple], theirs: list[tuple]) -> tuple[tuple | None, tuple | None] | None:
    """None when the two are equal as multisets; else the first differing (ours, theirs) pair after sorting."""
    a = sorted((tuple(norm(v) for v in r) for r in ours), key=_sort_key)
    b = sorted((tuple(norm(v) for v in r) for r in theirs), key=_sort_key)
    for x, y in zip(a, b):
        if len(x) != len(y) or not all(same(u, v) for u, v in zip(x, y)):
            return x, y
    if len(a) != len(b):
        return (a[len(b)] if len(a) > len(b) else None), (b[len(a)] if len(b) > len(a) else None)
    return None


def on_shared_groups(ours: list[tuple], theirs: list[tuple], width: int) -> tuple[int, int] | None:
    """Where the row sets differ: over the groups (first WIDTH columns) both return, how many and how many
    of those differ in a metric. None when a group repeats (limit/ties make it meaningless) or width is 0."""
    if width == 0:
        return None
    a = {tuple(norm(v) for v in r[:width]): tuple(norm(v) for v in r[width:]) for r in ours}
    b = {tuple(norm(v) for v in r[:width]): tuple(norm(v) for v in r[width:]) for r in theirs}
    if len(a) != len(ours) or len(b) != len(theirs):
        return None
    shared = set(a) & set(b)
    return len(shared), sum(1 for k in shared if not all(same(u, v) for u, v in zip(a[k], b[k])))
