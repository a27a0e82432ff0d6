"""Values on the wire: answers' JSON-safe values as PostgreSQL text (or binary), and Bind parameters back.

Rows reach the listener JSON-safe (smq_db's `to_json_value`: dates as ISO text, decimals as numbers),
exactly as `/query` answers them; here each is written as PostgreSQL writes a value of its column's
type (`t`/`f`, `2024-01-31`, `2024-01-31 12:00:00`, `{a,b}`), so every client parses it as it would
PostgreSQL's.
"""

from __future__ import annotations

import datetime as dt
import json
import struct
from decimal import Decimal
from typing import Any

from engine.sql_api.pgtypes import BY_NAME, BY_OID

_EPOCH_DATE = dt.date(2000, 1, 1)
_EPOCH = dt.datetime(2000, 1, 1)
BINARY_TYPES = frozenset({"bool", "int2", "int4", "int8", "oid", "float4", "float8", "text", "varchar", "name", "bpchar",
                          "date", "timestamp", "timestamptz", "numeric", "char"})


def encode_text(value: Any, pg_type: str) -> bytes | None:
    """One value as PostgreSQL's text output of `pg_type`."""
    if value is None:
        return None
    return _text(value, pg_type).encode("utf-8")


def _text(value: Any, pg_type: str) -> str:
    if pg_type.startswith("_"):
        return _array(value, pg_type[1:])
    if isinstance(value, bool):
        if pg_type == "bool":
            return "t" if value else "f"
        return "true" if value else "false"
    if pg_type == "bool":
        return "t" if str(value).lower() in ("t", "true", "1", "yes", "on") else "f"
    if isinstance(value, float):
        if pg_type in ("int8", "int4", "int2") and value.is_integer():
            return str(int(value))
        return repr(value)
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, str):
        if pg_type == "date":
            return value[:10]
        if pg_type in ("timestamp", "timestamptz"):
            return value.replace("T", " ")
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _array(value: Any, element: str) -> str:
    if isinstance(value, str):
        return value
    items = []
    for item in value if isinstance(value, (list, tuple)) else [value]:
        if item is None:
            items.append("NULL")
            continue
        text = _text(item, element)
        if text == "" or any(c in text for c in ' ,{}"\\') or text.upper() == "NULL":
            text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        items.append(text)
    return "{" + ",".join(items) + "}"


def encode_binary(value: Any, pg_type: str) -> bytes | None:
    """One value in PostgreSQL's binary format (only for BINARY_TYPES)."""
    if value is None:
        return None
    if pg_type == "bool":
        return b"\x01" if _text(value, "bool") == "t" else b"\x00"
    if pg_type == "int2":
        return struct.pack("!h", int(value))
    if pg_type in ("int4", "oid"):
        return struct.pack("!i" if pg_type == "int4" else "!I", int(value))
    if pg_type == "int8":
        return struct.pack("!q", int(value))
    if pg_type == "float4":
        return struct.pack("!f", float(value))
    if pg_type == "float8":
        return struct.pack("!d", float(value))
    if pg_type == "date":
        return struct.pack("!i", (dt.date.fromisoformat(str(value)[:10]) - _EPOCH_DATE).days)
    if pg_type in ("timestamp", "timestamptz"):
        moment = dt.datetime.fromisoformat(str(value))
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
        delta = moment - _EPOCH
        return struct.pack("!q", (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds)
    if pg_type == "numeric":
        return _numeric_binary(Decimal(str(value)))
    return _text(value, pg_type).encode("utf-8")


def _numeric_binary(value: Decimal) -> bytes:
    """PostgreSQL's NUMERIC binary form: base-10000 digits, weight, sign, display scale."""
    if not value.is_finite():
        return struct.pack("!hhHh", 0, 0, 0xC000, 0)
    sign = 0x4000 if value < 0 else 0
    digits_tuple = value.as_tuple()
    exponent = int(digits_tuple.exponent)
    dscale = max(-exponent, 0)
    text = format(abs(value), "f")
    integer, _, fraction = text.partition(".")
    integer = integer.lstrip("0")
    pad_int = (4 - len(integer) % 4) % 4
    integer = "0" * pad_int + integer
    fraction = fraction + "0" * ((4 - len(fraction) % 4) % 4)
    groups = [int(integer[i:i + 4]) for i in range(0, len(integer), 4)] + \
        [int(fraction[i:i + 4]) for i in range(0, len(fraction), 4)]
    weight = len(integer) // 4 - 1
    while groups and groups[0] == 0:  # leading zero groups
        groups.pop(0)
        weight -= 1
    while groups and groups[-1] == 0:
        groups.pop()
    if not groups:
        weight = 0
    return struct.pack("!hhHh", len(groups), weight, sign, dscale) + b"".join(struct.pack("!H", g) for g in groups)


def type_size(pg_type: str) -> int:
    found = BY_NAME.get(pg_type)
    return found.length if found is not None and found.length > 0 else -1


# -- Bind parameters -----------------------------------------------------------------------------------------
class ParameterError(ValueError):
    """A parameter value the listener cannot read (the message says which and why)."""


def decode_parameter(data: bytes | None, type_oid: int, binary: bool, number: int) -> Any:
    """A Bind value as a Python str / int / float / bool / None (text parameters stay text)."""
    if data is None:
        return None
    if not binary:
        return data.decode("utf-8")
    name = BY_OID[type_oid].name if type_oid in BY_OID else None
    try:
        if name == "bool":
            return data != b"\x00"
        if name == "int2":
            return struct.unpack("!h", data)[0]
        if name == "int4":
            return struct.unpack("!i", data)[0]
        if name == "oid":
            return struct.unpack("!I", data)[0]
        if name == "int8":
            return struct.unpack("!q", data)[0]
        if name == "float4":
            return struct.unpack("!f", data)[0]
        if name == "float8":
            return struct.unpack("!d", data)[0]
        if name == "date":
            return (_EPOCH_DATE + dt.timedelta(days=struct.unpack("!i", data)[0])).isoformat()
        if name in ("timestamp", "timestamptz"):
            return (_EPOCH + dt.timedelta(microseconds=struct.unpack("!q", data)[0])).isoformat(sep=" ")
        if name in ("text", "varchar", "name", "bpchar", "char", "unknown") or type_oid == 0 or type_oid == 705:
            return data.decode("utf-8")
        if name == "numeric":
            return _numeric_from_binary(data)
    except (struct.error, UnicodeDecodeError) as err:
        raise ParameterError(f"parameter ${number}: malformed binary value ({err})") from None
    raise ParameterError(f"parameter ${number}: binary format for type {name or type_oid} is not supported; "
                         "send it in text format")


def _numeric_from_binary(data: bytes) -> int | float:
    ndigits, weight, sign, _ = struct.unpack_from("!hhHh", data)
    groups = struct.unpack_from(f"!{ndigits}H", data, 8)
    value = sum((Decimal(g) * (Decimal(10000) ** (weight - i)) for i, g in enumerate(groups)), Decimal(0))
    if sign == 0x4000:
        value = -value
    return int(value) if value == value.to_integral_value() else float(value)
