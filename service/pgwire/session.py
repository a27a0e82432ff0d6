"""One client connection: start-up, authentication, then the simple and extended query protocols.

The connection's loop runs on the event loop and only reads and writes; every statement is answered in
a worker thread of the same pool the REST routes use (`anyio.to_thread`), holding one of the key's quota
slots, so a slow query never stalls other connections or the HTTP side. A CancelRequest from another
connection fires the running query's cancel on the engine (smq_db's `Cancellation`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from engine.errors import EngineError, nearest
from engine.sql_api import statements as stmts
from engine.sql_api.errors import SqlApiError
from smq_db.executors.base import Cancellation, cancellable

from ..auth import OPEN_PRINCIPAL, Principal
from ..deps import Database, ServiceState, get_database, may_use
from ..errors import Unauthorized
from ..limits import check_sql_length, quota_slot
from . import protocol as p
from .answer import _REPORTED, Answer, Context, answer, classify, describe
from .errors import CANCELED, FAILED_TRANSACTION, PROTOCOL_VIOLATION, error_fields, fields
from .values import BINARY_TYPES, ParameterError, decode_parameter, encode_binary, encode_text

if TYPE_CHECKING:
    from .server import PgServer

log = logging.getLogger("smq.pgwire")
_END_BLOCK = ("COMMIT", "END", "ROLLBACK", "ABORT")


class Refused(Exception):
    """An error that ends the connection after its ErrorResponse (start-up and authentication)."""

    def __init__(self, error: dict[str, str]) -> None:
        super().__init__(error.get("M"))
        self.error = error


@dataclass
class Prepared:
    statement: stmts.Statement
    param_oids: list[int]


@dataclass
class Portal:
    prepared: Prepared
    params: dict[int, Any]
    formats: list[int]
    answer: Answer | None = None
    rows: list[bytes] = field(default_factory=list)
    sent: int = 0
    description: bytes | None = None


class PgSession:
    """The state of one connection."""

    def __init__(self, server: PgServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.state: ServiceState = server.state
        self.reader = reader
        self.writer = writer
        self.pid = server.next_pid()
        self.secret = secrets.randbits(31)
        self.status = "I"
        self.ctx: Context | None = None
        self.principal: Principal | None = None
        self.prepared: dict[str, Prepared] = {}
        self.portals: dict[str, Portal] = {}
        self.skip_to_sync = False
        self.running: Cancellation | None = None

    # -- start-up -------------------------------------------------------------------------------------------
    async def run(self) -> None:
        try:
            startup = await p.read_startup(self.reader)
            while startup.kind in ("ssl", "gssenc"):  # no TLS here: sslmode=prefer falls back to plain
                self.writer.write(b"N")
                await self.writer.drain()
                startup = await p.read_startup(self.reader)
            if startup.kind == "cancel":
                self.server.cancel(startup.pid, startup.secret)
                return
            await self._start(startup.parameters)
            await self._loop()
        except Refused as refused:
            self.writer.write(p.error_response(refused.error))
            await self._drain()
        except p.ProtocolViolation as err:
            self.writer.write(p.error_response(fields(PROTOCOL_VIOLATION, str(err), severity="FATAL")))
            await self._drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.server.forget(self)
            self.writer.close()

    async def _drain(self) -> None:
        try:
            await self.writer.drain()
        except ConnectionError:
            pass

    async def _start(self, params: dict[str, str]) -> None:
        user = params.get("user", "")
        if self.state.keys is None:
            principal = OPEN_PRINCIPAL
        else:
            self.writer.write(p.authentication_cleartext())
            await self.writer.drain()
            kind, payload = await p.read_message(self.reader)
            if kind != b"p":
                raise p.ProtocolViolation("expected a password message")
            password = payload.rstrip(b"\x00").decode("utf-8", "replace")
            try:
                principal = self.state.authenticate(f"Bearer {password}" if password else None)
            except Unauthorized:
                raise Refused(fields("28P01", f'password authentication failed for user "{user}": the password is '
                                     "an API key of the service (smq keys new), and this one is not valid",
                                     severity="FATAL")) from None
        database = await self._database(params.get("database") or "", user, principal)
        self.principal = principal
        self.ctx = Context.new(self.state, database, user or principal.name, self.pid, params)
        self.server.register(self)
        out = [p.authentication_ok()]
        for name in _REPORTED:
            if name in self.ctx.settings:
                out.append(p.parameter_status(name, self.ctx.settings[name]))
        out += [p.backend_key_data(self.pid, self.secret), p.ready_for_query(self.status)]
        self.writer.write(b"".join(out))
        await self.writer.drain()

    async def _database(self, name: str, user: str, principal: Principal) -> Database:
        visible = [e.name for e in self.state.registry.entries() if may_use(principal, e)]
        if not name:
            name = user if user in visible else visible[0] if len(visible) == 1 else user
        if name not in visible:
            listing = ", ".join(visible) or "none"
            raise Refused(fields("3D000", f'database "{name}" does not exist: the databases of this key are the '
                                 f"layers {listing}", hint="did you mean " + " or ".join(
                                     f'"{s}"' for s in nearest(name, visible)) + "?" if nearest(name, visible) else None,
                                 severity="FATAL"))
        try:
            return await get_database(name, principal, self.state)
        except EngineError as err:
            error = error_fields(err)
            error["S"] = error["V"] = "FATAL"
            raise Refused(error) from None

    # -- messages ------------------------------------------------------------------------------------------------
    async def _loop(self) -> None:
        while True:
            kind, payload = await p.read_message(self.reader)
            if kind == b"X":
                return
            if kind == b"Q":
                await self._simple(p.Reader(payload).cstring())
                continue
            if kind == b"S":
                self.skip_to_sync = False
                self.writer.write(p.ready_for_query(self.status))
                await self.writer.drain()
                continue
            if kind == b"H":
                await self.writer.drain()
                continue
            if self.skip_to_sync:
                continue
            try:
                if kind == b"P":
                    await self._parse(p.Reader(payload))
                elif kind == b"B":
                    self._bind(p.Reader(payload))
                elif kind == b"D":
                    await self._describe(p.Reader(payload))
                elif kind == b"E":
                    await self._execute(p.Reader(payload))
                elif kind == b"C":
                    self._close(p.Reader(payload))
                elif kind in (b"d", b"c", b"f"):
                    raise SqlApiRefusal("COPY is not supported: the SQL API only answers queries")
                elif kind == b"F":
                    raise SqlApiRefusal("the function call protocol is not supported")
                else:
                    raise p.ProtocolViolation(f"unknown message type {kind!r}")
            except p.ProtocolViolation:
                raise
            except Exception as err:  # an error of the extended protocol: say it, skip to Sync
                self._error(err)
                self.skip_to_sync = True

    def _error(self, err: BaseException) -> None:
        if isinstance(err, _FailedTransaction):
            error = fields(FAILED_TRANSACTION, "current transaction is aborted, commands ignored until end of "
                           "transaction block", hint="send ROLLBACK")
        elif isinstance(err, SqlApiRefusal):
            error = fields("0A000", str(err))
        elif isinstance(err, ParameterError):
            error = fields("22P02", str(err))
        else:
            error = error_fields(err)
        if self.running is not None and self.running.cancelled:
            error = fields(CANCELED, "canceling statement due to user request")
        if self.status == "T":
            self.status = "E"
        self.writer.write(p.error_response(error))

    async def _in_thread(self, fn: Any, *args: Any) -> Any:
        """`fn(*args)` in a worker thread (the REST routes' pool), holding one of the key's quota slots."""
        assert self.principal is not None and self.state.quota is not None
        cancellation = Cancellation()

        def run() -> Any:
            with cancellable(cancellation):
                return fn(*args)

        async with quota_slot(self.state.quota, self.principal.name):
            self.running = cancellation
            try:
                return await anyio.to_thread.run_sync(run)
            finally:
                self.running = None if not cancellation.cancelled else cancellation

    def _check_transaction(self, statement: stmts.Statement) -> None:
        if self.status == "E" and not (statement.kind == "session" and statement.words[0] in _END_BLOCK):
            raise _FailedTransaction()

    def _after(self, result: Answer) -> None:
        if result.transaction == "begin":
            if self.status == "T":
                self.writer.write(p.error_response(fields("25001", "there is already a transaction in progress",
                                                          severity="WARNING"), notice=True))
            self.status = "T"
        elif result.transaction in ("commit", "rollback"):
            if self.status == "E" and result.transaction == "commit":
                result.tag = "ROLLBACK"
            self.status = "I"
        elif result.transaction == "rollback_to" and self.status == "E":
            self.status = "T"
        for name, value in result.reported.items():
            self.writer.write(p.parameter_status(name, value))
        for notice in result.notices:
            self.writer.write(p.error_response(fields("01000", notice, severity="NOTICE"), notice=True))

    # -- simple query -----------------------------------------------------------------------------------------------
    async def _simple(self, sql: str) -> None:
        assert self.ctx is not None
        log.debug("pgwire %d: query %s", self.pid, sql)
        self.running = None
        try:
            check_sql_length(sql, self.state.settings.max_sql_chars)
            texts = stmts.split(sql)
            if not texts:
                self.writer.write(p.EMPTY_QUERY)
            for text in texts:
                statement = await self._in_thread(classify, text)
                self._check_transaction(statement)
                encoded = await self._in_thread(_answer_encoded, self.ctx, statement, None, [])
                result, description, rows = encoded
                if description is not None:
                    self.writer.write(description)
                self.writer.writelines(rows)
                self._after(result)
                self.writer.write(p.command_complete(result.tag))
                if len(rows) > 1000:
                    await self.writer.drain()
        except Exception as err:
            self._error(err)
        self.writer.write(p.ready_for_query(self.status))
        await self.writer.drain()

    # -- extended query ---------------------------------------------------------------------------------------------
    async def _parse(self, reader: p.Reader) -> None:
        name, sql = reader.cstring(), reader.cstring()
        oids = [reader.int32() for _ in range(reader.int16())]
        log.debug("pgwire %d: parse %r %s", self.pid, name, sql)
        check_sql_length(sql, self.state.settings.max_sql_chars)
        statement = await self._in_thread(classify, sql)
        self.prepared[name] = Prepared(statement, oids)
        self.writer.write(p.PARSE_COMPLETE)

    def _bind(self, reader: p.Reader) -> None:
        portal, name = reader.cstring(), reader.cstring()
        prepared = self.prepared.get(name)
        if prepared is None:
            raise _missing_statement(name)
        formats = [reader.int16() for _ in range(reader.int16())]
        count = reader.int16()
        params: dict[int, Any] = {}
        for i in range(count):
            length = reader.int32()
            data = None if length < 0 else reader.bytes(length)
            binary = (formats[i] if len(formats) > 1 else formats[0] if formats else 0) == 1
            oid = prepared.param_oids[i] if i < len(prepared.param_oids) else 0
            params[i + 1] = decode_parameter(data, oid, binary, i + 1)
        result_formats = [reader.int16() for _ in range(reader.int16())]
        self.portals[portal] = Portal(prepared, params, result_formats)
        self.writer.write(p.BIND_COMPLETE)

    async def _describe(self, reader: p.Reader) -> None:
        assert self.ctx is not None
        what, name = reader.byte(), reader.cstring()
        if what == b"S":
            prepared = self.prepared.get(name)
            if prepared is None:
                raise _missing_statement(name)
            types, result = await self._in_thread(describe, self.ctx, prepared.statement, len(prepared.param_oids))
            from engine.sql_api.pgtypes import oid_of

            oids = [prepared.param_oids[i] if i < len(prepared.param_oids) and prepared.param_oids[i] else oid_of(t)
                    for i, t in enumerate(types)]
            self.writer.write(p.parameter_description(oids))
            self.writer.write(_description(result, []) if result is not None and result.columns is not None else p.NO_DATA)
            return
        portal = self.portals.get(name)
        if portal is None:
            raise _missing_portal(name)
        await self._run_portal(portal)
        self.writer.write(portal.description if portal.description is not None else p.NO_DATA)

    async def _run_portal(self, portal: Portal) -> None:
        assert self.ctx is not None
        if portal.answer is not None:
            return
        self._check_transaction(portal.prepared.statement)
        result, description, rows = await self._in_thread(
            _answer_encoded, self.ctx, portal.prepared.statement, portal.params, portal.formats)
        portal.answer, portal.description, portal.rows = result, description, rows

    async def _execute(self, reader: p.Reader) -> None:
        name, limit = reader.cstring(), reader.int32()
        portal = self.portals.get(name)
        if portal is None:
            raise _missing_portal(name)
        first = portal.answer is None
        await self._run_portal(portal)
        assert portal.answer is not None
        if portal.prepared.statement.kind == "empty":
            self.writer.write(p.EMPTY_QUERY)
            return
        end = len(portal.rows) if limit <= 0 else min(len(portal.rows), portal.sent + limit)
        self.writer.writelines(portal.rows[portal.sent:end])
        portal.sent = end
        if first:
            self._after(portal.answer)
        if end < len(portal.rows):
            self.writer.write(p.PORTAL_SUSPENDED)
        else:
            self.writer.write(p.command_complete(portal.answer.tag))
        if end > 1000:
            await self.writer.drain()

    def _close(self, reader: p.Reader) -> None:
        what, name = reader.byte(), reader.cstring()
        (self.prepared if what == b"S" else self.portals).pop(name, None)
        self.writer.write(p.CLOSE_COMPLETE)

    # -- cancel ----------------------------------------------------------------------------------------------------
    def cancel(self) -> None:
        running = self.running
        if running is not None:
            log.info("pgwire: cancel request for backend %d", self.pid)
            running.cancel()


class SqlApiRefusal(Exception):
    """A protocol feature the listener does not offer (COPY, function calls): 0A000."""


class _FailedTransaction(Exception):
    pass


def _missing_statement(name: str) -> SqlApiError:
    return SqlApiError(f'prepared statement "{name}" does not exist', "26000")


def _missing_portal(name: str) -> SqlApiError:
    return SqlApiError(f'portal "{name}" does not exist', "34000")


def _description(result: Answer, formats: list[int]) -> bytes:
    from engine.sql_api.pgtypes import oid_of

    fields_ = []
    for i, (name, pg_type) in enumerate(result.columns or ()):
        fmt = formats[i] if len(formats) > 1 else formats[0] if formats else 0
        if fmt == 1 and pg_type not in BINARY_TYPES:
            fmt = 0
        fields_.append(p.Field(name, oid_of(pg_type), result.field_sizes()[i], fmt))
    return p.row_description(fields_)


def _answer_encoded(ctx: Context, statement: stmts.Statement, params: dict[int, Any] | None,
                    formats: list[int]) -> tuple[Answer, bytes | None, list[bytes]]:
    """The answer and its RowDescription and DataRows, encoded in the worker thread (not on the event loop)."""
    result = answer(ctx, statement, params)
    if result.columns is None:
        return result, None, []
    types = [t for _, t in result.columns]
    binary = [(formats[i] if len(formats) > 1 else formats[0] if formats else 0) == 1 and t in BINARY_TYPES
              for i, t in enumerate(types)]
    rows = [p.data_row([encode_binary(v, t) if b else encode_text(v, t) for v, t, b in zip(row, types, binary)])
            for row in result.rows]
    return result, _description(result, formats), rows
