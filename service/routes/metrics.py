"""`GET /v1/metrics`: the service's Prometheus metrics (text exposition format, `service.metrics`).

Admin keys only, as /v1/reload: the figures name routes, key-independent error codes and load, which is
operations' business, not a BI client's. A Prometheus scrape job sends an admin key as a bearer token
(`authorization: {credentials: ...}`); with `smq serve --open` every caller is an admin, so it is open.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from ..deps import AdminDep
from .schemas import problem_responses

router = APIRouter(prefix="/v1", tags=["admin"], responses=problem_responses(401, 403))


@router.get("/metrics", summary="Prometheus metrics (admin)", response_class=Response,
            responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text exposition format"}})
async def metrics(request: Request, _admin: AdminDep) -> Response:
    """Requests, latency, errors by code, the worker-thread pool and the result cache, for this process.

    Async on purpose: the pool gauges are read on the event loop, and a scrape must not wait for a worker thread.
    """
    registry = request.app.state.metrics.registry
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
