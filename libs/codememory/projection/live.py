"""One live projection: followed from LOG, waited on by writers, rebuilt and swapped by replay.

The memory projection and the code projection both run here (``LiveProjection[MemoryProjection]``,
``LiveProjection[CodeProjection]``), so decoding, isolating poison, read-your-writes waits and the
rebuild-then-swap of replay are written once. Writers wait for their event's sequence (a stored
memory is recallable when Store returns). Replay folds LOG into a fresh projection beside the live
one, catches up under the lock and swaps, so readers never see a half-built index.

Poison events (see ``projection.fold``) are logged, counted by the projection and handed to the
``PoisonSink``; a sink that fails is logged and the projection still moves on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import structlog

from codememory.events import EventLog, LogRecord
from codememory.projection.fold import TRANSIENT, Folded, Transient, fold_records
from codememory.projection.port import Poisoned, PoisonSink, Projection

log = structlog.get_logger(__name__)

P = TypeVar("P", bound=Projection)


@dataclass(frozen=True)
class Rebuilt(Generic[P]):
    old: P  # swapped out: the caller closes what it holds once readers are done with it
    events: int
    poisoned: int
    fold_s: float  # reading LOG and folding it into the fresh projection
    prepare_s: float  # ``prepare`` (the memory index builds its search structures)


class LiveProjection(Generic[P]):
    def __init__(
        self,
        projection: P,
        *,
        name: str = "memory",
        poison: PoisonSink | None = None,
        transient: Transient = TRANSIENT,
    ) -> None:
        self.projection = projection
        self.name = name
        self.lock = asyncio.Lock()
        self._advanced = asyncio.Condition()
        self._poison = poison
        self._transient = transient
        self.unoptimized = 0  # events applied since the index last built its search structures
        self.rebuilding: tuple[int, int] | None = None  # (LOG seq folded, LOG seq to reach) in a rebuild

    @property
    def seq(self) -> int:
        return self.projection.last_seq

    @property
    def poisoned(self) -> int:
        return self.projection.poisoned

    def _fold(self, projection: P, records: Sequence[LogRecord]) -> Folded:
        return fold_records(projection, records, name=self.name, transient=self._transient)

    async def apply(self, records: Sequence[LogRecord]) -> int:
        """Fold what is new in ``records``; returns how many events were applied."""
        async with self.lock:
            folded = await asyncio.to_thread(self._fold, self.projection, records)
            self.unoptimized += folded.applied
        await self._report(folded.poisoned)
        async with self._advanced:
            self._advanced.notify_all()
        return folded.applied

    async def _report(self, poisoned: Sequence[Poisoned]) -> None:
        for event in poisoned:
            log.warning("poison_event", projection=self.name, seq=event.seq, reason=event.reason)
            if self._poison is None:
                continue
            try:
                await self._poison.park(event)
            except Exception as exc:  # counted and logged already: the projection moves on regardless
                log.warning("poison_park_failed", projection=self.name, seq=event.seq, error=repr(exc))

    async def wait_for(self, seq: int, timeout: float) -> bool:
        async def reached() -> None:
            async with self._advanced:
                await self._advanced.wait_for(lambda: self.seq >= seq)

        try:
            await asyncio.wait_for(reached(), timeout)
        except TimeoutError:
            return False
        return True

    async def swap(self, projection: P) -> P:
        """Replace the projection (caller holds ``lock``); returns the old one for closing."""
        old, self.projection = self.projection, projection
        async with self._advanced:
            self._advanced.notify_all()
        return old

    async def rebuild(
        self,
        event_log: EventLog,
        fresh: P,
        *,
        chunk: int = 2000,
        prepare: Callable[[P], object] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Rebuilt[P]:
        """Fold LOG from the start into ``fresh``, ``prepare`` it, catch up under the lock, swap it in.

        Reading the next chunk from LOG overlaps with folding the previous one (in a thread); LOG is
        read in batches (``log_batches``). ``progress(seq, until)`` is told after each chunk.
        """
        started = time.perf_counter()
        until = await event_log.last_seq()
        self.rebuilding = (0, until)
        try:
            return await self._rebuild(event_log, fresh, chunk, until, started, prepare, progress)
        finally:
            self.rebuilding = None

    async def _rebuild(
        self,
        event_log: EventLog,
        fresh: P,
        chunk: int,
        until: int,
        started: float,
        prepare: Callable[[P], object] | None,
        progress: Callable[[int, int], None] | None,
    ) -> Rebuilt[P]:
        chunks: asyncio.Queue[list[LogRecord] | None] = asyncio.Queue(maxsize=2)

        async def read() -> None:
            async for batch in log_batches(event_log, 1, until, chunk):
                await chunks.put(batch)
            await chunks.put(None)

        reader = asyncio.create_task(read())
        events = 0
        try:
            while (records := await chunks.get()) is not None:
                folded = await asyncio.to_thread(self._fold, fresh, records)
                events += folded.applied
                await self._report(folded.poisoned)
                self.rebuilding = (records[-1].seq if records else until, until)
                if progress is not None:
                    progress(*self.rebuilding)
        except BaseException:
            reader.cancel()
            raise
        await reader
        fold_s = time.perf_counter() - started
        if prepare is not None:
            await asyncio.to_thread(prepare, fresh)
        prepare_s = time.perf_counter() - started - fold_s
        async with self.lock:
            until = max(self.seq, fresh.last_seq)
            tail = [r async for r in event_log.read(fresh.last_seq + 1, until_seq=until)]
            folded = await asyncio.to_thread(self._fold, fresh, tail)
            events += folded.applied
            fresh.save_position(self.seq)
            old = await self.swap(fresh)
        await self._report(folded.poisoned)
        return Rebuilt(old=old, events=events, poisoned=fresh.poisoned, fold_s=fold_s, prepare_s=prepare_s)


async def log_batches(
    event_log: EventLog, from_seq: int, until_seq: int, chunk: int
) -> AsyncIterator[list[LogRecord]]:
    """LOG from ``from_seq`` to ``until_seq`` in lists of up to ``chunk``: by the log's own batched
    reader when it has one (``JetStreamEventLog.read_batches``), else by grouping ``read``."""
    batched = getattr(event_log, "read_batches", None)
    if batched is not None:
        async for records in batched(from_seq, until_seq=until_seq, batch=chunk):
            yield records
        return
    batch: list[LogRecord] = []
    async for record in event_log.read(from_seq, until_seq=until_seq):
        batch.append(record)
        if len(batch) >= chunk:
            yield batch
            batch = []
    if batch:
        yield batch


async def poll(event_log: EventLog, live: LiveProjection[Any], every_s: float = 0.005) -> None:
    """Follow any ``EventLog`` into ``live`` by reading what is new every ``every_s`` (until cancelled):
    how an in-memory log is followed; over JetStream, ``bus.follower`` pushes instead."""
    while True:
        records = [r async for r in event_log.read(live.seq + 1)]
        if records:
            await live.apply(records)
        await asyncio.sleep(every_s)


__all__ = ["LiveProjection", "Rebuilt", "log_batches", "poll"]
