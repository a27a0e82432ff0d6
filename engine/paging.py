"""Pushing a page (LIMIT/OFFSET) into a compiled query, so the database, not the service, cuts rows.

The compiled SMQ may carry its own `limit`; a page never reaches past it. One probe row beyond the
page is fetched when more rows may exist, which is how `truncated` is known without a COUNT.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from .lru import LruCache


@dataclass(frozen=True)
class Page:
    shown: exp.Query  # the page's SQL as reported to the caller (LIMIT = page size)
    run: exp.Query  # the SQL executed: the page plus a probe row when more rows may exist
    size: int  # rows at most in the page


def _literal_limit(query: exp.Query) -> tuple[bool, int | None]:
    """(has a LIMIT, its value when it is an integer literal)."""
    node = query.args.get("limit")
    if node is None:
        return False, None
    value = node.args.get("expression")
    if isinstance(value, exp.Literal) and value.is_int:
        return True, int(value.this)
    return True, None


def paginate(query: exp.Query, limit: int, offset: int = 0, *, probe: bool = True) -> Page:
    """The query limited to `limit` rows after `offset`, within any LIMIT it already has."""
    query = query.copy()
    has_limit, existing = _literal_limit(query)
    if not isinstance(query, exp.Select) or query.args.get("offset") is not None or (has_limit and existing is None):
        # not a plain SELECT we can edit safely: page over it as a subquery
        query = exp.select(exp.Star()).from_(query.subquery("smq_page"))
        has_limit, existing = False, None
    remaining = None if existing is None else max(existing - offset, 0)
    size = limit if remaining is None else min(limit, remaining)
    more_possible = remaining is None or remaining > size
    # numbers as literals: sqlglot's builders parse a Python int as SQL text (30 µs per call); `query` is this
    # function's own copy, so the run's tree is made from it in place (one deep copy fewer)
    shown = query.limit(exp.Literal.number(size), copy=True)
    run = query.limit(exp.Literal.number(size + 1 if probe and more_possible else size), copy=False)
    if offset:
        shown = shown.offset(exp.Literal.number(offset), copy=False)
        run = run.offset(exp.Literal.number(offset), copy=False)
    return Page(shown, run, size)


@dataclass(frozen=True)
class PagedSql:
    shown: str  # pretty SQL for the response
    run: str  # SQL to execute (the layer's dialect)
    size: int


_CACHE: LruCache[tuple, PagedSql] = LruCache(1024)


def paged_sql(layer: Any, smq: Any, role: str | None, limit: int, offset: int = 0, *, probe: bool = True) -> PagedSql:
    """compile_expression + paginate + generate, memoised per layer version.

    A BI front end repeats the same queries (dashboards refresh); compiling, paging and
    generating SQL twice costs more than many of the queries themselves.
    """
    try:
        key = (id(layer), layer.version, json.dumps(smq, sort_keys=True), role, limit, offset, probe)
    except (TypeError, ValueError):
        key = None  # not JSON: let the engine report it
    if key is not None:
        hit = _CACHE.get(key)
        if hit is not None:
            return hit
    page = paginate(layer.compile_expression(smq, layer.dialect, role), limit, offset, probe=probe)
    shown = page.shown
    if layer.shows_filters(role):  # the role sees its SQL with its row filters' values named (engine/access/roles.py)
        shown = paginate(layer.compile_expression(smq, layer.dialect, role, shown=True), limit, offset, probe=probe).shown
    result = PagedSql(shown.sql(dialect=layer.dialect, pretty=True), page.run.sql(dialect=layer.dialect), page.size)
    if key is not None:
        _CACHE.put(key, result)
    return result
