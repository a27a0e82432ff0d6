"""What introspection finds: tables, columns, keys, and what the data says about them.

Plain mutable dataclasses: introspection fills the declared facts, profiling adds the measured
ones (row counts, distinct counts, low-cardinality values, the kind a column really holds, a usable
key), inference reads both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.dialects import dialect as dialect_of

KINDS = ("string", "number", "boolean", "date", "timestamp", "time", "other")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_ISO_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?\Z")
_NUMBER = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*\Z")


@dataclass
class Column:
    name: str
    type: str  # as the database declares it ("" when SQLite has none)
    nullable: bool = True
    comment: str = ""
    kind: str = "string"  # one of KINDS: what the column holds (declared type, refined by the data)
    non_null: int | None = None  # measured (on the sample when the table was sampled)
    distinct: int | None = None
    values: list[tuple[Any, int]] | None = None  # low-cardinality columns: (value, rows), most frequent first
    samples: list[Any] = field(default_factory=list)
    note: str = ""  # e.g. "dates written as text like '5/21/2009'"
    has_nulls: bool | None = None  # measured
    minimum: Any = None  # measured, for ordered kinds
    maximum: Any = None

    @property
    def profiled(self) -> bool:
        return self.distinct is not None


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]  # empty: the referenced table's primary key (SQLite allows that)


@dataclass
class Table:
    name: str
    columns: list[Column]
    primary_key: tuple[str, ...] = ()  # declared
    unique: list[tuple[str, ...]] = field(default_factory=list)  # declared unique constraints/indexes
    foreign_keys: list[ForeignKey] = field(default_factory=list)  # declared
    comment: str = ""
    is_view: bool = False
    schema: str | None = None  # qualifies the table in generated SQL when not the default one
    row_count: int | None = None
    sampled: bool = False  # profiled on the first N rows only
    key: tuple[str, ...] = ()  # a usable primary key: declared, or found unique and non-null in the data
    key_origin: str = ""  # declared | unique_constraint | data | all_columns

    def column(self, name: str) -> Column | None:
        """A column by name, case-insensitively (SQLite's FK declarations are sloppy about case)."""
        for col in self.columns:
            if col.name == name:
                return col
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)

    def require_column(self, name: str) -> Column:
        """A column the caller knows is there (a name this table's catalog or keys gave): a LookupError if not."""
        col = self.column(name)
        if col is None:
            raise LookupError(f"table {self.name} has no column {name}")
        return col

    def is_unique(self, columns: tuple[str, ...]) -> bool | None:
        """Whether these columns identify a row: declared, else measured; None when unknown (no data)."""
        lowered = tuple(c.lower() for c in columns)
        declared = [tuple(c.lower() for c in k) for k in [self.primary_key, self.key, *self.unique] if k]
        if any(set(k) <= set(lowered) for k in declared):
            return True
        if len(columns) != 1:
            return None
        col = self.column(columns[0])
        if col is None or not col.profiled or not self.row_count:
            return None
        return col.distinct == col.non_null


@dataclass
class Catalog:
    backend: str
    dialect: str
    tables: list[Table]
    database: str = ""
    schema: str | None = None
    warnings: list[str] = field(default_factory=list)

    def table(self, name: str) -> Table | None:
        for t in self.tables:
            if t.name == name:
                return t
        lowered = name.lower()
        return next((t for t in self.tables if t.name.lower() == lowered), None)

    def require_table(self, name: str) -> Table:
        """A table the caller knows is there (a name this catalog gave): a LookupError if not."""
        table = self.table(name)
        if table is None:
            raise LookupError(f"the catalog has no table {name}")
        return table


def declared_kind(type_text: str, dialect: str) -> str:
    """The kind a declared SQL type holds; SQLite's free-form names follow its affinity rules."""
    t = type_text.strip().lower()
    engine = dialect_of(dialect)
    if re.search(r"\[\]|\b(array|list|struct|map|union|json|jsonb|xml|interval|point|polygon|geometry|geography|line|blob|bytea|binary|varbinary|tsvector|hstore)\b", t):
        if not (engine.affinity_typing and "blob" not in t and "binary" not in t):
            return "other"
    if "timestamp" in t or "datetime" in t:
        return "timestamp"
    if t.startswith("date"):
        return "date"
    if t.startswith("time"):
        return "time"
    if t.startswith("bool") or t == "bit" or any(t.startswith(b) for b in engine.declared_boolean_types):
        return "boolean"
    if re.search(r"int|numeric|decimal|number|float|double|real|money|serial", t):
        return "number"
    if re.search(r"char|text|clob|string|uuid|enum|set\(|citext|name", t):
        return "string"
    if engine.affinity_typing:
        return "other" if t == "" else "number"  # no type: BLOB affinity; anything else: NUMERIC
    return "string" if t else "other"


def refine_kind(column: Column, dialect: str) -> None:
    """Correct the declared kind with sample values where the database does not enforce types.

    SQLite stores anything anywhere: an untyped column of text, DATE columns of '5/21/2009',
    NUMBER columns of names. Only ISO dates are treated as dates there, because the compiler's
    date functions (DATE(x, 'start of month')) need them.
    """
    samples = [v for v in column.samples if v is not None]
    loose = dialect_of(dialect).affinity_typing  # SQLite: types are hints, values are what they are
    if not samples:
        if column.kind == "other" and loose and column.type == "":
            column.kind = "string"
        return
    texts = [v for v in samples if isinstance(v, str)]
    if column.kind in ("string", "other", "date", "timestamp") and texts and len(texts) == len(samples):
        if loose or column.kind in ("string", "other"):
            if all(_ISO_DATE.match(v) for v in texts):
                if loose:
                    column.kind = "date"
                return
            if all(_ISO_DATE.match(v) or _ISO_TIMESTAMP.match(v) for v in texts):
                if loose:
                    column.kind = "timestamp"
                return
        if loose and column.kind in ("date", "timestamp"):
            column.kind = "string"
            column.note = f"dates written as text like '{texts[0]}'"
            return
    if not loose:
        return
    if column.kind == "number" and texts and not all(_NUMBER.match(v) for v in texts):
        column.kind = "string"
    elif column.kind == "other" and all(isinstance(v, (int, float)) for v in samples):
        column.kind = "number"
    elif column.kind == "other" and texts:
        column.kind = "string"
    elif column.kind == "boolean" and not all(v in (0, 1) for v in samples):
        column.kind = "string"
