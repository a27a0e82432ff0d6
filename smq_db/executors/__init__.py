"""Query executors: one read-only interface over SQLite, DuckDB, PostgreSQL, MySQL/MariaDB,
Snowflake and BigQuery, plus the read-only SQL guard every executor runs first."""

from ..readonly import check_read_only
from .base import Executor, QueryResult, to_json_value
from .errors import (
    BackendUnavailable,
    ConfigError,
    ExecutionError,
    QueryTimeout,
    ReadOnlyViolation,
    SqlSyntaxError,
)
from .factory import create_executor, route_instance
from .withholding import WithholdingExecutor

__all__ = [
    "BackendUnavailable", "ConfigError", "ExecutionError", "Executor", "QueryResult", "QueryTimeout",
    "ReadOnlyViolation", "SqlSyntaxError", "WithholdingExecutor", "check_read_only", "create_executor", "route_instance",
    "to_json_value",
]
