"""NATS JetStream plumbing shared by every service: streams, the event log, consumers, the DLQ."""

from codememory.bus.consumer import (
    ACK,
    BatchHandler,
    ConsumerRunner,
    ConsumerSpec,
    Delivery,
    Outcome,
    Verdict,
    dead,
    publish_dead_letter,
)
from codememory.bus.errors import BusError, Poison, Retryable
from codememory.bus.eventlog import JetStreamEventLog, follow
from codememory.bus.streams import DLQ, HOOKS, LOG, StreamSettings, ensure_streams, stream_configs

__all__ = [
    "ACK",
    "DLQ",
    "HOOKS",
    "LOG",
    "BatchHandler",
    "BusError",
    "ConsumerRunner",
    "ConsumerSpec",
    "Delivery",
    "JetStreamEventLog",
    "Outcome",
    "Poison",
    "Retryable",
    "StreamSettings",
    "Verdict",
    "dead",
    "ensure_streams",
    "follow",
    "publish_dead_letter",
    "stream_configs",
]
