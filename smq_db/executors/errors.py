"""Errors raised while running SQL on a backend.

They subclass the engine's ``EngineError`` so the service formats them like every other
error (stable ``code``, human ``message``). Messages carry the database's own words, never a
Python traceback: users act on "no such table: ordrs", not on a stack.
"""

from __future__ import annotations

import logging
import uuid

from engine.errors import EngineError

log = logging.getLogger("smq.db")


class ExecutionError(EngineError):
    """The database refused or failed the query; ``message`` is the database's message."""

    code = "execution_failed"


class QueryTimeout(ExecutionError):
    """The query ran past its time budget and was cancelled on the engine."""

    code = "query_timeout"


def withheld(error: ExecutionError, role: str) -> ExecutionError:
    """The error a caller with an access role sees instead of the database's words.

    A database's message can quote the values it failed on (`invalid input syntax for type integer:
    "C00042/retail"`), and for a role those values may be rows its filters remove or columns it may
    not read. The caller gets the code and an id; the full text goes to the server log, one line.
    """
    error_id = uuid.uuid4().hex[:12]
    text = " ".join(error.message.split())
    log.warning("database error %s withheld from role %s: %s", error_id, role, text)
    return ExecutionError(f"the database rejected the query (error id {error_id}); its message is withheld from API keys "
                          "with an access role and was logged. Check the SQL against the tables and columns the layer "
                          "describes (getModelDataElements)", code=error.code)


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
