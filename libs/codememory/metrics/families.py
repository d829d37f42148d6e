"""Every Prometheus metric codememory exposes, defined once.

Services never define their own families: a name exists here or nowhere, so a dashboard, the k8s scrape
annotations and ``codememory status`` agree on what each one means. All live in the process's default
registry; in ``codememory up`` (one process) every service's series share it and are told apart by
their ``service`` label, with ``--scale`` each process serves its own.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)

_CONSUMER = ("service", "consumer")

MESSAGES_HANDLED = Counter(
    "codememory_messages_handled", "Messages given to a service's handler (every delivery)", _CONSUMER
)
MESSAGES_ACKED = Counter("codememory_messages_acked", "Messages acknowledged after handling", _CONSUMER)
MESSAGES_RETRIED = Counter(
    "codememory_messages_retried", "Messages nak'ed for redelivery (transient or failing)", _CONSUMER
)
MESSAGES_DEAD_LETTERED = Counter(
    "codememory_messages_dead_lettered", "Messages parked in the DLQ with their reason", _CONSUMER
)
SETTLE_FAILURES = Counter(
    "codememory_settle_failures",
    "Acks, naks or DLQ publishes that failed (redelivery repairs them)",
    _CONSUMER,
)
BATCH_SIZE = Histogram(
    "codememory_batch_size",
    "Messages per batch fetched by a durable consumer",
    _CONSUMER,
    buckets=BATCH_BUCKETS,
)
HANDLER_SECONDS = Histogram(
    "codememory_handler_seconds",
    "Time to handle and settle one batch",
    _CONSUMER,
    buckets=LATENCY_BUCKETS,
)
CONSUMER_LAG = Gauge(
    "codememory_consumer_lag",
    "Messages of the stream not yet delivered to the durable consumer (num_pending at the last batch)",
    _CONSUMER,
)

GRPC_REQUESTS = Counter(
    "codememory_grpc_requests", "gRPC requests served, by method and status code", ("method", "code")
)
GRPC_SECONDS = Histogram(
    "codememory_grpc_request_seconds", "gRPC request latency by method", ("method",), buckets=LATENCY_BUCKETS
)

PROJECTION_SEQ = Gauge(
    "codememory_projection_sequence", "Last LOG sequence a projection applied", ("projection",)
)
PROJECTION_LAG = Gauge(
    "codememory_projection_lag", "LOG events a projection has not applied yet", ("projection",)
)
LOG_LAST_SEQ = Gauge("codememory_log_last_sequence", "LOG's last sequence as last read by the gateway")

EMBEDDING_SECONDS = Histogram(
    "codememory_embedding_batch_seconds",
    "Time to embed one batch of texts",
    ("model", "caller"),
    buckets=LATENCY_BUCKETS,
)
EMBEDDING_TEXTS = Counter("codememory_embedded_texts", "Texts embedded", ("model", "caller"))
