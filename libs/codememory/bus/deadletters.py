"""The DLQ: park what a service cannot process (with the reason), list it, and put it back.

A dead letter is the original bytes on ``cm.dlq.<service>`` with headers saying why and where it came
from. Redriving one publishes it to ``cm.redrive.<service>`` (stream REDRIVE), which every replica of
that service also consumes through the same handler and settler: the normal path, without appending
anything to LOG again (LOG is immutable; a LOG consumer's dead letter cannot be re-appended). A
redriven message leaves the DLQ once REDRIVE has stored it.

What is parked is redacted first (``codememory.redaction``): a message that never went through the
hook's redaction (published straight onto HOOKS) and could not be processed must not keep its
secrets in the DLQ, which is kept without age limit. Bytes that are not UTF-8 are kept as they are
around what is redacted (``surrogateescape``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus.outcomes import Delivery
from codememory.redaction import redact_text
from codememory.topology import DLQ, REDRIVE


@dataclass(frozen=True)
class DeadLetter:
    seq: int  # in the DLQ stream
    service: str
    reason: str
    stream: str  # where the message came from
    source_seq: int
    subject: str  # its original subject
    data: bytes
    parked_at: datetime | None


class JetStreamDeadLetters:
    """Parks a service's dead letters in the DLQ stream, once per source message (``Nats-Msg-Id``)."""

    def __init__(self, js: JetStreamContext, *, service: str, stream: str) -> None:
        self._js = js
        self._service = service
        self._stream = stream

    async def park(self, delivery: Delivery, reason: str) -> None:
        await self._js.publish(
            subjects.dead_letter(self._service),
            scrubbed(delivery.data),
            stream=DLQ,
            headers={
                "Nats-Msg-Id": f"{self._service}:{delivery.received_as or delivery.seq}",
                "CM-Reason": redact_text(reason[:1000]).replace("\r", " ").replace("\n", " "),
                "CM-Service": self._service,
                "CM-Stream": delivery.origin_stream or self._stream,
                "CM-Seq": str(delivery.seq),
                "CM-Subject": delivery.subject,
            },
        )


def scrubbed(data: bytes) -> bytes:
    """``data`` with every secret the redactor finds replaced by its marker; other bytes unchanged."""
    text = data.decode("utf-8", "surrogateescape")
    redacted = redact_text(text)
    return data if redacted == text else redacted.encode("utf-8", "surrogateescape")


class InMemoryDeadLetters:
    """Dead letters in a list, beside the real ones: for handler tests on FastStream's TestNatsBroker."""

    def __init__(self) -> None:
        self.parked: list[tuple[Delivery, str]] = []

    async def park(self, delivery: Delivery, reason: str) -> None:
        self.parked.append((delivery, reason))


async def dead_letters(js: JetStreamContext, *, service: str = "") -> AsyncIterator[DeadLetter]:
    """Every dead letter in the DLQ (of one service when given), oldest first."""
    info = await js.stream_info(DLQ)
    if not info.state.messages:
        return
    subject = subjects.dead_letter(service) if service else subjects.DLQ_ALL
    sub = await js.pull_subscribe(
        subject,
        stream=DLQ,
        config=ConsumerConfig(
            deliver_policy=DeliverPolicy.ALL, ack_policy=AckPolicy.NONE, inactive_threshold=30.0
        ),
    )
    last = int(info.state.last_seq)
    try:
        while True:
            try:
                msgs = await sub.fetch(256, timeout=0.5)
            except (TimeoutError, NatsTimeoutError):
                return
            for msg in msgs:
                headers = msg.headers or {}
                meta = msg.metadata
                yield DeadLetter(
                    seq=int(meta.sequence.stream),
                    service=headers.get("CM-Service") or msg.subject.rsplit(".", 1)[-1],
                    reason=headers.get("CM-Reason", ""),
                    stream=headers.get("CM-Stream", ""),
                    source_seq=int(headers.get("CM-Seq", "0") or 0),
                    subject=headers.get("CM-Subject", ""),
                    data=msg.data,
                    parked_at=meta.timestamp,
                )
                if meta.sequence.stream >= last:
                    return
    finally:
        await sub.unsubscribe()


async def redrive(js: JetStreamContext, letter: DeadLetter) -> None:
    """Back through the normal path of its service; then out of the DLQ."""
    await js.publish(
        subjects.redrive(letter.service),
        letter.data,
        stream=REDRIVE,
        headers={
            "Nats-Msg-Id": f"redrive:{letter.seq}",
            "CM-Subject": letter.subject,
            "CM-Seq": str(letter.source_seq),
            "CM-Stream": letter.stream,
        },
    )
    await js.delete_msg(DLQ, letter.seq)
