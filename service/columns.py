"""Typed result columns: what each column of an answer is, for front ends that format and chart it.

A column's semantic type comes from the layer when the column is an SMQ element (a dimension's type and
grain, a measure or metric: a number), otherwise from the database type the executor reports, read with
sqlglot in the database's dialect (so `int4`, `NUMBER(38,0)`, `INT64` and `Nullable(Int64)` are all a
number). Raw SQL columns have no element. Values stay as JSON gives them (times as ISO 8601 text).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlglot import exp
from sqlglot.errors import SqlglotError

from engine import Layer
from engine.dialects import dialect as dialect_of, find as find_engine
from engine.layer.model import Metric
from engine.lru import LruCache
from engine.resolve.names import DimRef, MeasureRef, Resolver
from engine.resolve.query import parse_smq

SemanticType = Literal["number", "string", "time", "boolean", "other"]
Grain = Literal["day", "week", "month", "quarter", "year"]
ElementKind = Literal["dimension", "measure", "metric"]

# MySQL's protocol names its types by their C constants (pymysql.constants.FIELD_TYPE), not in SQL
_DIMENSION_TYPES: dict[str, SemanticType] = {"string": "string", "number": "number", "boolean": "boolean",
                                             "date": "time", "timestamp": "time"}


class NumberFormat(BaseModel):
    """A measure's or metric's `format:` (docs/semantic-layer.md#number-formats)."""

    type: Literal["number", "currency", "percent"] = Field(description="percent: the values are fractions (0.05 is 5%)")
    currency: str | None = Field(None, description="ISO 4217 code of a currency format, e.g. EUR")
    decimals: int | None = Field(None, description="digits after the point; null: the front end's choice")


class ResultColumn(BaseModel):
    """One column of an answer, in the order of `columns`."""

    name: str = Field(description="the column's name, as in `columns`")
    type: SemanticType | None = Field(
        description="semantic type: number, string, time (ISO 8601 text in JSON), boolean, other (lists, structs, "
                    "intervals, binary); null when neither the layer nor the database says")
    grain: Grain | None = Field(None, description="for a time column: the grain its values are truncated to "
                                                  "(day for a date); null for a timestamp at full precision")
    db_type: str | None = Field(description="the type the database reports for the column (its own spelling); "
                                            "null when the backend reports none (SQLite)")
    element: str | None = Field(description="the layer element the column comes from: Model__dimension, "
                                            "Model__measure or a metric name; null for raw SQL")
    element_kind: ElementKind | None = Field(None, description="dimension, measure or metric; null for raw SQL")
    format: NumberFormat | None = Field(None, description="how to show a measure's or metric's numbers (its `format:` "
                                                          "in the layer); null when the layer gives none")


@functools.lru_cache(maxsize=4096)  # a database has few distinct types; parsing one costs ~0.1 ms
def semantic_type(db_type: str | None, dialect: str) -> tuple[SemanticType | None, Grain | None]:
    """(semantic type, grain) of a database type as the database spells it; (None, None) when unknown."""
    if not db_type:
        return None, None
    text = dialect_of(dialect).type_names.get(db_type, db_type) if find_engine(dialect) is not None else db_type
    try:
        kind = exp.DataType.build(text, dialect=dialect, udt=True)
    except (SqlglotError, ValueError):
        return None, None
    while kind.is_type(exp.DataType.Type.LOWCARDINALITY) and kind.expressions:  # ClickHouse wrappers
        inner = kind.expressions[0]
        if not isinstance(inner, exp.DataType):
            break
        kind = inner
    if kind.is_type(exp.DataType.Type.BOOLEAN):
        return "boolean", None
    if kind.is_type(*exp.DataType.NUMERIC_TYPES):
        return "number", None
    if kind.is_type(*exp.DataType.TEXT_TYPES):
        return "string", None
    if kind.is_type(exp.DataType.Type.DATE, exp.DataType.Type.DATE32):
        return "time", "day"
    if kind.is_type(*exp.DataType.TEMPORAL_TYPES):
        return "time", None
    if kind.is_type(exp.DataType.Type.USERDEFINED, exp.DataType.Type.UNKNOWN):
        return None, None
    return "other", None


def raw_columns(columns: Sequence[str], db_types: Sequence[str | None] | None, dialect: str) -> list[dict[str, Any]]:
    """The columns of raw SQL: types from the database only, no element."""
    out = []
    for i, name in enumerate(columns):
        db_type = db_types[i] if db_types is not None else None
        kind, grain = semantic_type(db_type, dialect)
        out.append({"name": name, "type": kind, "grain": grain, "db_type": db_type, "element": None, "element_kind": None,
                    "format": None})
    return out


def _element_column(ref: Any) -> dict[str, Any]:
    """What the layer says of one SMQ element: its kind, qualified name, semantic type and grain."""
    if isinstance(ref, DimRef):
        dim = ref.dimension
        if ref.date_part is not None:
            return {"element": dim.qualified_name, "element_kind": "dimension", "type": "number", "grain": None}
        kind = _DIMENSION_TYPES.get(dim.type)
        grain = ref.grain if kind == "time" else None
        if kind == "time" and grain is None and (dim.type == "date" or ref.axis):
            grain = "day"
        return {"element": dim.qualified_name, "element_kind": "dimension", "type": kind, "grain": grain}
    if isinstance(ref, MeasureRef):
        return {"element": ref.measure.qualified_name, "element_kind": "measure", "type": None, "grain": None}
    assert isinstance(ref, Metric)
    return {"element": ref.name, "element_kind": "metric", "type": None, "grain": None}


_ELEMENTS: LruCache[tuple, dict[str, dict[str, Any]]] = LruCache(1024)


def _elements(layer: Layer, smq: Mapping[str, Any], hidden: frozenset[str]) -> dict[str, dict[str, Any]]:
    """Output name -> what the layer says of it: per layer, role and the SMQ's columns (its group_by and metrics:
    a dashboard's queries differ in filters, order and limit far more often; resolving costs ~1 ms)."""
    spec = parse_smq(smq)
    key = (id(layer), layer.version, spec.group_by, spec.metrics, hidden)
    hit = _ELEMENTS.get(key)
    if hit is not None:
        return hit
    resolver = Resolver(layer.semantic, hidden)
    out: dict[str, dict[str, Any]] = {}
    for i, text in enumerate(spec.group_by):
        out[text] = _element_column(resolver.dimension(text, f"group_by[{i}]"))
    for i, text in enumerate(spec.metrics):
        out[text] = _element_column(resolver.metric(text, f"metrics[{i}]"))
        shown = layer.element_format(out[text]["element"])
        if shown is not None:  # every key of NumberFormat, as the documented model has them
            out[text]["format"] = {"type": shown["type"], "currency": shown.get("currency"), "decimals": shown.get("decimals")}
    _ELEMENTS.put(key, out)
    return out


def smq_columns(layer: Layer, smq: Mapping[str, Any], hidden: frozenset[str], columns: Sequence[str],
                db_types: Sequence[str | None] | None, dialect: str) -> list[dict[str, Any]]:
    """The columns of a compiled SMQ: each matched by name to the element it was written as.

    A measure or metric is a number unless the database says otherwise (MIN/MAX of a date is a time).
    """
    fields = raw_columns(columns, db_types, dialect)
    elements = _elements(layer, smq, hidden)
    folded = {name.casefold(): ref for name, ref in elements.items()}
    for field in fields:
        found = elements.get(field["name"]) or folded.get(field["name"].casefold())
        if found is None:
            continue
        info = dict(found)
        if info["type"] is None:  # measures and metrics: the database's type when it has one
            info["type"] = field["type"] if field["type"] not in (None, "other") else "number"
            info["grain"] = field["grain"] if info["type"] == "time" else None
        field.update(info)
    return fields
