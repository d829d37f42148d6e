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
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import structlog

from codememory.events import EventLog, LogRecord
from codememory.projection.fold import TRANSIENT, Folded, Transient, fold_records
from codememory.projection.port import Poisoned, PoisonSink, Projection
from codememory.projection.shared import SharedRead, log_batches

log = structlog.get_logger(__name__)

P = TypeVar("P", bound=Projection)
READERS_S = 2.0  # the grace before a swapped-out index closes: short reads by id are not counted
READERS_MAX_S = 60.0  # the longest a swapped-out projection waits for reads that started on it
T = TypeVar("T")


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
        self.bulk_writers = 0  # bulk imports appending into it now (the gateway's optimize waits longer)
        self.rebuilding: tuple[int, int] | None = None  # (LOG seq folded, LOG seq to reach) in a rebuild
        self._readers: dict[int, int] = {}  # id of a projection: reads of it not yet done
        self._readers_lock = threading.Lock()  # reads end in worker threads

    @property
    def seq(self) -> int:
        return self.projection.last_seq

    async def read_held(self, work: Callable[[P], T]) -> T:
        """``work(projection)`` in a worker thread, the projection held until it returns: a swap
        closes what it replaced only once such reads are done (``released``), however long they take
        on a busy machine. The thread runs to its end although the caller is cancelled meanwhile."""
        projection = self.projection  # taken on the event loop, where swaps happen: never a closed one
        key = id(projection)
        with self._readers_lock:
            self._readers[key] = self._readers.get(key, 0) + 1

        def held() -> T:
            try:
                return work(projection)
            finally:
                with self._readers_lock:
                    left = self._readers.pop(key) - 1
                    if left:
                        self._readers[key] = left

        return await in_thread(held)

    async def released(self, old: P, grace_s: float, at_most_s: float = READERS_MAX_S) -> bool:
        """Once ``old`` (swapped out: nothing new starts on it) may be closed: after ``grace_s`` for
        the short reads that are not counted (a point looked up by id), and until no ``read_held`` holds
        it, at most ``at_most_s``; whether every counted read was done."""
        await asyncio.sleep(grace_s)
        deadline = time.monotonic() + at_most_s
        while self._readers.get(id(old)):
            if time.monotonic() >= deadline:
                log.warning("closing_while_read", projection=self.name, reads=self._readers.get(id(old)))
                return False
            await asyncio.sleep(0.02)
        return True

    @property
    def poisoned(self) -> int:
        return self.projection.poisoned

    def _fold(self, projection: P, records: Sequence[LogRecord]) -> Folded:
        return fold_records(projection, records, name=self.name, transient=self._transient)

    async def apply(self, records: Sequence[LogRecord]) -> int:
        """Fold what is new in ``records``; returns how many events were applied."""
        async with self.lock:
            folded, cancelled = await to_the_end(asyncio.to_thread(self._fold, self.projection, records))
            self.unoptimized += folded.applied
        await self._report(folded.poisoned)
        async with self._advanced:
            self._advanced.notify_all()
        if cancelled:
            raise asyncio.CancelledError
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
        before_swap: Callable[[P], object] | None = None,
        shared: tuple[SharedRead, int] | None = None,
    ) -> Rebuilt[P]:
        """Fold LOG from the start into ``fresh``, ``prepare`` it, catch up under the lock, swap it in
        (``before_swap``: see ``catch_up``).

        LOG is read in batches of ``chunk`` (``log_batches``) ahead of the fold (in a thread), or taken
        from ``shared`` (a ``SharedRead`` and this rebuild's reader in it: one read of LOG for several
        rebuilds). ``progress(seq, until)`` is told after each chunk.
        """
        started = time.perf_counter()
        if shared is None:
            until = await event_log.last_seq()
            read, reader = SharedRead(event_log, 1, until, readers=1, chunk=chunk), 0
        else:
            read, reader = shared
        self.rebuilding = (0, read.until_seq)
        try:
            return await self._rebuild(
                event_log, fresh, read, reader, started, prepare, progress, before_swap
            )
        finally:
            self.rebuilding = None

    async def _rebuild(
        self,
        event_log: EventLog,
        fresh: P,
        read: SharedRead,
        reader: int,
        started: float,
        prepare: Callable[[P], object] | None,
        progress: Callable[[int, int], None] | None,
        before_swap: Callable[[P], object] | None = None,
    ) -> Rebuilt[P]:
        until, events = read.until_seq, 0
        async with contextlib.aclosing(read.reader(reader)) as batches:  # leaves the read when it ends
            async for records in batches:
                folded = await in_thread(self._fold, fresh, records)
                events += folded.applied
                await self._report(folded.poisoned)
                self.rebuilding = (records[-1].seq if records else until, until)
                if progress is not None:
                    progress(*self.rebuilding)
        fold_s = time.perf_counter() - started
        if prepare is not None:
            await in_thread(prepare, fresh)
        prepare_s = time.perf_counter() - started - fold_s
        old, caught_up = await self.catch_up(event_log, fresh, before_swap)
        events += caught_up
        return Rebuilt(old=old, events=events, poisoned=fresh.poisoned, fold_s=fold_s, prepare_s=prepare_s)

    async def catch_up(
        self, event_log: EventLog, fresh: P, before_swap: Callable[[P], object] | None = None
    ) -> tuple[P, int]:
        """Under the lock: fold what LOG holds past ``fresh``'s position into it (what the live one
        applied meanwhile) and swap it in; ``before_swap(fresh)`` runs (in a thread) when both hold the
        same events. Returns the projection swapped out and the events folded."""
        async with self.lock:
            until = max(self.seq, fresh.last_seq)
            tail = [r async for r in event_log.read(fresh.last_seq + 1, until_seq=until)]
            folded = await in_thread(self._fold, fresh, tail)
            fresh.save_position(self.seq)
            if before_swap is not None:
                await in_thread(before_swap, fresh)
            old = await self.swap(fresh)
        await self._report(folded.poisoned)
        return old, folded.applied


async def to_the_end(work: Coroutine[Any, Any, T]) -> tuple[T, bool]:
    """``work`` (a fold in a thread) run to its end although the caller is cancelled meanwhile; returns
    its result and whether a cancellation came, for the caller to raise once its bookkeeping is done.

    A thread cannot be stopped: cancelling ``await asyncio.to_thread(fold)`` would release the lock
    while the fold still moves the projection, and a restarted follower would fold the same records
    again from the position the projection had not yet reached (events applied twice).
    """
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            return await asyncio.shield(task), cancelled
        except asyncio.CancelledError:
            if task.done():  # the work itself was cancelled or raised it
                raise
            cancelled = True


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a thread; a cancellation is raised once it returned (the caller may close what
    it works on)."""
    result, cancelled = await to_the_end(asyncio.to_thread(fn, *args))
    if cancelled:
        raise asyncio.CancelledError
    return result


async def poll(event_log: EventLog, live: LiveProjection[Any], every_s: float = 0.005) -> None:
    """Follow any ``EventLog`` into ``live`` by reading what is new every ``every_s`` (until cancelled):
    how an in-memory log is followed; over JetStream, ``bus.follower`` pushes instead."""
    while True:
        records = [r async for r in event_log.read(live.seq + 1)]
        if records:
            await live.apply(records)
        await asyncio.sleep(every_s)


__all__ = ["READERS_S", "LiveProjection", "Rebuilt", "in_thread", "log_batches", "poll", "to_the_end"]
