"""An executor as a caller with an access role uses it: the database's error text is withheld.

The service hands this wrapper, not the shared executor, to every path a role's key reaches
(REST, tools, MCP, the agent), so no route has to remember to redact. Timeouts and an
unavailable backend keep their messages: they are the service's own words, not the data's.
"""

from __future__ import annotations

from typing import Any

from .base import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, Executor, InThread, QueryResult, execute_async
from .errors import ExecutionError, withheld


class WithholdingExecutor:
    """Runs queries on `inner`; a database error comes back as `errors.withheld` (code and id only)."""

    def __init__(self, inner: Executor, role: str) -> None:
        self.inner = inner
        self.role = role
        self.backend = inner.backend
        self.dialect = inner.dialect

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        try:
            return self.inner.execute(sql, max_rows=max_rows, timeout_s=timeout_s)
        except ExecutionError as error:
            if error.code != ExecutionError.code:  # timeout, backend unavailable: not the database's words about rows
                raise
            raise withheld(error, self.role) from None

    async def execute_async(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S,
                            in_thread: InThread) -> QueryResult:
        """`execute` from an event loop (`base.execute_async`: natively when `inner` can, else in a thread)."""
        try:
            return await execute_async(self.inner, sql, max_rows=max_rows, timeout_s=timeout_s, in_thread=in_thread)
        except ExecutionError as error:
            if error.code != ExecutionError.code:
                raise
            raise withheld(error, self.role) from None

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:  # anything else an executor offers, unchanged
        return getattr(self.inner, name)
