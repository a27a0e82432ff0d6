"""SQL compiled from an SMQ to be run here: checked read-only on the compiler's tree, never parsed back.

Every executor runs the read-only guard on the text it is sent (`smq_db.readonly.ensure_read_only`), the
second lock of docs/security.md. For SQL the compiler generated, parsing that text again is wasted work
(for a small query, more than compiling it): it is sqlglot's printing of a tree the compiler built in this
process. So these functions compile, run the guard's checks on that tree (`readonly.vouch`: the same checks,
one walk, no parse; on the text only what no tree shows), and only then is the text remembered as
verified: an executor sent it finds the verdict and runs it. A compiler bug that put a denied function,
a second statement or a write in the tree is refused exactly as before, before anything runs.

Memoised per layer version, role and SMQ (canonical text), like `Layer.compile` and `engine.paging.paged_sql`,
whose texts these are (tests/smq_db/test_compiled.py holds them equal on every case).
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from engine.lru import LruCache
from engine.paging import PagedSql, paginate

from .readonly import vouch

_SQL: LruCache[tuple, str] = LruCache(1024)
_PAGES: LruCache[tuple, PagedSql] = LruCache(1024)


def compiled_sql(layer: Any, smq: Any, role: str | None = None) -> str:
    """`layer.compile(smq, role=role)` (the layer's dialect, pretty), checked read-only on its tree."""
    spec = layer.parse(smq)  # a {"saved_query": NAME} body expanded first (engine/resolve/saved.py)
    key = (id(layer), layer.version, spec.canonical(), role)
    hit = _SQL.get(key)
    if hit is not None:
        return hit
    dialect = layer.dialect
    tree = layer.compile_expression(spec, dialect, role)
    sql = tree.sql(dialect=dialect, pretty=True, copy=False)  # the tree is this call's own, as in Layer.compile
    vouch(tree, sql, dialect)
    _SQL.put(key, sql)
    return sql


def compiled_page(layer: Any, smq: Any, role: str | None, limit: int, offset: int = 0, *, probe: bool = True) -> PagedSql:
    """`engine.paging.paged_sql`: the page's SQL to show and to run (with its probe row), the latter checked
    read-only on its tree."""
    spec = layer.parse(smq)  # a {"saved_query": NAME} body expanded first (engine/resolve/saved.py)
    key = (id(layer), layer.version, spec.canonical(), role, limit, offset, probe)
    hit = _PAGES.get(key)
    if hit is not None:
        return hit
    dialect = layer.dialect
    page = paginate(layer.compile_expression(spec, dialect, role), limit, offset, probe=probe)
    run = page.run.sql(dialect=dialect, copy=False)  # paginate's trees are its own copies
    vouch(page.run, run, dialect)
    shown = page.shown
    if layer.shows_filters(role):  # the role sees its SQL with its row filters' values named (engine/access/roles.py)
        shown = paginate(layer.compile_expression(spec, dialect, role, shown=True), limit, offset, probe=probe).shown
    result = PagedSql(shown.sql(dialect=dialect, pretty=True, copy=False), run, page.size)
    _PAGES.put(key, result)
    return result


def generated_sql(tree: exp.Expr, dialect: str) -> str:
    """The text of a tree built here from compiled SQL (a count over it, say), checked read-only on the tree;
    the tree is consumed (generated in place)."""
    sql = tree.sql(dialect=dialect, copy=False)
    vouch(tree, sql, dialect)
    return sql
