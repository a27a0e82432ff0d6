"""The service's Prometheus metrics, served at `/v1/metrics` (docs/service.md, "Metrics").

Each app has its own `CollectorRegistry` (not prometheus_client's global one), so several apps in one
process (tests, the MCP server beside the REST app) count apart. Counted per request by
`service.request_log.RequestLogMiddleware`: requests by route template, method and status, their
latency per route, problems by `code`. Read at scrape time: the worker-thread pool that runs the
synchronous routes (busy, queued, size), requests in progress, and the result cache when the app has
one (`app.state.result_cache.stats()`: hits, misses, entries, errors). With `--workers N` every worker
has its own figures; a scrape reaches one of them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .request_log import Finished

log = logging.getLogger("smq.service")

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
CACHE_COUNTERS = ("hits", "misses", "errors")  # the cache's own running totals; anything else is a gauge


class ServiceMetrics:
    """The metrics of one app: `observe` is the request-log hook, `registry` what /v1/metrics renders."""

    def __init__(self, app_state: Any) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("smq_http_requests", "HTTP requests answered, by route template, method and status",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("smq_http_request_duration_seconds",
                                 "time from the request reaching the app to its response being sent, by route",
                                 ["route", "method"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.errors = Counter("smq_http_errors", "problem responses (application/problem+json) by their code",
                              ["code", "status"], registry=self.registry)
        self.in_progress = Gauge("smq_http_requests_in_progress", "requests received and not yet answered",
                                 registry=self.registry)
        self.registry.register(ThreadPoolCollector())
        self.registry.register(ResultCacheCollector(app_state))
        self.registry.register(RollupCollector())

    def started(self) -> None:
        self.in_progress.inc()

    def observe(self, done: Finished) -> None:
        self.in_progress.dec()
        self.requests.labels(done.route, done.method, str(done.status)).inc()
        self.latency.labels(done.route, done.method).observe(done.seconds)
        if done.status >= 400:
            self.errors.labels(done.code or "unknown", str(done.status)).inc()


class ThreadPoolCollector(Collector):
    """The worker threads (anyio's default limiter) that run synchronous routes and their SQL: busy, queued, size.

    Read on the event loop when /v1/metrics is scraped; outside one (no running loop) it reports nothing.
    """

    def collect(self) -> Iterator[Metric]:
        try:
            from anyio import to_thread

            stats = to_thread.current_default_thread_limiter().statistics()
        except Exception:  # not on an event loop: nothing to read  # noqa: BLE001
            return
        yield GaugeMetricFamily("smq_worker_threads_busy", "worker threads running a request's synchronous part",
                                value=stats.borrowed_tokens)
        yield GaugeMetricFamily("smq_worker_threads_queued", "requests waiting for a free worker thread",
                                value=stats.tasks_waiting)
        yield GaugeMetricFamily("smq_worker_threads_total", "size of the worker-thread pool",
                                value=stats.total_tokens)


class RollupCollector(Collector):
    """Queries of databases with rollups (docs/rollups.md), answered from a rollup or from the facts."""

    def collect(self) -> Iterator[Metric]:
        from smq_db.rollup_runs import HITS

        yield CounterMetricFamily("smq_rollup_hits", "queries answered from a rollup since the service started",
                                  value=HITS["rollup"])
        yield CounterMetricFamily("smq_rollup_misses", "queries of databases with rollups answered from the facts",
                                  value=HITS["facts"])


class ResultCacheCollector(Collector):
    """The result cache's `stats()` when the app has one (`app.state.result_cache`), read at every scrape.

    hits, misses and errors are running totals (counters); entries and any other number a gauge.
    A cache whose stats fail is reported as `smq_result_cache_up 0` rather than failing the scrape.
    """

    def __init__(self, app_state: Any) -> None:
        self.app_state = app_state

    def collect(self) -> Iterator[Metric]:
        cache = getattr(self.app_state, "result_cache", None)
        stats_of = getattr(cache, "stats", None)
        if not callable(stats_of):
            return
        try:
            stats = dict(stats_of())
        except Exception as exc:  # a backend (Redis) down must not fail the scrape  # noqa: BLE001
            log.warning("result cache stats failed: %s", exc)
            yield GaugeMetricFamily("smq_result_cache_up", "1 when the result cache answered its stats", value=0)
            return
        yield GaugeMetricFamily("smq_result_cache_up", "1 when the result cache answered its stats", value=1)
        for key, value in sorted(stats.items()):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            name = "smq_result_cache_" + re.sub(r"[^a-zA-Z0-9_]", "_", str(key))
            if key in CACHE_COUNTERS:
                yield CounterMetricFamily(name, f"result cache {key} since the service started", value=value)
            else:
                yield GaugeMetricFamily(name, f"result cache {key}", value=value)
