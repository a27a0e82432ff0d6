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

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from engine.lru import LruCache
from engine.paging import PagedSql, paginate

from .readonly import vouch

# each text with the function that remembers it as answered from rollups (run again on a hit: that memory is an LRU
# of its own, smq_db/rollup_runs.py, and a text it forgot would be run on the warehouse)
_SQL: LruCache[tuple, tuple[str, Callable[[], None] | None]] = LruCache(1024)
_PAGES: LruCache[tuple, tuple[PagedSql, Callable[[], None] | None]] = LruCache(1024)


def _routed(layer: Any, spec: Any, role: str | None, rollups: bool, shown: bool = False) -> tuple[exp.Query, str, Any]:
    """The compiled tree, its dialect, and a function remembering its text as answered from rollups (None: from
    the facts; smq_db/rollup_runs.py runs it where they are). The function takes the text, the tree it was printed
    from, and a function giving the same query's text from the facts (a mixed query falls back to it)."""
    if rollups and layer.rollups:
        from .rollup_runs import mark_for_rollups, mark_mixed
        from .rollups import follow_store, store_path

        follow_store(layer)
        found = layer.compile_routed(spec, role, shown=shown)
        if found.parts:
            return found.tree, found.dialect, lambda sql, tree, facts: mark_mixed(
                sql, store_path(layer), found.rollups, tree, found.dialect, found.parts, facts)
        if found.rollups:
            path = store_path(layer) if found.store == "rollups" else None
            return found.tree, found.dialect, lambda sql, tree, facts: mark_for_rollups(sql, path, found.rollups)
        return found.tree, found.dialect, None
    return layer.compile_expression(spec, layer.dialect, role, shown=shown, rollups=False), layer.dialect, None


def _usable_key(layer: Any, rollups: bool) -> tuple:
    if not rollups or not layer.rollups:
        return ()
    from .rollups import follow_store

    follow_store(layer)
    return tuple(sorted(n for n, why in layer.rollup_usable().items() if why is None))


def compiled_sql(layer: Any, smq: Any, role: str | None = None, *, rollups: bool = True) -> str:
    """`layer.compile(smq, role=role)` (the layer's dialect, pretty), checked read-only on its tree; answered from
    rollups where the engine proves it the same (`rollups=False`: never)."""
    spec = layer.parse(smq)  # a {"saved_query": NAME} body expanded first (engine/resolve/saved.py)
    key = (id(layer), layer.version, spec.canonical(), role, _usable_key(layer, rollups))
    hit = _SQL.get(key)
    if hit is not None:
        if hit[1] is not None:
            hit[1]()
        return hit[0]
    tree, dialect, on_rollups = _routed(layer, spec, role, rollups)
    sql = tree.sql(dialect=dialect, pretty=True, copy=False)  # the tree is this call's own, as in Layer.compile
    vouch(tree, sql, dialect)
    mark = None
    if on_rollups is not None:
        def mark() -> None:
            on_rollups(sql, tree, lambda: compiled_sql(layer, spec, role, rollups=False))
        mark()
    _SQL.put(key, (sql, mark))
    return sql


def compiled_page(layer: Any, smq: Any, role: str | None, limit: int, offset: int = 0, *, probe: bool = True,
                  rollups: bool = True) -> PagedSql:
    """`engine.paging.paged_sql`: the page's SQL to show and to run (with its probe row), the latter checked
    read-only on its tree."""
    spec = layer.parse(smq)  # a {"saved_query": NAME} body expanded first (engine/resolve/saved.py)
    key = (id(layer), layer.version, spec.canonical(), role, limit, offset, probe, _usable_key(layer, rollups))
    hit = _PAGES.get(key)
    if hit is not None:
        if hit[1] is not None:
            hit[1]()
        return hit[0]
    tree, dialect, on_rollups = _routed(layer, spec, role, rollups)
    page = paginate(tree, limit, offset, probe=probe)
    run = page.run.sql(dialect=dialect, copy=False)  # paginate's trees are its own copies
    vouch(page.run, run, dialect)
    mark = None
    if on_rollups is not None:
        def mark() -> None:
            on_rollups(run, page.run, lambda: compiled_page(layer, spec, role, limit, offset, probe=probe, rollups=False).run)
        mark()
    shown = page.shown
    if layer.shows_filters(role):  # the role sees its SQL with its row filters' values named (engine/access/roles.py)
        shown = paginate(_routed(layer, spec, role, rollups, shown=True)[0], limit, offset, probe=probe).shown
    result = PagedSql(shown.sql(dialect=dialect, pretty=True, copy=False), run, page.size)
    _PAGES.put(key, (result, mark))
    return result


def generated_sql(tree: exp.Expr, dialect: str) -> str:
    """The text of a tree built here from compiled SQL (a count over it, say), checked read-only on the tree;
    the tree is consumed (generated in place)."""
    sql = tree.sql(dialect=dialect, copy=False)
    vouch(tree, sql, dialect)
    return sql
