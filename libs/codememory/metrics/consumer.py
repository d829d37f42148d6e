"""The counters of one durable consumer, bound once to its labels and fed by the settler.

``bus/settle.py`` is the one place every message of every service passes through (handled, then acked,
retried or dead-lettered), so it is the one place that counts: no service handler counts for itself.
Lag is JetStream's own figure: every delivered message's metadata carries how many messages of the
stream the consumer still has to deliver (``num_pending``), so reading it costs no request.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from codememory.metrics.families import (
    BATCH_SIZE,
    CONSUMER_LAG,
    HANDLER_SECONDS,
    MESSAGES_ACKED,
    MESSAGES_DEAD_LETTERED,
    MESSAGES_HANDLED,
    MESSAGES_RETRIED,
    SETTLE_FAILURES,
)


class ConsumerMetrics:
    """What the settler reports for one (service, consumer)."""

    def __init__(self, service: str, consumer: str) -> None:
        labels = {"service": service, "consumer": consumer or "-"}
        self._handled = MESSAGES_HANDLED.labels(**labels)
        self._acked = MESSAGES_ACKED.labels(**labels)
        self._retried = MESSAGES_RETRIED.labels(**labels)
        self._dead = MESSAGES_DEAD_LETTERED.labels(**labels)
        self._failures = SETTLE_FAILURES.labels(**labels)
        self._batch = BATCH_SIZE.labels(**labels)
        self._seconds = HANDLER_SECONDS.labels(**labels)
        self._lag = CONSUMER_LAG.labels(**labels)

    @contextmanager
    def batch(self, messages: Sequence[object]) -> Iterator[None]:
        """Around handling and settling one batch: its size, its time, the lag it leaves behind (set as
        the batch arrives: a batch can take minutes, and the lag of the one before would stand meanwhile)."""
        started = time.perf_counter()
        self._batch.observe(len(messages))
        self._handled.inc(len(messages))
        lag = pending_after(messages)
        if lag is not None:
            self._lag.set(lag)
        try:
            yield
        finally:
            self._seconds.observe(time.perf_counter() - started)

    def acked(self) -> None:
        self._acked.inc()

    def retried(self) -> None:
        self._retried.inc()

    def dead_lettered(self) -> None:
        self._dead.inc()

    def settle_failed(self) -> None:
        self._failures.inc()


def pending_after(messages: Sequence[object]) -> int | None:
    """``num_pending`` of the batch's last JetStream message; None when there is none to read."""
    if not messages:
        return None
    try:
        return int(messages[-1].metadata.num_pending)  # type: ignore[attr-defined]
    except Exception:  # not a JetStream message (FastStream's test broker): no figure
        return None
