"""What browsers and shared caches need to be told: answers that depend on the key, and requests from other sites.

* `KeyedHeadersMiddleware`: every answer to a request admitted with a key (`service.deps.admit` marks its
  scope) says `Vary: Authorization` and `Cache-Control: private`, merged into what the route, the result
  cache, CORS and compression set. A shared cache (a proxy, a CDN) then never hands one key's rows to another,
  and a browser never serves one login's cached answer to the next.
* `CrossSiteGuardMiddleware`: a request that can change something or cost something (POST, PUT, PATCH,
  DELETE) sent by a page of another site is refused (403 `cross_site_request`) unless that site is one of
  `SMQ_CORS_ORIGINS`. A browser says where a request comes from in `Sec-Fetch-Site` (and `Origin`); other
  clients (curl, BI tools, SDKs) send neither and are not affected. On an `--open` server a page of any site
  could otherwise POST a "simple" (`text/plain`, no preflight) request to `/v1/reload` or `/ask`.
* `require_json_request`: state-changing routes (`/v1/reload`) also take only `Content-Type:
  application/json`, which no simple cross-site request can send, so a browser that sends no
  `Sec-Fetch-Site` must still ask first (CORS preflight).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import Forbidden, ServiceError, problem

log = logging.getLogger("smq.service")

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_SAME = frozenset({"same-origin", "none"})  # Sec-Fetch-Site of the page's own requests and of typed URLs


class CrossSiteRequest(Forbidden):
    code = "cross_site_request"


class JsonRequired(ServiceError):
    code = "invalid_request"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def is_cross_site(scope: Scope) -> tuple[bool, str | None]:
    """Whether a browser sent this request from another site, and the Origin it named."""
    origin = _header(scope, b"origin")
    site = _header(scope, b"sec-fetch-site")
    if site is not None:  # the browser's own verdict (every current browser sends it)
        return site.lower() not in _SAME, origin
    if origin is None:  # not a browser, or a same-origin GET/HEAD: nothing to check
        return False, None
    host = _header(scope, b"host") or ""
    # the host part only: behind a TLS-terminating proxy the scheme the service sees is not the page's
    return origin == "null" or urlsplit(origin).netloc.lower() != host.lower(), origin


class CrossSiteGuardMiddleware:
    """Refuses POST/PUT/PATCH/DELETE from pages of other sites than the service's own and `allowed_origins`."""

    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = frozenset(o.rstrip("/") for o in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") in UNSAFE_METHODS:
            cross, origin = is_cross_site(scope)
            if cross and ("*" not in self.allowed and (origin or "").rstrip("/") not in self.allowed):
                log.warning("%s %s -> cross_site_request (Origin %s)", scope.get("method"), scope.get("path"), origin)
                detail = (f"a page of another site ({origin or 'unknown origin'}) may not send this request; a browser "
                          "front end on another origin must be listed in SMQ_CORS_ORIGINS")
                response = problem(403, CrossSiteRequest.code, detail, scope.get("path", ""),
                                   title="Cross-site request refused")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _merged_vary(existing: str | None, name: str) -> str:
    parts = [p.strip() for p in (existing or "").split(",") if p.strip()]
    if "*" not in parts and name.lower() not in {p.lower() for p in parts}:
        parts.append(name)
    return ", ".join(parts)


def _private(existing: str | None) -> str:
    directives = [d.strip() for d in (existing or "").split(",") if d.strip()]
    directives = [d for d in directives if d.lower() != "public"]
    if not any(d.lower() in ("private", "no-store") for d in directives):
        directives.insert(0, "private")
    return ", ".join(directives)


class KeyedHeadersMiddleware:
    """`Vary: Authorization` and `Cache-Control: private` on every answer to a request admitted with a key."""

    def __init__(self, app: ASGIApp, scope_key: str) -> None:
        self.app = app
        self.scope_key = scope_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def keyed_send(message: Message) -> None:
            if message["type"] == "http.response.start" and scope.get(self.scope_key):
                headers = list(message.get("headers", ()))
                vary = next((v.decode("latin-1") for n, v in headers if n.lower() == b"vary"), None)
                cache = next((v.decode("latin-1") for n, v in headers if n.lower() == b"cache-control"), None)
                headers = [(n, v) for n, v in headers if n.lower() not in (b"vary", b"cache-control")]
                headers += [(b"vary", _merged_vary(vary, "Authorization").encode("latin-1")),
                            (b"cache-control", _private(cache).encode("latin-1"))]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, keyed_send)


async def require_json_request(request: Request) -> None:
    """A state-changing route's dependency: `Content-Type: application/json` (a body may be empty), so no
    simple cross-site request (text/plain, a form) can reach it."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        got = f"'{content_type}'" if content_type else "no Content-Type"
        raise JsonRequired(f"this route changes the service's state: send it with `Content-Type: application/json` "
                           f"(got {got}); browsers cannot send that from another site without asking first")
