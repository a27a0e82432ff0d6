"""The columns a layer names, checked against the columns its tables have.

A column that does not exist fails only when a query reaches it (`Binder Error: ... no column "order_idd"`,
with no YAML location); checked here it is reported at its line, with the nearest real column. The
columns come from a catalog: sources.yml (`_check_sources`), or the database's own, read by
`smq validate` (smq_db/check.py). This module is pure: it never asks a database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from ..errors import ErrorCollector, LayerError, Location, nearest
from .model import Model, SemanticLayer

# a catalog: table name as written (lower case; bare and schema-qualified) -> its column names
Catalog = Mapping[str, Sequence[str]]


def table_key(table: str) -> str:
    """How a catalog keys a table: lower case, without quotes (`"Order Notes"` -> `order notes`)."""
    return table.replace('"', "").replace("`", "").strip().lower()


def find_table(catalog: Catalog, table: str) -> Sequence[str] | None:
    """The columns of a table as a layer writes it (`orders`, `main.orders`, `"Orders"`), or None."""
    key = table_key(table)
    found = catalog.get(key)
    if found is None and "." in key:
        found = catalog.get(key.rsplit(".", 1)[-1])
    return found


def check_columns(layer: SemanticLayer, catalog: Catalog, origin: str) -> list[LayerError]:
    """Every primary key, dimension, measure, join key and the time spine against `catalog` (`origin` names it
    in messages: "sources.yml", "the database"). Models defined by `sql:` are left out: their columns are the
    query's."""
    errors = ErrorCollector()
    tables = sorted({k for k in catalog if "." not in k})
    for model in layer.models.values():
        if not model.table or _templated(model.table):
            continue
        columns = find_table(catalog, model.table)
        if columns is None:
            errors.add(f"model {model.name}: table '{model.table}' is not in {origin}", model.location, code="unknown_table",
                       suggestions=nearest(model.table.rsplit(".", 1)[-1], tables))
            continue
        for loc, node in _column_uses(model):
            _check_node(node, loc, model.table, columns, errors)
    for edge in layer.joins:  # a key's left side is the `from` model's, its right side the `to` model's
        for model_name, nodes in ((edge.from_model, [p[0] for p in edge.key_pairs()]), (edge.to_model, [p[1] for p in edge.key_pairs()])):
            end = layer.models.get(model_name)
            table = end.table if end is not None and end.table and not _templated(end.table) else None
            columns = find_table(catalog, table) if table else None
            if table is None or columns is None:
                continue
            for node in nodes:
                _check_node(node, Location(edge.location.file, edge.location.line, edge.location.column, f"{edge.location.field}.on"),
                            table, columns, errors)
    spine = layer.time_spine
    if spine is not None and not _templated(spine.table):
        columns = find_table(catalog, spine.table)
        if columns is not None and spine.column.lower() not in {c.lower() for c in columns}:
            errors.add(f"time_spine.column: column '{spine.column}' is not a column of {spine.table}",
                       Location(_database_file(layer), 1, 1, "time_spine.column"), code="unknown_column",
                       suggestions=nearest(spine.column, list(columns)))
    return errors.errors


def _templated(table: str) -> bool:
    """A table named through a variable (`$source_schema.orders`, `{{ ref('x') }}`): known only at run time."""
    return "$" in table or "{" in table


def _database_file(layer: SemanticLayer) -> str:
    at = layer.connection_at.get("")
    return at.file if at is not None and at.file else "database.yml"


def _column_uses(model: Model) -> list[tuple[Location, exp.Expression]]:
    """(where it is written, the expression) of every primary key entry, dimension and measure of a model."""
    pk_locations = model.primary_key_locations or (model.location,) * len(model.primary_key_nodes)
    items = [(loc, node) for loc, node in zip(pk_locations, model.primary_key_nodes)]
    items += [(d.location, d.node) for d in model.dimensions.values()]
    items += [(m.location, m.node) for m in model.measures.values() if m.node is not None]
    return items


def _check_node(node: exp.Expression, loc: Location, table: str, columns: Sequence[str], errors: ErrorCollector) -> None:
    valid = {c.lower() for c in columns}
    seen: set[str] = set()
    for col in [node] if isinstance(node, exp.Column) else node.find_all(exp.Column):
        name = col.name
        if not name or name.lower() in valid or name.lower() in seen:
            continue
        seen.add(name.lower())  # one error per missing column, not one per use
        errors.add(f"{loc.field}: column '{name}' is not a column of {table}", loc, code="unknown_column",
                   suggestions=nearest(name, list(columns)))
