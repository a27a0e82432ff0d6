"""The PostgreSQL frontend/backend protocol 3.0, as much of it as the SQL API needs: framing and messages.

Reading: the untyped start-up packets (StartupMessage, SSLRequest, GSSENCRequest, CancelRequest) and the
typed messages after it (a type byte and a length). Writing: every backend message the listener sends.
Values go out in text format, or binary for the fixed-size types a client asks for in binary
(values.py). See https://www.postgresql.org/docs/current/protocol-message-formats.html.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass, field

PROTOCOL_3 = 196608
SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104
CANCEL_REQUEST = 80877102
MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # PostgreSQL's own cap is 1 GB; a query string of the SQL API is far smaller


class ProtocolViolation(Exception):
    """The client sent something that is not the protocol; the connection is closed after saying so."""


@dataclass
class Startup:
    kind: str  # startup | ssl | gssenc | cancel
    parameters: dict[str, str] = field(default_factory=dict)
    pid: int = 0
    secret: int = 0


async def read_startup(reader: asyncio.StreamReader) -> Startup:
    header = await reader.readexactly(4)
    (length,) = struct.unpack("!i", header)
    if not 8 <= length <= 10_000:
        raise ProtocolViolation(f"invalid start-up packet length {length}")
    body = await reader.readexactly(length - 4)
    (code,) = struct.unpack("!i", body[:4])
    if code == SSL_REQUEST:
        return Startup("ssl")
    if code == GSSENC_REQUEST:
        return Startup("gssenc")
    if code == CANCEL_REQUEST:
        pid, secret = struct.unpack("!ii", body[4:12])
        return Startup("cancel", pid=pid, secret=secret)
    if code >> 16 != 3:
        raise ProtocolViolation(f"unsupported frontend protocol {code >> 16}.{code & 0xFFFF}: the server speaks 3.0")
    parts = body[4:].split(b"\x00")
    params: dict[str, str] = {}
    for key, value in zip(parts[0::2], parts[1::2]):
        if key:
            params[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return Startup("startup", params)


async def read_message(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """(type byte, payload) of the next message."""
    header = await reader.readexactly(5)
    kind, length = header[:1], struct.unpack("!i", header[1:])[0]
    if length < 4 or length > MAX_MESSAGE_BYTES:
        raise ProtocolViolation(f"invalid message length {length}")
    payload = await reader.readexactly(length - 4) if length > 4 else b""
    return kind, payload


class Reader:
    """Fields of one message's payload, read in order."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def cstring(self) -> str:
        end = self.data.index(b"\x00", self.pos)
        text = self.data[self.pos:end].decode("utf-8")
        self.pos = end + 1
        return text

    def int16(self) -> int:
        (value,) = struct.unpack_from("!h", self.data, self.pos)
        self.pos += 2
        return value

    def int32(self) -> int:
        (value,) = struct.unpack_from("!i", self.data, self.pos)
        self.pos += 4
        return value

    def byte(self) -> bytes:
        value = self.data[self.pos:self.pos + 1]
        self.pos += 1
        return value

    def bytes(self, n: int) -> bytes:
        value = self.data[self.pos:self.pos + n]
        if len(value) != n:
            raise ProtocolViolation("message shorter than its fields")
        self.pos += n
        return value


# -- backend messages -----------------------------------------------------------------------------------------
def message(kind: bytes, payload: bytes = b"") -> bytes:
    return kind + struct.pack("!i", len(payload) + 4) + payload


def cstr(text: str) -> bytes:
    return text.encode("utf-8") + b"\x00"


def authentication_ok() -> bytes:
    return message(b"R", struct.pack("!i", 0))


def authentication_cleartext() -> bytes:
    return message(b"R", struct.pack("!i", 3))


def parameter_status(name: str, value: str) -> bytes:
    return message(b"S", cstr(name) + cstr(value))


def backend_key_data(pid: int, secret: int) -> bytes:
    return message(b"K", struct.pack("!ii", pid, secret))


def ready_for_query(status: str) -> bytes:
    return message(b"Z", status.encode("ascii"))


def error_response(fields: dict[str, str], notice: bool = False) -> bytes:
    body = b"".join(code.encode("ascii") + cstr(value) for code, value in fields.items() if value is not None)
    return message(b"N" if notice else b"E", body + b"\x00")


@dataclass(frozen=True)
class Field:
    """One column of a RowDescription."""

    name: str
    type_oid: int
    type_size: int = -1
    format: int = 0  # 0 text, 1 binary
    table_oid: int = 0
    column: int = 0


def row_description(fields: list[Field]) -> bytes:
    body = struct.pack("!h", len(fields))
    for f in fields:
        body += cstr(f.name) + struct.pack("!ihihih", f.table_oid, f.column, f.type_oid, f.type_size, -1, f.format)
    return message(b"T", body)


def data_row(values: list[bytes | None]) -> bytes:
    parts = [struct.pack("!h", len(values))]
    for value in values:
        if value is None:
            parts.append(b"\xff\xff\xff\xff")
        else:
            parts.append(struct.pack("!i", len(value)))
            parts.append(value)
    return message(b"D", b"".join(parts))


def command_complete(tag: str) -> bytes:
    return message(b"C", cstr(tag))


def parameter_description(oids: list[int]) -> bytes:
    return message(b"t", struct.pack("!h", len(oids)) + b"".join(struct.pack("!i", o) for o in oids))


NO_DATA = message(b"n")
PARSE_COMPLETE = message(b"1")
BIND_COMPLETE = message(b"2")
CLOSE_COMPLETE = message(b"3")
PORTAL_SUSPENDED = message(b"s")
EMPTY_QUERY = message(b"I")
