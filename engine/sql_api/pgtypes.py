"""PostgreSQL's built-in types as a client sees them: OID, name, `format_type` text, length, category, array."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PgType:
    oid: int
    name: str  # typname: int8
    display: str  # format_type: bigint
    length: int  # typlen (-1: variable)
    category: str  # typcategory: N numeric, S string, B boolean, D date/time, U user, A array
    array_oid: int  # typarray (0: none)
    elem_oid: int = 0  # typelem, for an array type
    info_schema: str = ""  # information_schema data_type


_BASE = [
    PgType(16, "bool", "boolean", 1, "B", 1000, info_schema="boolean"),
    PgType(17, "bytea", "bytea", -1, "U", 1001, info_schema="bytea"),
    PgType(18, "char", '"char"', 1, "Z", 1002, info_schema='"char"'),
    PgType(19, "name", "name", 64, "S", 1003, info_schema="name"),
    PgType(20, "int8", "bigint", 8, "N", 1016, info_schema="bigint"),
    PgType(21, "int2", "smallint", 2, "N", 1005, info_schema="smallint"),
    PgType(22, "int2vector", "int2vector", -1, "A", 1006, 21, "ARRAY"),
    PgType(23, "int4", "integer", 4, "N", 1007, info_schema="integer"),
    PgType(24, "regproc", "regproc", 4, "N", 1008, info_schema="regproc"),
    PgType(25, "text", "text", -1, "S", 1009, info_schema="text"),
    PgType(26, "oid", "oid", 4, "N", 1028, info_schema="oid"),
    PgType(30, "oidvector", "oidvector", -1, "A", 1013, 26, "ARRAY"),
    PgType(114, "json", "json", -1, "U", 199, info_schema="json"),
    PgType(700, "float4", "real", 4, "N", 1021, info_schema="real"),
    PgType(701, "float8", "double precision", 8, "N", 1022, info_schema="double precision"),
    PgType(1042, "bpchar", "character", -1, "S", 1014, info_schema="character"),
    PgType(1043, "varchar", "character varying", -1, "S", 1015, info_schema="character varying"),
    PgType(1082, "date", "date", 4, "D", 1182, info_schema="date"),
    PgType(1083, "time", "time without time zone", 8, "D", 1183, info_schema="time without time zone"),
    PgType(1114, "timestamp", "timestamp without time zone", 8, "D", 1115, info_schema="timestamp without time zone"),
    PgType(1184, "timestamptz", "timestamp with time zone", 8, "D", 1185, info_schema="timestamp with time zone"),
    PgType(1186, "interval", "interval", 16, "T", 1187, info_schema="interval"),
    PgType(1700, "numeric", "numeric", -1, "N", 1231, info_schema="numeric"),
    PgType(2205, "regclass", "regclass", 4, "N", 2210, info_schema="regclass"),
    PgType(2206, "regtype", "regtype", 4, "N", 2211, info_schema="regtype"),
    PgType(2950, "uuid", "uuid", 16, "U", 2951, info_schema="uuid"),
    PgType(3802, "jsonb", "jsonb", -1, "U", 3807, info_schema="jsonb"),
]


def _arrays() -> list[PgType]:
    out = []
    for base in _BASE:
        if base.array_oid and base.category != "A":
            out.append(PgType(base.array_oid, "_" + base.name, base.display + "[]", -1, "A", 0, base.oid, "ARRAY"))
    return out


TYPES: tuple[PgType, ...] = tuple(_BASE + _arrays())
BY_NAME = {t.name: t for t in TYPES}
BY_OID = {t.oid: t for t in TYPES}


def oid_of(name: str) -> int:
    """The OID of a type name (`int8`, `_text`); unknown names are text."""
    return BY_NAME.get(name, BY_NAME["text"]).oid
