"""`LeanRoute`: a FastAPI route that answers the usual request without FastAPI's generic dependency solver.

FastAPI resolves a route's dependencies with one generic, re-entrant walk per request: for each dependency
it looks up its cache key, classifies the callable, and parses path, query, header and cookie parameters,
whatever the dependency declares. On `POST /query` that walk cost more than half of what the service spent on a
cached answer (0.65 of 1.05 ms of CPU, `bench/service_floor.py`), more than the database on the demo's small
queries.

A LeanRoute is declared like any route (same path, parameters, dependencies, response model, OpenAPI): the
plan of its dependencies is worked out once, when the route is built, and each request then calls the same
dependency functions in the same order with the same values, validates its parameters and body with FastAPI's
own functions (`request_params_to_args`, `request_body_to_args`), and calls the endpoint. Anything the plan
does not cover is FastAPI's, unchanged: a route whose dependencies use features the plan does not know
(generators, sync dependencies, headers or cookies as parameters, security scopes, a response parameter,
background tasks), an app with dependency overrides, telemetry switched on, and every request whose
parameters or body do not validate (its 422 is then FastAPI's, after the same dependencies it would have run
first). So what a request gets is what FastAPI would have answered: `tests/service` runs through it.
"""

from __future__ import annotations

import email.message
import functools
import inspect
import json
import logging
import typing
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

log = logging.getLogger("smq.service")

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


@dataclass(frozen=True)
class _Step:
    """One dependency: its callable, where its value goes, and what it takes."""

    call: Callable[..., Awaitable[Any]]
    name: str | None
    use_cache: bool
    steps: tuple[_Step, ...]
    path_params: list[Any]
    query_params: list[Any]
    request_params: tuple[str, ...]  # the parameters that take the request (as a Request or an HTTPConnection)
    plain_path: dict[str, str] | None  # name -> alias when every path parameter is a plain `str` (nothing to validate)
    query_defaults: dict[str, Any] | None  # the values of absent query parameters, when none is required

    def params(self, request: Request, validate: Callable[..., tuple[dict[str, Any], list[Any]]]) -> dict[str, Any]:
        """This step's path and query parameters, validated as FastAPI validates them (raises _Invalid)."""
        values: dict[str, Any] = {}
        if self.path_params:
            if self.plain_path is not None:
                given = request.path_params
                values.update((name, given[alias]) for name, alias in self.plain_path.items())
            else:
                values.update(_validated(validate, self.path_params, request.path_params))
        if self.query_params:
            if self.query_defaults is not None and not request.scope.get("query_string"):
                values.update(self.query_defaults)
            else:
                values.update(_validated(validate, self.query_params, request.query_params))
        return values


_IMMUTABLE = (type(None), bool, int, float, str)


def _validated(validate: Callable[..., tuple[dict[str, Any], list[Any]]], fields: list[Any], given: Any) -> dict[str, Any]:
    found, errors = validate(fields, given)
    if errors:
        raise _Invalid
    return found


def _plain_path(fields: list[Any]) -> dict[str, str] | None:
    if all(f.field_info.annotation is str and not f.field_info.metadata for f in fields):
        return {f.name: f.alias for f in fields}
    return None


def _query_defaults(fields: list[Any]) -> dict[str, Any] | None:
    """What FastAPI gives an absent optional parameter is its default (copied): plain values need no copy."""
    if any(f.field_info.is_required() or type(f.default) not in _IMMUTABLE for f in fields):
        return None
    return {f.name: f.default for f in fields}


def _supported_dependency(call: Any) -> bool:
    if inspect.isgeneratorfunction(call) or inspect.isasyncgenfunction(call):
        return False
    if inspect.iscoroutinefunction(call):
        return True
    method = getattr(call, "__call__", None)  # an instance with `async def __call__` (HTTPBearer)
    return inspect.iscoroutinefunction(method) and not inspect.isclass(call)


def _plan(dependant: Any, top: bool) -> _Step | None:
    """The steps of one dependant, or None when it uses anything but path/query parameters, the request (or
    connection) and async sub-dependencies of the same kind (the endpoint itself may be sync: it runs in the thread pool)."""
    unsupported = ("header_params", "cookie_params", "websocket_param_name", "response_param_name", "background_tasks_param_name", "security_scopes_param_name")
    if any(getattr(dependant, attr, None) for attr in unsupported):
        return None
    if getattr(dependant, "own_oauth_scopes", None) or getattr(dependant, "parent_oauth_scopes", None):
        return None
    if getattr(dependant, "concurrency", None) is not None or dependant.call is None:
        return None
    if not top and (dependant.body_params or not _supported_dependency(dependant.call)):
        return None
    steps = []
    for sub in dependant.dependencies:
        step = _plan(sub, top=False)
        if step is None:
            return None
        steps.append(step)
    takes_request = tuple(name for name in (dependant.request_param_name, getattr(dependant, "http_connection_param_name", None))
                          if name)
    return _Step(dependant.call, dependant.name, bool(dependant.use_cache), tuple(steps), list(dependant.path_params),
                 list(dependant.query_params), takes_request, _plain_path(dependant.path_params),
                 _query_defaults(dependant.query_params))


def _json_body(request: Request) -> bool:
    """FastAPI reads a body as JSON when its Content-Type is application/json or application/*+json."""
    return _is_json_type(request.headers.get("content-type"))


@functools.lru_cache(maxsize=64)  # clients send a handful of distinct Content-Type values; parsing one costs 30 µs
def _is_json_type(content_type: str | None) -> bool:
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


class _Invalid(Exception):
    """A parameter or the body does not validate: FastAPI's handler answers it."""


class LeanRoute(APIRoute):
    """See the module doc; use as `APIRouter(route_class=LeanRoute)` or `@router.post(..., route_class_override=...)`."""

    def get_route_handler(self) -> Handler:
        standard = super().get_route_handler()
        route = self._effective()
        plan = self._lean_plan(route)
        if plan is None:
            return standard
        endpoint_is_async = inspect.iscoroutinefunction(plan.call)
        body_params = list(route.dependant.body_params)
        embed: bool = getattr(route, "_embed_body_fields", False)
        overrides = route.dependency_overrides_provider
        from fastapi.dependencies.utils import request_body_to_args, request_params_to_args

        def params_of(step: _Step, request: Request, into: dict[int, dict[str, Any]]) -> None:
            """Every step's path and query parameters, validated before any dependency runs."""
            into[id(step)] = step.params(request, request_params_to_args)
            for sub in step.steps:
                params_of(sub, request, into)

        async def values_of(step: _Step, request: Request, params: dict[int, dict[str, Any]],
                            cache: dict[Any, Any]) -> dict[str, Any]:
            values: dict[str, Any] = {}
            for sub in step.steps:  # in declaration order, each sub-dependency before its dependant, as FastAPI
                if sub.use_cache and sub.call in cache:
                    value = cache[sub.call]
                else:
                    value = await sub.call(**await values_of(sub, request, params, cache))
                    cache.setdefault(sub.call, value)
                if sub.name is not None:
                    values[sub.name] = value
            values.update(params[id(step)])
            for name in step.request_params:
                values[name] = request
            return values

        async def lean(request: Request) -> Response:
            if getattr(overrides, "dependency_overrides", None) or _telemetry_on():
                return await standard(request)
            # everything that can fail validation is checked before a dependency runs: a request that fails is
            # FastAPI's from its start (dependencies first, then its 422), with nothing done twice
            try:
                params: dict[int, dict[str, Any]] = {}
                params_of(plan, request, params)
                body: dict[str, Any] = {}
                if body_params:
                    raw = await request.body()
                    if not raw or not _json_body(request):
                        raise _Invalid
                    try:
                        received = json.loads(raw)
                    except ValueError:
                        raise _Invalid from None
                    body, errors = await request_body_to_args(body_params, received, embed)
                    if errors:
                        raise _Invalid
            except _Invalid:
                return await standard(request)
            values = await values_of(plan, request, params, {})
            values.update(body)
            if endpoint_is_async:
                response = await plan.call(**values)
            else:
                response = await run_in_threadpool(plan.call, **values)
            if not isinstance(response, Response):  # the plan is made only for endpoints annotated to return one
                raise TypeError(f"{self.path}: the endpoint returned {type(response).__name__}, not a Response")
            return response

        return lean

    def _effective(self) -> Any:
        """What FastAPI's own handler is built from: this route, or (FastAPI >= 0.13x) the route as an
        `include_router` made it (the including router's dependencies, its app's overrides)."""
        import fastapi.routing

        var = getattr(fastapi.routing, "_effective_route_context_var", None)
        context = var.get() if var is not None else None
        return context if context is not None and getattr(context, "original_route", None) is self else self

    def _lean_plan(self, route: Any) -> _Step | None:
        try:
            returns = typing.get_type_hints(route.endpoint).get("return")
        except Exception:  # noqa: BLE001 - an annotation we cannot resolve: FastAPI's handler
            return None
        if not (inspect.isclass(returns) and issubclass(returns, Response)):
            return None
        try:
            dependant = route.dependant
            if dependant.body_params and (len(dependant.body_params) != 1 or
                                          getattr(route, "_embed_body_fields", None) is not False):
                return None
            return _plan(dependant, top=True)
        except AttributeError:  # a FastAPI whose Dependant differs from the one this was written for
            log.warning("%s: FastAPI's dependant is not as expected; using its own request handler", route.path)
            return None


_telemetry_data: Callable[[], Any] | None
try:  # FastAPI's own OpenTelemetry data (newer releases): when it is collected, FastAPI's handler fills it in
    from fastapi.telemetry._api import get_telemetry_data as _telemetry_data
except ImportError:  # pragma: no cover - older FastAPI
    _telemetry_data = None


def _telemetry_on() -> bool:
    return _telemetry_data is not None and _telemetry_data() is not None
