"""Query executors: one read-only interface over SQLite, DuckDB, PostgreSQL, MySQL/MariaDB,
Snowflake and BigQuery, plus the read-only SQL guard every executor runs first.

The names below are loaded on first use (PEP 562), so `import smq_db.executors.errors` costs only that
module: the guard (sqlglot) and the factory come with the first name that needs them, and
`smq_db.readonly`, which imports the errors, can be imported first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import BackendUnavailable, ConfigError, ExecutionError, QueryTimeout, ReadOnlyViolation, SqlSyntaxError

if TYPE_CHECKING:
    from ..readonly import check_read_only
    from .base import Executor, QueryResult, to_json_value
    from .factory import create_executor, route_instance
    from .withholding import WithholdingExecutor

_LAZY = {
    "Executor": ".base", "QueryResult": ".base", "to_json_value": ".base",
    "create_executor": ".factory", "route_instance": ".factory",
    "WithholdingExecutor": ".withholding", "check_read_only": "..readonly",
}

__all__ = [
    "BackendUnavailable", "ConfigError", "ExecutionError", "Executor", "QueryResult", "QueryTimeout",
    "ReadOnlyViolation", "SqlSyntaxError", "WithholdingExecutor", "check_read_only", "create_executor", "route_instance",
    "to_json_value",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
