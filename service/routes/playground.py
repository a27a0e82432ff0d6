"""The web playground (playground/, built into service/static/playground): `/` and `/playground` serve
its page, `/playground/assets/...` its scripts and styles, from the installed package (no CDN, no Node).

The page uses only the public REST API. Asset names carry a content hash, so they are cached for a year
(`immutable`); the page itself is revalidated on every load (`no-cache`), so a new build shows at once.
None of these routes are in the OpenAPI document: they are not API.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ..errors import problem

router = APIRouter(include_in_schema=False)

CONTENT_TYPES = {  # explicit: the platform's mimetypes table may say text/plain for .js (Windows registry)
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".woff2": "font/woff2",
    ".json": "application/json",
}
# the page loads only its own files and calls only this origin; ECharts and Preact set inline styles
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
                               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def static_root() -> Traversable:
    return resources.files("service").joinpath("static", "playground")


def assets() -> dict[str, Traversable]:
    """The built asset files by name: the only names served (no path is ever joined from a request).
    Listed per request (two files), so a rebuild under a running server is served at once."""
    folder = static_root().joinpath("assets")
    if not folder.is_dir():
        return {}
    return {entry.name: entry for entry in folder.iterdir() if entry.is_file()}


def index_html() -> bytes | None:
    page = static_root().joinpath("index.html")
    return page.read_bytes() if page.is_file() else None


def _page(request: Request) -> Response:
    body = index_html()
    if body is None:
        return problem(404, "not_found", "the playground is not built: run `npm run build` in playground/",
                       request.url.path)
    return HTMLResponse(body, headers={"Cache-Control": "no-cache", **SECURITY_HEADERS})


@router.api_route("/", methods=["GET", "HEAD"])
def home(request: Request) -> Response:
    return _page(request)


@router.api_route("/playground", methods=["GET", "HEAD"])
@router.api_route("/playground/", methods=["GET", "HEAD"])
def playground(request: Request) -> Response:
    return _page(request)


@router.api_route("/playground/assets/{name}", methods=["GET", "HEAD"])
def asset(name: str, request: Request) -> Response:
    entry = assets().get(name)
    suffix = name[name.rfind("."):] if "." in name else ""
    if entry is None or suffix not in CONTENT_TYPES:
        return problem(404, "not_found", f"no playground asset {name!r}", request.url.path)
    return Response(entry.read_bytes(), media_type=CONTENT_TYPES[suffix],
                    headers={"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"})
