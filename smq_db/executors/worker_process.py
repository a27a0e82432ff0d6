"""Inside a worker process (smq_db/executors/worker.py): the channel to the parent and the loop that runs queries.

The parent and its worker speak in frames over a socket pair: a 4-byte big-endian length, then that many bytes of
JSON. JSON both ways, not pickle: the worker runs a client's SQL in an engine that could, in the worst case, be
made to misbehave, and whatever it sends back is then only data to the parent (unpickling it could run code in
the service). A reply is `["ok", columns, rows, truncated, elapsed_ms, column_types]` (rows already JSON-safe,
each a list: the compact form of the result, and what the service's answer is made of) or
`["error", kind, message, code]`. The worker imports only what it runs: its engine, the executor's base, no
SQL parser (the parent checked every query before sending it).
"""

from __future__ import annotations

import json
import resource
import select
import socket
import struct
import sys
from dataclasses import asdict
from typing import Any

_HEADER = struct.Struct("!I")
_SMALL = 1 << 16  # frames up to this size go out in one send (header and body copied together)


class Channel:
    """Length-prefixed frames over a blocking socket; strictly one frame answers one frame, so nothing is
    read ahead of the frame asked for."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._poller = select.poll()
        self._poller.register(sock.fileno(), select.POLLIN)

    def send(self, payload: bytes) -> None:
        header = _HEADER.pack(len(payload))
        if len(payload) <= _SMALL:
            self.sock.sendall(header + payload)
        else:
            self.sock.sendall(header)
            self.sock.sendall(payload)

    def send_json(self, value: Any) -> None:
        self.send(encode(value))

    def poll(self, timeout_s: float) -> bool:
        """Is a frame (or the end of the stream) waiting? Waits up to `timeout_s`."""
        return bool(self._poller.poll(max(0, int(timeout_s * 1000))))

    def recv(self, limit: int) -> bytes:
        """The next frame; EOFError when the other end is gone, ValueError for a frame longer than `limit`."""
        first = self.sock.recv(_SMALL)
        if not first:
            raise EOFError("the other end closed the channel")
        while len(first) < _HEADER.size:
            more = self.sock.recv(_HEADER.size - len(first))
            if not more:
                raise EOFError("the channel closed inside a frame")
            first += more
        (size,) = _HEADER.unpack_from(first)
        if size > limit:
            raise ValueError(f"a frame of {size:,} bytes is longer than the {limit:,} expected")
        end = _HEADER.size + size
        if len(first) >= end:
            return first[_HEADER.size:end]
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = len(first) - _HEADER.size
        view[:got] = first[_HEADER.size:]
        while got < size:
            n = self.sock.recv_into(view[got:])
            if not n:
                raise EOFError("the channel closed inside a frame")
            got += n
        return bytes(buffer)

    def recv_json(self, limit: int) -> Any:
        return decode(self.recv(limit))

    async def recv_json_async(self, limit: int, deadline: float) -> Any:
        """`recv_json` awaiting the socket on the running event loop (no thread waits for the worker); TimeoutError
        once the loop's clock passes `deadline` (`loop.time()`) with the frame not read."""
        import asyncio

        loop = asyncio.get_running_loop()
        fd = self.sock.fileno()

        async def readable() -> None:
            waiter: asyncio.Future[None] = loop.create_future()

            def ready() -> None:
                if not waiter.done():
                    waiter.set_result(None)

            def expired() -> None:
                if not waiter.done():
                    waiter.set_exception(TimeoutError())

            loop.add_reader(fd, ready)
            timer = loop.call_at(deadline, expired)  # one timer handle: cheaper than asyncio.timeout's bookkeeping
            try:
                await waiter
            finally:
                timer.cancel()
                loop.remove_reader(fd)

        await readable()
        first = self.sock.recv(_SMALL)  # readable: returns what has arrived without waiting
        if not first:
            raise EOFError("the other end closed the channel")
        while len(first) < _HEADER.size:
            await readable()
            more = self.sock.recv(_HEADER.size - len(first))
            if not more:
                raise EOFError("the channel closed inside a frame")
            first += more
        (size,) = _HEADER.unpack_from(first)
        if size > limit:
            raise ValueError(f"a frame of {size:,} bytes is longer than the {limit:,} expected")
        end = _HEADER.size + size
        if len(first) >= end:
            return decode(first[_HEADER.size:end])
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = len(first) - _HEADER.size
        view[:got] = first[_HEADER.size:]
        while got < size:
            await readable()
            n = self.sock.recv_into(view[got:])
            if not n:
                raise EOFError("the channel closed inside a frame")
            got += n
        return decode(buffer)

    def close(self) -> None:
        self.sock.close()


def encode(value: Any) -> bytes:
    """JSON bytes: pydantic_core's encoder (several times json's speed), json's for what it refuses (a lone
    surrogate in a string, which json escapes)."""
    import pydantic_core

    try:
        return pydantic_core.to_json(value)
    except pydantic_core.PydanticSerializationError:
        return json.dumps(value).encode("ascii")


def decode(raw: bytes | bytearray) -> Any:
    """JSON bytes to values: pydantic_core's parser (2.3x json's on 10,000 rows, as fast as unpickling), json's for
    what `encode` wrote with it (escaped lone surrogates). ValueError when the bytes are not JSON."""
    import pydantic_core

    try:
        return pydantic_core.from_json(raw)
    except ValueError:
        return json.loads(raw)


def spec_message(backend: str, path: str, dialect: str, limits: Any, module: str) -> dict[str, Any]:
    """What the parent sends first: the engine, its file, the dialect, the limits (ResourceLimits) and the executor
    module whose `in_process` opens it (as the engine's dialect names it: the worker imports no dialect, no sqlglot)."""
    return {"backend": backend, "path": path, "dialect": dialect, "limits": asdict(limits), "module": module}


def _open(spec: dict[str, Any]) -> Any:
    from importlib import import_module

    from .limits import ResourceLimits

    limits = ResourceLimits(**spec["limits"])
    return import_module(spec["module"]).in_process(spec["path"], spec["dialect"], limits)


def _error_reply(err: Any, kinds: frozenset[str]) -> list[Any]:
    name = type(err).__name__
    return ["error", name if name in kinds else "ExecutionError", err.message, err.code]


REQUEST_LIMIT = 64 * 1024 * 1024  # a request is SQL and four numbers; the service caps SQL far below this


def serve(channel: Channel, spec: dict[str, Any]) -> None:
    """The worker: limit itself, open the database, then run one request at a time until told to stop."""
    limit = spec["limits"]["memory"]
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    from engine.errors import EngineError

    from .base import result_budget
    from .errors import ExecutionError
    from .limits import ResourceLimitExceeded, ResourceLimits

    kinds = frozenset(spec["kinds"])
    try:
        executor = _open(spec)
    except EngineError as err:
        channel.send_json(_error_reply(err, kinds))
        return
    channel.send_json(["ready"])
    memory_error = encode(["error", "ResourceLimitExceeded", ResourceLimits(**spec["limits"]).memory_message(),
                           ResourceLimitExceeded.code])
    while True:
        try:
            request = channel.recv(REQUEST_LIMIT)
        except (EOFError, OSError, ValueError):
            break
        if not request:  # an empty frame: stop
            break
        reply: bytes
        try:
            sql, max_rows, timeout_s, max_bytes, budget_s = json.loads(request)
            with result_budget(max_bytes=max_bytes, timeout_s=budget_s):
                result = executor.execute_checked(sql, max_rows=max_rows, timeout_s=timeout_s)
            reply = encode(["ok", result.columns, result.rows, result.truncated, result.elapsed_ms, result.column_types])
            del result
        except EngineError as err:
            reply = encode(_error_reply(err, kinds))
        except MemoryError:
            reply = memory_error
        except Exception as err:  # noqa: BLE001 - a bug must not end the worker nor read as a memory error
            reply = encode(["error", "ExecutionError", f"the query failed in its worker process: {type(err).__name__}: {err}",
                            ExecutionError.code])
        try:
            channel.send(reply)
        except MemoryError:  # the frame needed more than was left
            channel.send(memory_error)
        except OSError:
            break
        del reply
    executor.close()


def main() -> None:
    """A worker's entry (argv: the socket's FD): serve the spec sent first."""
    channel = Channel(socket.socket(fileno=int(sys.argv[1])))
    try:
        spec = channel.recv_json(REQUEST_LIMIT)
    except (EOFError, OSError, ValueError):
        return
    serve(channel, spec)


if __name__ == "__main__":
    main()
