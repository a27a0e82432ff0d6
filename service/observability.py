"""The operations side of an app, installed in one call from `create_app`: `/v1/metrics` (Prometheus),
`/docs` and `/redoc` served without a CDN, and the request-id / access-log middleware around everything.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware import Middleware

from . import docs_assets
from .metrics import ServiceMetrics
from .request_log import ProblemCodeMiddleware, RequestLogMiddleware
from .routes import metrics as metrics_route
from .routes.schemas import problem_responses


def install_observability(app: FastAPI) -> None:
    """Call last: the request-log middleware must be the outermost, to see (and time) every response."""
    metrics = ServiceMetrics(app.state)
    app.state.metrics = metrics
    app.include_router(metrics_route.router, responses=problem_responses(429))
    docs_assets.install(app)
    app.add_middleware(RequestLogMiddleware, on_request=metrics.started, on_response=metrics.observe)
    app.user_middleware.append(Middleware(ProblemCodeMiddleware))  # innermost: the code before any re-encoding
