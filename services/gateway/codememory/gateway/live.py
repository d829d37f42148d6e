"""The live projection: one ``MemoryProjection`` that can be followed, waited on, and swapped by replay.

Writers wait here for their event's sequence to be applied (read-your-writes: a stored memory is
recallable when Store returns). Replay builds a new projection beside the live one and swaps it in
under the lock, so recall never sees a half-built index.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import structlog

from codememory.events import Envelope, EventDecodeError, LogRecord, decode_envelope
from codememory.memory import MemoryProjection

log = structlog.get_logger(__name__)


class LiveProjection:
    def __init__(self, projection: MemoryProjection) -> None:
        self.projection = projection
        self.lock = asyncio.Lock()
        self._advanced = asyncio.Condition()
        self.undecodable = 0
        self.unoptimized = 0  # events applied since the index last built its search structures

    @property
    def seq(self) -> int:
        return self.projection.last_seq

    def decode(self, records: Iterable[LogRecord]) -> list[tuple[int, Envelope]]:
        decoded = []
        for record in records:
            try:
                decoded.append((record.seq, decode_envelope(record.data)))
            except EventDecodeError as exc:
                self.undecodable += 1
                log.warning("undecodable_event", seq=record.seq, reason=str(exc))
        return decoded

    async def apply(self, records: list[LogRecord]) -> None:
        decoded = self.decode(records)
        async with self.lock:
            self.unoptimized += await asyncio.to_thread(self.projection.apply_batch, decoded)
            if records and records[-1].seq > self.projection.last_seq:
                self.projection.position.save(records[-1].seq)  # undecodable tail: still moved past it
        async with self._advanced:
            self._advanced.notify_all()

    async def optimize(self, at_least: int) -> bool:
        """Build the index's search structures once enough was written; applying waits, reads do not."""
        if self.unoptimized < at_least:
            return False
        async with self.lock:
            self.unoptimized = 0
            await asyncio.to_thread(self.projection.index.optimize)
        return True

    async def wait_for(self, seq: int, timeout: float) -> bool:
        async def reached() -> None:
            async with self._advanced:
                await self._advanced.wait_for(lambda: self.seq >= seq)

        try:
            await asyncio.wait_for(reached(), timeout)
        except TimeoutError:
            return False
        return True

    async def swap(self, projection: MemoryProjection) -> MemoryProjection:
        """Replace the projection (caller holds ``lock``); returns the old one for closing."""
        old, self.projection = self.projection, projection
        async with self._advanced:
            self._advanced.notify_all()
        return old
