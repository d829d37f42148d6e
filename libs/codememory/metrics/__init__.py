"""Prometheus metrics for every codememory process: one set of families, one way to serve them.

- ``families``: every metric, defined once.
- ``consumer``: a durable consumer's counters, fed by the settler (``bus/settle.py``).
- ``grpcserver``: the gateway's server interceptor (requests by method and code, latency).
- ``gauges``: projection sequence and lag read at scrape time; the embedding batch timer.
- ``endpoint``: the ``/metrics`` HTTP server on the port from the settings.
- ``headline``: the figures ``codememory status`` prints, from scrapes.

Nothing here knows NATS or the services: they call in, never the other way round.
"""

from codememory.metrics.consumer import ConsumerMetrics
from codememory.metrics.endpoint import MetricsEndpoint, MetricsSettings, metrics_step, serve_metrics
from codememory.metrics.gauges import TimedEmbedder, track_projections
from codememory.metrics.grpcserver import MetricsInterceptor

__all__ = [
    "ConsumerMetrics",
    "MetricsEndpoint",
    "MetricsInterceptor",
    "MetricsSettings",
    "TimedEmbedder",
    "metrics_step",
    "serve_metrics",
    "track_projections",
]
