"""Errors raised while running SQL on a backend.

They subclass the engine's ``EngineError`` so the service formats them like every other
error (stable ``code``, human ``message``). Messages carry the database's own words, never a
Python traceback: users act on "no such table: ordrs", not on a stack.
"""

from __future__ import annotations

from engine.errors import EngineError


class ExecutionError(EngineError):
    """The database refused or failed the query; ``message`` is the database's message."""

    code = "execution_failed"


class QueryTimeout(ExecutionError):
    """The query ran past its time budget and was cancelled on the engine."""

    code = "query_timeout"


class BackendUnavailable(ExecutionError):
    """The backend cannot be reached: driver package missing, server down, bad credentials."""

    code = "backend_unavailable"


class ReadOnlyViolation(EngineError):
    """The SQL is not one read-only query; the message says exactly what was refused."""

    code = "not_read_only"


class SqlSyntaxError(EngineError):
    """sqlglot could not parse the SQL; the message carries its line/column."""

    code = "sql_syntax"


class ConfigError(EngineError):
    """A connection mapping is wrong: unknown backend, missing ${ENV_VAR}, missing key."""

    code = "invalid_connection"


class StaleConnection(Exception):
    """Internal, never shown: the connection died under a query (server restart, idle timeout).

    A read-only query is safe to run again, so executors raise this instead of BackendUnavailable
    and `run_retrying_stale` gives the query one more try on a fresh connection.
    """
