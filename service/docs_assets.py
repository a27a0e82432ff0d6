"""/docs (Swagger UI) and /redoc (ReDoc) from files the service serves itself, so they work offline.

FastAPI's own pages load Swagger UI and ReDoc from a CDN (and ReDoc's fonts from Google), which leaves
/docs blank on a machine without internet. The assets come from the `fastapi-offline` package (the
released Swagger UI bundle and ReDoc standalone build, installed with the service extra); they are
mounted at `/docs-assets` and the two pages point there, relative to the app's root path.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs-assets"


def assets_dir() -> Path:
    """The folder of the packaged Swagger UI / ReDoc files."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


def install(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Serve the assets and the two pages (the app is built with docs_url=None, redoc_url=None)."""
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")

    def local(request: Request, path: str) -> str:
        return f"{request.scope.get('root_path', '').rstrip('/')}{path}"

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=local(request, app.openapi_url or "/openapi.json"), title=f"{app.title} - Swagger UI",
            swagger_js_url=local(request, f"{ASSETS_URL}/swagger-ui-bundle.js"),
            swagger_css_url=local(request, f"{ASSETS_URL}/swagger-ui.css"),
            swagger_favicon_url=local(request, f"{ASSETS_URL}/favicon.png"),
            swagger_ui_parameters={"validatorUrl": None},  # no badge fetched from the online validator
        )

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        return get_redoc_html(
            openapi_url=local(request, app.openapi_url or "/openapi.json"), title=f"{app.title} - ReDoc",
            redoc_js_url=local(request, f"{ASSETS_URL}/redoc.standalone.js"),
            redoc_favicon_url=local(request, f"{ASSETS_URL}/favicon.png"), with_google_fonts=False,
        )
