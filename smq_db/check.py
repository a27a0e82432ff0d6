"""What `smq validate` can only know by asking the database: it has a connection, its file exists, and the
tables and columns the layer names are in its catalog.

The YAML alone passes `primary_key: order_idd` or `expr: chanel`; the query then fails with the engine's
`Binder Error` and no YAML location. Here the layer's tables are read from the catalog (smq_db/catalog.py,
through the executor like any read-only query) and checked by engine/layer/columns.py, each error at its
line with the nearest real column. A database that cannot be reached is not an error of the layer: the
caller is told the columns were not checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine import Layer
from engine.errors import EngineError, LayerError, Location
from engine.layer.columns import check_columns, table_key

from .catalog import Catalog, TableRef
from .open import open_for_layer


@dataclass
class DatabaseCheck:
    """The errors found, and why the catalog was not read (None when it was)."""

    errors: list[LayerError] = field(default_factory=list)
    not_checked: str | None = None


def check_database(layer: Layer) -> DatabaseCheck:
    """The connection, the database file and every column the layer names, against the database itself."""
    semantic = layer.semantic
    at = semantic.connection_at
    file_at = at.get("") or Location(str(semantic.directory / "database.yml"), 1, 1)
    connection = semantic.connection
    if not connection:
        return DatabaseCheck([LayerError(
            "database.yml has no `connection:`, so queries cannot run (compiling works): add a `connection:` to "
            "database.yml, e.g. `backend: duckdb` and `path: data/db.duckdb`, or `url: postgresql://...` "
            "(`smq validate --offline` checks a layer that is only compiled)",
            code="missing_connection", location=Location(file_at.file, 1, 1, "connection"))])
    path = connection.get("path")
    if isinstance(path, str) and path and "${" not in path and path != ":memory:" and not connection.get("demo"):
        full = Path(path).expanduser()
        full = full if full.is_absolute() else semantic.directory / full
        if not full.exists():
            return DatabaseCheck([LayerError(
                f"connection.path: the database file {full} does not exist (the path is relative to the layer's folder)",
                code="database_file_missing", location=at.get("path") or file_at)])
    try:
        executor = open_for_layer(layer)
    except EngineError as err:
        return DatabaseCheck(not_checked=err.message)
    try:
        return DatabaseCheck(check_columns(semantic, _catalog(layer, Catalog(executor)), "the database"))
    except EngineError as err:
        return DatabaseCheck(not_checked=err.message)
    finally:
        executor.close()


def _catalog(layer: Layer, catalog: Catalog) -> dict[str, list[str]]:
    """Table name (bare and schema-qualified, lower case) -> columns; columns are read only for the tables the
    layer names (the others are listed for did-you-mean)."""
    semantic = layer.semantic
    wanted = {table_key(t) for t in
              [m.table for m in semantic.models.values() if m.table] + ([semantic.time_spine.table] if semantic.time_spine else [])}
    out: dict[str, list[str]] = {}
    refs: dict[str, TableRef] = {}
    for ref in catalog.tables():
        for key in (table_key(ref.name), ".".join(ref.key)):
            refs.setdefault(key, ref)
    for key, ref in refs.items():
        if key in wanted or key.rsplit(".", 1)[-1] in {w.rsplit(".", 1)[-1] for w in wanted}:
            out[key] = [c.name for c in catalog.columns(ref)]
        else:
            out[key] = []
    return out
