"""`create_app(settings)`: the FastAPI application serving every layer under a models folder.

Start-up refuses to run unsecured by accident: without a keys file the app is only built with
`open_access` (local demo). Layers are loaded before the first request, so a broken one shows in
`/v1/ready` at once; executors connect on first use, so one backend being down stops nothing else.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from engine import LayerValidationError

from . import compression, errors, limits, openapi_doc, paused_runs_redis, request_errors, result_cache
from .auth import KeyStore
from .browser_guards import CrossSiteGuardMiddleware, KeyedHeadersMiddleware
from .deps import KEYED_SCOPE_KEY, ServiceState
from .errors import ServiceConfigError
from .observability import install_observability
from .redis_state import quota_for
from .registry import Registry
from .request_log import configure_logging
from .result_formats import EXPOSED_HEADERS
from .routes import admin, ask, compile, cube, databases, execute, explain, explore, health, playground, query, tools
from .routes.health import service_version
from .routes.schemas import problem_responses
from .settings import Settings
from .timing import ServerTimingMiddleware

log = logging.getLogger("smq.service")

DESCRIPTION = """A semantic layer over SQL databases: list models, compile SMQs to SQL, run them, and run
read-only SQL, each under the caller's access role. Every error is `application/problem+json`
(RFC 9457) with a stable `code`. Authenticate with `Authorization: Bearer <key>`."""


def load_keys(settings: Settings) -> KeyStore | None:
    """The keys file, or None for open access; refuses a configuration that would be open by accident."""
    if settings.api_keys_file is not None:
        if settings.open_access:
            log.warning("both an API keys file and open access are set: keys are enforced")
        return KeyStore.load(settings.api_keys_file)
    if settings.open_access:
        log.warning("open access: every caller is an unrestricted admin; for local use only")
        return None
    raise ServiceConfigError("no API keys configured: pass --api-keys FILE (or set SMQ_API_KEYS_FILE); "
                             "for a local demo without keys pass --open (or set SMQ_OPEN_ACCESS=1)")


def build_state(settings: Settings) -> ServiceState:
    """Keys and layers, loaded now so a misconfiguration fails at start-up, not on the first request."""
    keys = load_keys(settings)
    registry = Registry(settings.models_dir, query_timeout_s=settings.query_timeout_s,
                        backend_retry_s=settings.backend_retry_s)
    try:
        registry.reload()
    except LayerValidationError as err:  # the models folder itself is missing
        raise ServiceConfigError(f"{err.formatted()} ({settings.models_dir})") from None
    return ServiceState(settings=settings, registry=registry, keys=keys, quota=quota_for(settings))


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    state = build_state(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.reload_models:
            extra = [settings.api_keys_file] if settings.api_keys_file else []
            state.registry.watch(lambda: state.reload(), interval_s=settings.reload_interval_s, extra_files=extra)
        pg = None
        if settings.pg_port is not None:  # the SQL API over the PostgreSQL protocol, on this event loop
            from .pgwire import start_pg_server

            pg = app.state.pg_server = await start_pg_server(state, settings.host, settings.pg_port)
        gc.collect()
        gc.freeze()  # the layers and the libraries live as long as the process: keep them out of every collection
        try:
            yield
        finally:
            gc.unfreeze()
            if pg is not None:
                await pg.close()
            state.registry.close()

    app = FastAPI(title="SMQ semantic layer", version=service_version(), description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url="/openapi.json")
    app.state.smq = state
    errors.install(app)
    assert state.quota is not None
    limits.install(app, settings.max_body_bytes, state.quota)  # inside CORS: a 413 still carries the CORS headers
    result_cache.install(app, settings)  # app.state.result_cache, ETag / 304 on /query and /execute
    # pages of other sites may not POST (reload, queries, /ask) unless listed in SMQ_CORS_ORIGINS
    app.add_middleware(CrossSiteGuardMiddleware, allowed_origins=settings.cors_origins or ())
    paused_runs_redis.install(app, settings)  # with SMQ_REDIS_URL: paused /ask runs shared by the replicas
    if settings.cors_origins:  # browser front ends on other origins (preflight answered before auth)
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type", "X-Request-ID", "If-None-Match", "Cache-Control"],
                           expose_headers=["Server-Timing", "X-Request-ID", "ETag", "Age", *EXPOSED_HEADERS],
                           max_age=600)
    # -- results as front ends fetch them: br/gzip answers, errors declared as problem+json (api-results)
    if settings.compression:
        compression.install(app)
    openapi_doc.install(app)
    # --
    # outside the cache, CORS and compression: their Vary and Cache-Control are merged, never replaced
    app.add_middleware(KeyedHeadersMiddleware, scope_key=KEYED_SCOPE_KEY)
    app.add_middleware(ServerTimingMiddleware)  # outermost: times error responses too
    # the BI calls first: FastAPI (0.16x) matches a path against each included router in turn, so every router
    # before the one that answers costs each request a few µs (a health check behind nine of them: +37 µs)
    limited = problem_responses(413, 429)  # every route of these routers may meet a limit
    for module in (query, compile):
        app.include_router(module.router, responses=limited)
    app.include_router(health.router)
    for module in (databases, explain, execute, explore, admin, ask, tools):
        app.include_router(module.router, responses=limited)
    from .pgwire.route import router as sql_api_router

    app.include_router(sql_api_router, responses=problem_responses(401, 429))  # where the SQL API listens
    app.include_router(playground.router)  # the web page at / (not in the OpenAPI document)
    request_errors.install(app)  # clear answers for malformed JSON and a wrong Content-Type
    app.include_router(cube.router)  # Cube's REST API (docs/cube.md), not in the OpenAPI document
    # --- operations: /v1/metrics, /docs + /redoc served offline, request ids and access log (outermost) ---
    install_observability(app)
    return app


def create_worker_app() -> FastAPI:
    """The app of one `smq serve --workers N` process: settings from the SMQ_* environment, logging as the parent's."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    return create_app(settings)
