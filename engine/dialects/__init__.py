"""The engines smq compiles for and runs on: one module each, behind one Enum.

`Engine` names them (its value is the name database.yml and sqlglot use); `dialect(name)` gives the engine's
`Dialect` (engine/dialects/base.py): its compiler quirks, the role fence, the functions raw SQL may call there,
its URL schemes and backend aliases, and where smq_db finds its executor and catalog reader. Code outside this
package asks a dialect for a trait (`dialect.fenced`, `dialect.file_based` ...) and never compares an engine's name
as a string (tests/engine/dialects/test_dialect_names.py checks). Adding an engine is one module here and one executor.
"""

from __future__ import annotations

import enum
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import Dialect


class Engine(enum.Enum):
    """Every engine, in the order listings show them (the first is the default)."""

    SQLITE = "sqlite"
    DUCKDB = "duckdb"
    POSTGRES = "postgres"
    MYSQL = "mysql"
    SNOWFLAKE = "snowflake"
    BIGQUERY = "bigquery"
    TRINO = "trino"
    SPARK = "spark"
    DATABRICKS = "databricks"
    CLICKHOUSE = "clickhouse"


# engine -> "module:class" of its dialect (imported on first use: a command that never compiles never loads them)
_MODULES = {
    Engine.SQLITE: "sqlite:SQLite", Engine.DUCKDB: "duckdb:DuckDB", Engine.POSTGRES: "postgres:PostgreSQL",
    Engine.MYSQL: "mysql:MySQL", Engine.SNOWFLAKE: "snowflake:Snowflake", Engine.BIGQUERY: "bigquery:BigQuery",
    Engine.TRINO: "trino:Trino", Engine.SPARK: "spark:Spark", Engine.DATABRICKS: "databricks:Databricks",
    Engine.CLICKHOUSE: "clickhouse:ClickHouse",
}
SUPPORTED_DIALECTS: tuple[str, ...] = tuple(e.value for e in Engine)
DEFAULT_ENGINE = Engine.DUCKDB  # a layer without `dialect:` (the embedded demo's engine)


def dialect(engine: Engine | str) -> Dialect:
    """The dialect of an engine (or of its name or alias); KeyError for a name that is none."""
    found = engine if isinstance(engine, Engine) else find(engine)
    if found is None:
        raise KeyError(f"unknown dialect '{engine}' (supported: {', '.join(SUPPORTED_DIALECTS)})")
    return _instance(found)


@cache
def _instance(engine: Engine) -> Dialect:
    module, _, cls = _MODULES[engine].partition(":")
    made: Dialect = getattr(import_module(f".{module}", __name__), cls)()
    return made


@cache
def _by_name() -> dict[str, Engine]:
    names = {e.value: e for e in Engine}
    for engine in Engine:
        for alias in (*_instance(engine).aliases, *_instance(engine).url_schemes):
            names.setdefault(alias, engine)
    return names


def find(name: str) -> Engine | None:
    """The engine a database.yml `backend:`/`dialect:` or a URL scheme names (aliases included), or None."""
    key = name.strip().lower()
    try:
        return Engine(key)
    except ValueError:
        return _by_name().get(key)


def backend_names() -> tuple[str, ...]:
    """Every name a database.yml `backend:` may take: the engines, then their aliases."""
    return tuple(_by_name())


def introspectable() -> tuple[Dialect, ...]:
    """The engines `smq init` can read a whole schema of."""
    return tuple(d for d in map(dialect, Engine) if d.introspector)
