"""Settling a batch: handler outcomes become ack / nak / dead-letter, here and nowhere else.

The rules, each one a fault the tests cause:

- ``Retryable`` (a dependency is down: LOG full, the server gone) naks the whole batch with a growing
  delay and never dead-letters: a good message waits out any outage.
- Any other exception from the handler is a bug or a poison message hiding in the batch, so the batch
  is split and every delivery is handled on its own: its neighbours are acked, and only the message
  that still fails is retried and, after ``max_deliver`` attempts, dead-lettered with the reason.
- ``Poison`` dead-letters what it was raised for at once.
- A failing ack or DLQ publish is logged and the loop goes on: an unacked message is redelivered
  (handlers are idempotent by deterministic event ids) and a message whose dead letter could not be
  published is nak'ed, never acked.
- A batch the handler is still working on is not delivered again: every ``progress_s`` (a third of
  the consumer's ack wait) its messages are marked in progress, which restarts the server's ack
  timer (a batch of a repository's files can take minutes to embed).
- A batch whose handling is cancelled (the service stops while it works, after the broker's stop
  wait: ``bus.app.stop_wait_s``) is handed back: every message is nak'ed without delay, so another
  replica, or this one once restarted, takes it at once instead of after the ack wait.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Protocol

import structlog

from codememory.bus.errors import Poison, Retryable
from codememory.bus.outcomes import BatchHandler, Delivery, Outcome, Verdict, dead
from codememory.metrics import ConsumerMetrics

log = structlog.get_logger(__name__)


class RawMessage(Protocol):
    """The parts of a nats-py ``Msg`` the settler uses (FastStream's test messages have them too)."""

    subject: str
    data: bytes
    headers: dict[str, str] | None

    async def ack(self) -> None: ...
    async def nak(self, delay: float | None = None) -> None: ...
    async def in_progress(self) -> None: ...


class DeadLetters(Protocol):
    async def park(self, delivery: Delivery, reason: str) -> None: ...


def backoff(attempt: int, *, base: float = 0.25, cap: float = 15.0) -> float:
    """Seconds before redelivery: doubling from ``base`` per attempt, at most ``cap``."""
    return float(min(base * 2.0 ** max(attempt - 1, 0), cap))


def delivery_of(msg: RawMessage) -> Delivery:
    """A ``Delivery`` from a JetStream message; a redriven dead letter keeps its original subject."""
    headers = msg.headers or {}
    try:
        meta = msg.metadata  # type: ignore[attr-defined]
        seq, attempt = int(meta.sequence.stream), int(meta.num_delivered)
        received_as = f"{meta.stream}:{seq}"
    except Exception:  # not a JetStream message (FastStream's TestNatsBroker): first delivery
        seq, attempt, received_as = 0, 1, ""
    if "CM-Subject" in headers:
        return Delivery(
            seq=int(headers.get("CM-Seq", "0") or 0),
            subject=headers["CM-Subject"],
            data=msg.data,
            attempt=attempt,
            received_as=received_as,
            origin_stream=headers.get("CM-Stream", ""),
        )
    return Delivery(seq=seq, subject=msg.subject, data=msg.data, attempt=attempt, received_as=received_as)


class Settler:
    """Runs a batch handler over raw messages and settles every one of them."""

    def __init__(
        self,
        handler: BatchHandler,
        dead_letters: DeadLetters,
        *,
        service: str,
        max_deliver: int = 5,
        consumer: str = "",
        progress_s: float = 0.0,
    ) -> None:
        self._handler = handler
        self._dead_letters = dead_letters
        self._service = service
        self._max_deliver = max_deliver
        self._progress_s = progress_s  # 0: never marked in progress
        self.acked = 0
        self.retried = 0
        self.dead_lettered = 0
        self._metrics = ConsumerMetrics(service, consumer)  # the one place every service's messages count

    async def settle(self, msgs: Sequence[RawMessage]) -> None:
        with self._metrics.batch(msgs):
            deliveries = [delivery_of(m) for m in msgs]
            try:
                async with self._in_progress(msgs):
                    outcomes = await self._outcomes(deliveries)
            except asyncio.CancelledError:
                await self._hand_back(msgs)
                raise
            for msg, delivery, outcome in zip(msgs, deliveries, outcomes, strict=True):
                try:
                    await self._settle_one(msg, delivery, outcome)
                except Exception as exc:  # the loop must outlive a failing ack: redelivery makes it whole
                    self._metrics.settle_failed()
                    log.warning("settle_failed", service=self._service, seq=delivery.seq, error=repr(exc))

    async def _hand_back(self, msgs: Sequence[RawMessage]) -> None:
        """Nak a cancelled batch at once; nothing of it was acknowledged. A nak that fails (the
        connection is closing) leaves the message to the server's ack wait, as before."""
        handed = 0
        for msg in msgs:
            try:
                await msg.nak()
                handed += 1
            except Exception:  # the ack wait redelivers it: nothing is lost
                continue
        log.info("stopped_mid_batch", service=self._service, size=len(msgs), handed_back=handed)

    @contextlib.asynccontextmanager
    async def _in_progress(self, msgs: Sequence[RawMessage]) -> AsyncIterator[None]:
        """While the handler works, mark the batch in progress every ``progress_s`` seconds."""
        if self._progress_s <= 0:
            yield
            return

        async def mark() -> None:
            while True:
                await asyncio.sleep(self._progress_s)
                try:
                    for msg in msgs:
                        await msg.in_progress()
                except Exception as exc:  # the server redelivers at worst: work done twice, not lost
                    log.warning("in_progress_failed", service=self._service, error=repr(exc))
                    return

        task = asyncio.create_task(mark())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _outcomes(self, deliveries: list[Delivery]) -> list[Outcome]:
        try:
            return self._checked(await self._handler(deliveries), deliveries)
        except Retryable as exc:
            log.warning("batch_transient", service=self._service, size=len(deliveries), error=str(exc))
            return [Outcome(Verdict.TRANSIENT, str(exc))] * len(deliveries)
        except Poison as exc:
            if len(deliveries) == 1:
                return [dead(exc.reason)]
            return await self._one_by_one(deliveries)
        except Exception as exc:
            if len(deliveries) == 1:
                log.exception("handler_failed", service=self._service, seq=deliveries[0].seq)
                return [Outcome(Verdict.RETRY, f"{type(exc).__name__}: {exc}")]
            log.warning(
                "batch_failed_splitting", service=self._service, size=len(deliveries), error=repr(exc)
            )
            return await self._one_by_one(deliveries)

    async def _one_by_one(self, deliveries: list[Delivery]) -> list[Outcome]:
        """Isolate what failed: one poison message never drags its batch-mates into the DLQ."""
        outcomes: list[Outcome] = []
        for delivery in deliveries:
            outcomes.extend(await self._outcomes([delivery]))
        return outcomes

    @staticmethod
    def _checked(outcomes: Sequence[Outcome], deliveries: list[Delivery]) -> list[Outcome]:
        if len(outcomes) != len(deliveries):
            raise RuntimeError(f"handler returned {len(outcomes)} outcomes for {len(deliveries)} messages")
        return list(outcomes)

    async def _settle_one(self, msg: RawMessage, delivery: Delivery, outcome: Outcome) -> None:
        verdict, reason = outcome.verdict, outcome.reason
        if verdict is Verdict.RETRY and delivery.attempt >= self._max_deliver:
            verdict, reason = Verdict.DEAD, f"gave up after {delivery.attempt} attempts: {reason}"
        if verdict is Verdict.ACK:
            await msg.ack()
            self.acked += 1
            self._metrics.acked()
        elif verdict in (Verdict.RETRY, Verdict.TRANSIENT):
            await msg.nak(delay=backoff(delivery.attempt))
            self.retried += 1
            self._metrics.retried()
        else:
            try:
                await self._dead_letters.park(delivery, reason)
            except Exception as exc:
                log.warning("dead_letter_failed", service=self._service, seq=delivery.seq, error=repr(exc))
                self._metrics.settle_failed()
                await msg.nak(delay=backoff(delivery.attempt))
                self._metrics.retried()
                return
            await msg.ack()
            self.dead_lettered += 1
            self._metrics.dead_lettered()
            log.warning("dead_lettered", service=self._service, seq=delivery.seq, reason=reason)
