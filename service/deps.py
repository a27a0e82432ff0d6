"""Request dependencies: the service state, the caller (API key) and the database it may use.

Routes declare what they need with the `Annotated` aliases at the bottom (`PrincipalDep`,
`DatabaseDep`, ...); every access decision lives here, so no route can forget one. The
dependencies are `async`: they only read memory, so they run on the event loop instead of taking
a worker thread that a slow query may need (a busy pool must not stall auth or health checks).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from engine import Layer
from engine.errors import nearest
from engine.layer.model import Role
from smq_db.executors import WithholdingExecutor
from smq_db.executors.base import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, InThread, QueryResult, execute_async, result_budget

from .auth import OPEN_PRINCIPAL, KeyStore, Principal
from .errors import Forbidden, ServiceConfigError
from .limits import ConcurrencyQuota, InProcessQuota, take_quota_slot
from .registry import Entry, Registry, ReloadReport
from .settings import Settings

if TYPE_CHECKING:
    from smq_db.executors import Executor

log = logging.getLogger("smq.service")

_bearer = HTTPBearer(auto_error=False, description="an API key from the keys file (`smq keys hash` makes its digest)")


@dataclass
class ServiceState:
    """Everything a request may need, built once per app by `create_app`."""

    settings: Settings
    registry: Registry
    keys: KeyStore | None  # None: open access (local demo)
    keys_error: str | None = None  # the last failed reload of the keys file (the previous keys stay)
    quota: ConcurrencyQuota | None = None  # requests in progress per key; None: in-process, from the settings
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.quota is None:
            self.quota = InProcessQuota(self.settings.max_inflight_per_key)

    def authenticate(self, authorization: str | None) -> Principal:
        keys = self.keys
        return OPEN_PRINCIPAL if keys is None else keys.authenticate(authorization)

    def reload(self) -> tuple[ReloadReport, str | None]:
        """Reload every layer and the keys file; a broken keys file keeps the previous keys."""
        with self._lock:
            report = self.registry.reload()
            if self.keys is not None and self.keys.source is not None:
                try:
                    self.keys = KeyStore.load(self.keys.source)
                    self.keys_error = None
                except ServiceConfigError as err:
                    self.keys_error = err.formatted()
                    log.error("API keys file not reloaded, keeping the previous keys: %s", self.keys_error)
            return report, self.keys_error


def may_use(principal: Principal, entry: Entry) -> bool:
    """A key may use a database it names whose layer defines the key's role (if it has one)."""
    if not principal.grants(entry.name):
        return False
    if principal.role is None:
        return True
    return entry.layer is not None and principal.role in entry.layer.semantic.roles


@dataclass(frozen=True)
class Database:
    """A database resolved for one caller: the layer to serve and the role to apply on every path."""

    entry: Entry
    layer: Layer
    principal: Principal
    role: str | None
    role_obj: Role | None

    @property
    def name(self) -> str:
        return self.entry.name


async def get_state(request: Request) -> ServiceState:
    return request.app.state.smq


StateDep = Annotated[ServiceState, Depends(get_state)]


def _header(credentials: HTTPAuthorizationCredentials | None, request: Request) -> str | None:
    if credentials is not None:
        return f"{credentials.scheme} {credentials.credentials}"
    return request.headers.get("authorization")  # malformed ones: authenticate() says what is wrong


KEYED_SCOPE_KEY = "smq.keyed"  # set on a request admitted with a key: its answer depends on the key (service.headers)


async def admit(state: ServiceState, authorization: str | None, scope: MutableMapping[str, Any]) -> Principal:
    """The one gate of every request made for a caller (REST, Cube, MCP over HTTP): the key is checked (401),
    the request takes one of the key's quota slots until its response is sent (429 when none is free:
    `service.limits`), and its answer is marked as depending on the key (`Vary: Authorization`)."""
    principal = state.authenticate(authorization)
    assert state.quota is not None
    await take_quota_slot(state.quota, principal.name, scope)
    scope[KEYED_SCOPE_KEY] = True
    return principal


async def get_principal(state: StateDep, request: Request,
                        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Principal:
    """The caller of a REST route, admitted (`admit`)."""
    return await admit(state, _header(credentials, request), request.scope)


async def get_cube_principal(state: StateDep, request: Request) -> Principal:
    """The caller of a Cube route, admitted as REST's: Cube clients send `Authorization: <key>` or `Bearer <key>`."""
    header = request.headers.get("authorization", "").strip()
    if header and " " not in header:
        header = f"Bearer {header}"
    return await admit(state, header or None, request.scope)


async def get_optional_principal(
    state: StateDep, request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal | None:
    """The caller if it sent a key (a wrong key is still 401); None for anonymous probes."""
    header = _header(credentials, request)
    if state.keys is not None and not header:
        return None
    return state.authenticate(header)


PrincipalDep = Annotated[Principal, Depends(get_principal)]
CubePrincipalDep = Annotated[Principal, Depends(get_cube_principal)]
# every route made for a caller depends on one of these (tests/service/test_route_admission.py enumerates the routes)
ADMITTING_DEPENDENCIES = (get_principal, get_cube_principal)
OptionalPrincipalDep = Annotated[Principal | None, Depends(get_optional_principal)]


async def require_admin(principal: PrincipalDep) -> Principal:
    if not principal.admin:
        raise Forbidden(f"API key '{principal.name}' is not an admin key (set `admin: true` in the keys file)",
                        code="admin_required")
    return principal


AdminDep = Annotated[Principal, Depends(require_admin)]


async def get_database(db: Annotated[str, Path(description="database name, as in GET /v1/databases")],
                       principal: PrincipalDep, state: StateDep) -> Database:
    """The database `{db}` as this caller may use it: 403 before 404, so keys learn nothing of other databases."""
    registry = state.registry

    def visible() -> list[str]:  # only a refusal names them (as suggestions): not worked out for every request
        return [e.name for e in registry.entries() if may_use(principal, e)]

    if not principal.grants(db):
        raise Forbidden(f"API key '{principal.name}' may not use database '{db}'", code="database_forbidden",
                        suggestions=nearest(db, visible()))
    entry = registry.find(db) or registry.entry(db, visible())
    layer = registry.layer(entry)
    role_obj = None
    if principal.role is not None:
        role_obj = layer.semantic.roles.get(principal.role)
        if role_obj is None:
            raise Forbidden(f"API key '{principal.name}' has role '{principal.role}', which database '{db}' does not define; "
                            "the key cannot use this database", code="role_not_defined")
    return Database(entry, layer, principal, principal.role, role_obj)


DatabaseDep = Annotated[Database, Depends(get_database)]


class CappedExecutor:
    """A database's executor as the service uses it: every result held to SMQ_MAX_RESULT_BYTES of JSON,
    and made JSON-safe within the query's timeout (`result_budget`); everything else is the executor's."""

    def __init__(self, executor: Any, max_result_bytes: int) -> None:
        self.executor = executor
        self.max_result_bytes = max_result_bytes

    def __getattr__(self, name: str) -> Any:  # backend, dialect, close ...
        return getattr(self.executor, name)

    def execute(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S) -> QueryResult:
        with result_budget(max_bytes=self.max_result_bytes, timeout_s=timeout_s):
            return self.executor.execute(sql, max_rows=max_rows, timeout_s=timeout_s)

    async def execute_async(self, sql: str, *, max_rows: int = DEFAULT_MAX_ROWS, timeout_s: float = DEFAULT_TIMEOUT_S,
                            in_thread: InThread = run_in_threadpool) -> QueryResult:
        """`execute` from the event loop: a worker process's reply is awaited there, any other backend runs in a
        thread of the pool (smq_db.executors.base.execute_async); the budget holds either way."""
        with result_budget(max_bytes=self.max_result_bytes, timeout_s=timeout_s):
            return await execute_async(self.executor, sql, max_rows=max_rows, timeout_s=timeout_s, in_thread=in_thread)


def executor_for(state: ServiceState, database: Database) -> Executor:
    """The executor of a database as this caller uses it (503 problems come from BackendUnavailable / ConfigError).

    Every result is capped in bytes (CappedExecutor). For a key with an access role, database errors come back
    without the database's text (it may quote rows or columns the role may not see; smq_db.executors.withholding).
    """
    return _as_caller(state, database, state.registry.executor(database.layer))


async def executor_for_async(state: ServiceState, database: Database) -> CappedExecutor:
    """`executor_for` from the event loop: an executor not open yet is opened in a thread (starting a worker
    process, building the demo file, connecting: nothing the loop may wait on)."""
    executor = state.registry.open_executor(database.layer)
    if executor is None:
        executor = await run_in_threadpool(state.registry.executor, database.layer)
    return _as_caller(state, database, executor)


def _as_caller(state: ServiceState, database: Database, executor: Any) -> CappedExecutor:
    if database.role is not None:
        executor = WithholdingExecutor(executor, database.role)
    return CappedExecutor(executor, state.settings.max_result_bytes)
