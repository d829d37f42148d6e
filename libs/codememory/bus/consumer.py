"""A durable pull consumer that turns handler outcomes into ack / nak / DLQ, in one place.

Handlers see plain ``Delivery`` values (no NATS types) and return one ``Outcome`` per delivery, or
raise ``Retryable`` / ``Poison`` for the whole batch. Anything else a handler raises is logged and the
batch is retried; after ``max_deliver`` attempts a message goes to the DLQ with the reason. So a
consumer never crashes on bad input, and nothing acknowledged is lost: a message is acked only after
its results were appended (or it was parked in the DLQ).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import structlog
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory.bus.errors import Poison, Retryable

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Delivery:
    seq: int
    subject: str
    data: bytes
    attempt: int


class Verdict(Enum):
    ACK = "ack"
    RETRY = "retry"
    DEAD = "dead"


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    reason: str = ""


ACK = Outcome(Verdict.ACK)
BatchHandler = Callable[[Sequence[Delivery]], Awaitable[Sequence[Outcome]]]


def dead(reason: str) -> Outcome:
    return Outcome(Verdict.DEAD, reason)


@dataclass(frozen=True, kw_only=True)
class ConsumerSpec:
    stream: str
    durable: str
    filter_subject: str
    batch: int = 64
    max_deliver: int = 5
    ack_wait_s: float = 60.0
    fetch_timeout_s: float = 0.5


class ConsumerRunner:
    """Fetches batches for one durable consumer and settles every message."""

    def __init__(
        self, js: JetStreamContext, spec: ConsumerSpec, handler: BatchHandler, *, service: str
    ) -> None:
        self._js = js
        self._spec = spec
        self._handler = handler
        self._service = service
        self._stopping = asyncio.Event()
        self.processed = 0

    async def _subscribe(self) -> object:
        config = ConsumerConfig(
            durable_name=self._spec.durable,
            ack_policy=AckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL,
            max_deliver=self._spec.max_deliver + 1,
            ack_wait=self._spec.ack_wait_s,
            filter_subject=self._spec.filter_subject,
            max_ack_pending=max(1000, self._spec.batch * 4),
        )
        return await self._js.pull_subscribe(
            self._spec.filter_subject, durable=self._spec.durable, stream=self._spec.stream, config=config
        )

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        sub = await self._subscribe()
        while not self._stopping.is_set():
            try:
                msgs: list[Msg] = await sub.fetch(self._spec.batch, timeout=self._spec.fetch_timeout_s)  # type: ignore[attr-defined]
            except (TimeoutError, NatsTimeoutError):
                continue
            except Exception as exc:  # connection trouble: back off, never die
                if self._stopping.is_set():
                    break
                log.warning("fetch_failed", service=self._service, error=str(exc))
                await asyncio.sleep(0.5)
                continue
            await self.settle(msgs)

    async def settle(self, msgs: Sequence[Msg]) -> None:
        deliveries = [
            Delivery(
                seq=m.metadata.sequence.stream,
                subject=m.subject,
                data=m.data,
                attempt=m.metadata.num_delivered,
            )
            for m in msgs
        ]
        try:
            outcomes = list(await self._handler(deliveries))
            if len(outcomes) != len(deliveries):
                raise RuntimeError(
                    f"handler returned {len(outcomes)} outcomes for {len(deliveries)} messages"
                )
        except Retryable as exc:
            log.warning("batch_retry", service=self._service, error=str(exc))
            outcomes = [Outcome(Verdict.RETRY, str(exc))] * len(deliveries)
        except Poison as exc:
            outcomes = [dead(exc.reason)] * len(deliveries)
        except Exception as exc:
            log.exception("handler_failed", service=self._service)
            outcomes = [Outcome(Verdict.RETRY, f"{type(exc).__name__}: {exc}")] * len(deliveries)
        for msg, delivery, outcome in zip(msgs, deliveries, outcomes, strict=True):
            await self._settle_one(msg, delivery, outcome)

    async def _settle_one(self, msg: Msg, delivery: Delivery, outcome: Outcome) -> None:
        verdict = outcome.verdict
        if verdict is Verdict.RETRY and delivery.attempt >= self._spec.max_deliver:
            verdict, outcome = (
                Verdict.DEAD,
                dead(f"gave up after {delivery.attempt} attempts: {outcome.reason}"),
            )
        if verdict is Verdict.ACK:
            await msg.ack()
            self.processed += 1
        elif verdict is Verdict.RETRY:
            await msg.nak(delay=min(0.2 * 2**delivery.attempt, 10.0))
        else:
            await publish_dead_letter(self._js, self._service, self._spec.stream, delivery, outcome.reason)
            await msg.ack()
            log.warning("dead_lettered", service=self._service, seq=delivery.seq, reason=outcome.reason)


async def publish_dead_letter(
    js: JetStreamContext, service: str, stream: str, delivery: Delivery, reason: str
) -> None:
    await js.publish(
        f"cm.dlq.{service}",
        delivery.data,
        headers={
            "Nats-Msg-Id": f"{service}:{stream}:{delivery.seq}",
            "CM-Reason": reason[:1000].replace("\r", " ").replace("\n", " "),
            "CM-Stream": stream,
            "CM-Seq": str(delivery.seq),
            "CM-Subject": delivery.subject,
        },
    )
