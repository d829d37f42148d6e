"""Poison events of LOG parked in the DLQ as ``cm.dlq.gateway``, once per LOG sequence.

Both projections of every replica meet the same poison event: the dead letter's ``Nats-Msg-Id`` is
``gateway:LOG:<seq>``, so JetStream stores it once while the dedupe window lasts; beyond it (the code
projection is rebuilt from LOG on every start, a replay meets every poison event again) the sink
knows which sequences the DLQ already holds, read once from the DLQ when it first has something to
park. A publish that fails (NATS away) is kept and tried again on the next ``flush`` (the watchdog
calls it every tick). A gateway dead letter is for reading: LOG is immutable, so there is nothing to
redrive; a fixed gateway passes the event again on replay.
"""

from __future__ import annotations

import asyncio

import structlog
from nats.js.client import JetStreamContext

from codememory.bus import Delivery, JetStreamDeadLetters, dead_letters
from codememory.projection import Poisoned
from codememory.topology import GATEWAY, LOG

log = structlog.get_logger(__name__)


class LogDeadLetters:
    """The gateway's ``PoisonSink``."""

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js
        self._letters = JetStreamDeadLetters(js, service=GATEWAY.name, stream=LOG)
        self._parked: set[int] | None = None  # LOG sequences the DLQ holds (read on first use)
        self._pending: dict[int, Poisoned] = {}
        self._lock = asyncio.Lock()
        self.parked = 0  # published by this process

    async def park(self, poisoned: Poisoned) -> None:
        self._pending.setdefault(poisoned.seq, poisoned)
        await self.flush()

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def flush(self) -> None:
        """Publish what is pending; raises (and keeps the rest pending) when the DLQ cannot be reached."""
        if not self._pending:
            return
        async with self._lock:
            if self._parked is None:
                self._parked = {
                    letter.source_seq async for letter in dead_letters(self._js, service=GATEWAY.name)
                }
            for seq in sorted(self._pending):
                poisoned = self._pending[seq]
                if seq not in self._parked:
                    delivery = Delivery(
                        seq=seq,
                        subject=poisoned.subject,
                        data=poisoned.data,
                        attempt=1,
                        received_as=f"{LOG}:{seq}",
                    )
                    await self._letters.park(delivery, poisoned.reason)
                    self._parked.add(seq)
                    self.parked += 1
                    log.warning("poison_parked", seq=seq, reason=poisoned.reason)
                del self._pending[seq]
