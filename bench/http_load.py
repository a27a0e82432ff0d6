"""A lean HTTP/1.1 keep-alive client for load tests: requests are pre-built bytes, replies parsed by hand.

A general client (httpx) spends about a millisecond of CPU per request; on a 2-core machine that
CPU is taken from the service and its database and would be billed to the service. This client
spends a few tens of microseconds, so what the benchmark measures is the server.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]  # lower-cased names; a repeated header keeps its last value
    body: bytes


def build_post(host: str, port: int, path: str, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", "Content-Type: application/json",
             f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class Connection:
    """One persistent connection; one request in flight at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port, limit=1 << 24)
        return cls(reader, writer)

    async def send(self, request: bytes) -> Reply:
        self._writer.write(request)
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self._reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._read_chunked()
        else:
            body = b""
        return Reply(int(status_line.split(" ", 2)[1]), headers, body)

    async def _read_chunked(self) -> bytes:
        parts = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self._reader.readexactly(size))
            await self._reader.readexactly(2)

    async def close(self) -> None:
        self._writer.close()
        await self._writer.wait_closed()


def server_timing(headers: dict[str, str]) -> dict[str, float]:
    """`Server-Timing: db;dur=1.2, total;dur=1.9` → {"db": 1.2, "total": 1.9}."""
    out = {}
    for entry in headers.get("server-timing", "").split(","):
        name, _, params = entry.strip().partition(";")
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "dur":
                out[name] = float(value)
    return out


class BlockingConnection:
    """The same client without an event loop, for one request at a time: a few microseconds per request, so a
    latency measured here is the server's and the loopback's, not the client's."""

    def __init__(self, host: str, port: int) -> None:
        import socket

        self._sock = socket.create_connection((host, port))
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buffer = b""

    def send(self, request: bytes) -> Reply:
        self._sock.sendall(request)
        while b"\r\n\r\n" not in self._buffer:
            self._buffer += self._recv()
        head, _, self._buffer = self._buffer.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))  # the service sends a length on every non-streamed answer
        while len(self._buffer) < length:
            self._buffer += self._recv()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return Reply(int(status_line.split(" ", 2)[1]), headers, body)

    def _recv(self) -> bytes:
        chunk = self._sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk

    def close(self) -> None:
        self._sock.close()
