"""What a handler sees and what it answers: plain deliveries in, one outcome per delivery out.

Handlers import neither NATS nor FastStream: a ``Delivery`` is the message's bytes, its subject and
where it came from; an ``Outcome`` says ack, retry or dead-letter (with the reason). The settler
(``bus.settle``) is the one place that turns outcomes into ack / nak / DLQ.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class Delivery:
    seq: int  # the source stream's sequence (0 when the message did not come from a stream)
    subject: str  # the original subject, also for a redriven dead letter
    data: bytes
    attempt: int  # 1 on the first delivery
    received_as: str = ""  # ``<stream>:<seq>`` of this very message (a redriven one has its own)
    origin_stream: str = ""  # the stream it first came from, when it was redriven


class Verdict(Enum):
    ACK = "ack"
    RETRY = "retry"  # may fail again for the same reason: counts toward the dead-letter limit
    TRANSIENT = "transient"  # a dependency was unavailable: retried with backoff, never dead-lettered
    DEAD = "dead"


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    reason: str = ""


ACK = Outcome(Verdict.ACK)
BatchHandler = Callable[[Sequence[Delivery]], Awaitable[Sequence[Outcome]]]


def dead(reason: str) -> Outcome:
    return Outcome(Verdict.DEAD, reason)


__all__ = ["ACK", "BatchHandler", "Delivery", "Outcome", "Verdict", "dead"]
