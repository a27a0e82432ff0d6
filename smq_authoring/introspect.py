"""The database `smq init` reads: an executor opened from the URL, and its catalog as `Table` objects.

The catalog is read by `smq_db.catalog` (one reader for the agent's tools and for scaffolding), and
every query of `smq init` (profiling, join evidence, the starter tests) runs through the same
executor the service uses: read-only twice over (the guard, and a read-only file, session or
transaction), with a row cap and a timeout. No connection is opened beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlglot import exp

from engine.dialects import dialect as dialect_of
from engine.errors import EngineError
from smq_db.catalog import Catalog as CatalogReader, TableInfo
from smq_db.executors import BackendUnavailable, Executor, create_executor

from .catalog import Column, ForeignKey, Table, declared_kind
from .urls import ConnectionSpec

QUERY_TIMEOUT_S = 300.0  # profiling a large table is slow; a hung server is not waited on forever
QUERY_MAX_ROWS = 1_000_000
RUN_TIMEOUT_S, RUN_MAX_ROWS = 120.0, 100_000  # the model tests' runner, as `smq test` runs them


class SourceError(RuntimeError):
    """The database cannot be reached or read."""


class QueryFailed(SourceError):
    """A query of ours failed on the database: a bug to report, with the SQL."""


class Source:
    """The executor of the database being scaffolded, and the dialect its SQL is written in."""

    def __init__(self, spec: ConnectionSpec, executor: Executor) -> None:
        self.spec = spec
        self.dialect = spec.dialect
        self.executor = executor

    def query(self, sql: str | exp.Expression) -> list[list[Any]]:
        """The rows of one of our queries; QueryFailed (with the SQL) when the database refuses it."""
        text = sql if isinstance(sql, str) else sql.sql(dialect=self.dialect)
        try:
            result = self.executor.execute(text, max_rows=QUERY_MAX_ROWS, timeout_s=QUERY_TIMEOUT_S)
        except EngineError as err:
            raise QueryFailed(f"{type(err).__name__}: {err.message.strip()}\n  SQL: {text}") from None
        return result.rows

    def table_ref(self, table: Table) -> exp.Table:
        """A quoted, schema-qualified reference to a user table."""
        return exp.Table(this=exp.to_identifier(table.name, quoted=True),
                         db=exp.to_identifier(table.schema, quoted=True) if table.schema else None)

    def run(self, sql: str) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of one query (the model-test runner's interface)."""
        result = self.executor.execute(sql, max_rows=RUN_MAX_ROWS, timeout_s=RUN_TIMEOUT_S)
        return result.columns, result.rows

    def close(self) -> None:
        try:
            self.executor.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_source(spec: ConnectionSpec) -> Source:
    """Open the database's executor and make sure it answers; raises SourceError (unreachable) or
    BackendUnavailable (driver missing)."""
    executor = create_executor(spec.executor_connection(), base_dir=Path.cwd(), dialect=spec.dialect)
    try:
        executor.execute("SELECT 1", max_rows=1, timeout_s=30)
    except EngineError as err:
        executor.close()
        raise SourceError(f"cannot read the {spec.describe()}: {err.message.strip()}") from None
    return Source(spec, executor)


def introspect(source: Source) -> list[Table]:
    """Every table and view of the database (or schema), with declared keys and comments."""
    spec = source.spec
    schema = spec.database if dialect_of(spec.backend).schema_setting == "database" else spec.schema  # MySQL: a database
    try:
        infos = CatalogReader(source.executor, source.dialect).introspect(schema)
    except BackendUnavailable as err:
        raise SourceError(f"cannot read the catalog of the {spec.describe()}: {err.message.strip()}") from None
    except EngineError as err:
        raise QueryFailed(f"{type(err).__name__}: {err.message.strip()} (reading the catalog)") from None
    tables = [_table(info, source.dialect) for info in infos]
    return sorted(tables, key=lambda t: t.name.lower())


def _table(info: TableInfo, dialect: str) -> Table:
    columns = [Column(c.name, c.type or "", nullable=bool(c.nullable), comment=c.comment, kind=declared_kind(c.type or "", dialect))
               for c in info.columns]
    fks = [ForeignKey(tuple(fk.columns), fk.ref_table, tuple(fk.ref_columns)) for fk in info.foreign_keys]
    return Table(info.name, columns, primary_key=info.primary_key, unique=list(info.unique), foreign_keys=fks,
                 comment=info.comment, is_view=info.is_view, schema=info.schema)
