"""NATS JetStream plumbing shared by every service: streams, the event log, consumers, the DLQ."""

from codememory.bus.deadletters import (
    DeadLetter,
    InMemoryDeadLetters,
    JetStreamDeadLetters,
    dead_letters,
    redrive,
)
from codememory.bus.errors import BusError, Poison, Retryable
from codememory.bus.eventlog import JetStreamEventLog, follow
from codememory.bus.outcomes import ACK, BatchHandler, Delivery, Outcome, Verdict, dead
from codememory.bus.settle import Settler
from codememory.bus.streams import DLQ, HOOKS, LOG, REDRIVE, StreamSettings, ensure_streams, stream_configs

__all__ = [
    "ACK",
    "DLQ",
    "HOOKS",
    "LOG",
    "REDRIVE",
    "BatchHandler",
    "BusError",
    "DeadLetter",
    "Delivery",
    "InMemoryDeadLetters",
    "JetStreamDeadLetters",
    "JetStreamEventLog",
    "Outcome",
    "Poison",
    "Retryable",
    "Settler",
    "StreamSettings",
    "Verdict",
    "dead",
    "dead_letters",
    "ensure_streams",
    "follow",
    "redrive",
    "stream_configs",
]
