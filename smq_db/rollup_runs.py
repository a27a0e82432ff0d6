"""Running what the engine answered from the embedded rollup store (docs/rollups.md).

`Layer.compile_routed` says where a compiled query runs: the warehouse, or the rollup file in DuckDB's dialect.
smq_db/compiled.py remembers each text it compiled for the rollup file here (`mark_for_rollups`), and the layer's
executor (`RollupAwareExecutor`, which `open_for_layer` gives for a layer with embedded rollups) runs those texts on
the file, read-only and locked down like every DuckDB database, reopening it when a build has swapped in a new one;
every other text goes to the warehouse as before. Callers need not know: the text they are given is the one to run.

A mixed query (engine/rollups/mix.py: some aggregations from the store, the rest from the facts) is remembered with
its tree and its parts (`mark_mixed`): the executor runs each part on the file, fills the placeholder tables of the
tree with their rows, and runs the result on the warehouse; a part with more rows than a mixed query may carry is not
given, and the same query's text from the facts runs instead.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlglot import exp

from engine.lru import LruCache
from engine.rollups.mix import MIX_ROWS, Part, fill, given_rows

from .executors.base import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, QueryResult

# SQL text -> (the rollup file it reads, "" when the rollups are in the warehouse; the rollups answering it)
_FOR_ROLLUPS: LruCache[str, tuple[str, tuple[str, ...]]] = LruCache(2048)
# queries of layers with rollups answered from them / from the facts, this process (the service's /v1/metrics)
HITS = {"rollup": 0, "facts": 0}
_HITS_LOCK = threading.Lock()


@dataclass(frozen=True)
class _Mixed:
    path: str
    names: tuple[str, ...]
    tree: exp.Query
    dialect: str
    parts: tuple[Part, ...]
    facts: Callable[[], str]


_MIXED: LruCache[str, _Mixed] = LruCache(2048)


def mark_mixed(sql: str, path: Path, names: tuple[str, ...], tree: exp.Query, dialect: str, parts: tuple[Part, ...],
               facts: Callable[[], str]) -> None:
    """Remember that `sql` (printed from `tree`, kept as it is: `fill` copies it) is a mixed query: `parts` run on the
    file `path` first."""
    _MIXED.put(sql, _Mixed(str(path), names, tree, dialect, parts, facts))


def mark_for_rollups(sql: str, path: Path | None, names: tuple[str, ...]) -> None:
    """Remember that `sql` is answered from rollups `names` (on the file `path`; None: stored in the warehouse)."""
    _FOR_ROLLUPS.put(sql, (str(path) if path is not None else "", names))


def rollups_of(sql: str) -> tuple[str, ...]:
    """The rollups a compiled text is answered from (() for the facts)."""
    found = _FOR_ROLLUPS.get(sql)
    if found is None:
        mixed = _MIXED.get(sql)
        return mixed.names if mixed is not None else ()
    return found[1]


def count(rollup: bool) -> None:
    with _HITS_LOCK:
        HITS["rollup" if rollup else "facts"] += 1


class RollupAwareExecutor:
    """The warehouse's executor, plus the rollup file for the texts compiled for it."""

    def __init__(self, warehouse: Any, path: Path) -> None:
        self.warehouse = warehouse
        self.path = path
        self._rollups: Any = None
        self._stamp: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:  # backend, dialect, pool sizes...: the warehouse's
        return getattr(self.warehouse, name)

    def _store(self) -> Any:
        from .executors.duckdb import DuckDBExecutor

        stat = self.path.stat()
        stamp = (stat.st_ino, stat.st_mtime_ns)
        with self._lock:
            if self._rollups is None or stamp != self._stamp:
                old = self._rollups
                self._rollups = DuckDBExecutor(self.path, dialect="duckdb")
                self._stamp = stamp
                if old is not None:
                    old.close()
            return self._rollups

    def _unmixed(self, sql: str, timeout_s: float) -> str:
        """A mixed query's text for the warehouse: its parts run on the file, their rows filled in (or, when a part
        has more rows than a mixed query carries, the same query from the facts); any other text as it is."""
        mixed = _MIXED.get(sql)
        if mixed is None:
            return sql
        store = self._store()
        given = {}
        for part in mixed.parts:
            result = store.execute(part.sql, max_rows=MIX_ROWS, timeout_s=timeout_s)
            if result.truncated:
                return mixed.facts()
            given[part.table] = given_rows(part.columns, result.rows)
        return fill(mixed.tree, given).sql(dialect=mixed.dialect, copy=False)

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        sql = self._unmixed(sql, timeout_s)
        found = _FOR_ROLLUPS.get(sql)
        target = self._store() if found is not None and found[0] else self.warehouse
        result: QueryResult = target.execute(sql, max_rows=max_rows, timeout_s=timeout_s)
        return result

    async def execute_async(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S,
                            in_thread: Any) -> QueryResult:
        from .executors.base import execute_async

        if _MIXED.get(sql) is not None:
            sql = await in_thread(functools.partial(self._unmixed, sql, timeout_s))
        found = _FOR_ROLLUPS.get(sql)
        target = self._store() if found is not None and found[0] else self.warehouse
        return await execute_async(target, sql, max_rows=max_rows, timeout_s=timeout_s, in_thread=in_thread)

    def close(self) -> None:
        with self._lock:
            if self._rollups is not None:
                self._rollups.close()
                self._rollups = None
        self.warehouse.close()
