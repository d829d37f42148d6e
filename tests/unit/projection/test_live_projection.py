"""The runner over the real memory projection: poison passed and parked, waits, rebuild with poison in LOG."""

from __future__ import annotations

import asyncio
import math
import threading
import uuid
from pathlib import Path

import pytest

from codememory.events import (
    Event,
    InMemoryEventLog,
    LogRecord,
    MemoryEmbedded,
    MemoryStored,
    encode_envelope,
    new_envelope,
)
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position, memory_id_of, point_ids, text_digest
from codememory.projection import LiveProjection, Poisoned
from codememory.projection.port import Decoded
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest

DIM = 8
A, B = str(uuid.UUID(int=1)), str(uuid.UUID(int=2))


class Sink:
    def __init__(self, fail: bool = False) -> None:
        self.parked: list[Poisoned] = []
        self._fail = fail

    async def park(self, poisoned: Poisoned) -> None:
        if self._fail:
            raise ConnectionError("the DLQ is away")
        self.parked.append(poisoned)


def _projection(path: Path) -> MemoryProjection:
    return MemoryProjection(
        EdgeVectorIndex(path / "shard", DIM), SparseEncoder(), Position(path / "position.json")
    )


def _vec(size: int) -> tuple[float, ...]:
    return tuple(1 / math.sqrt(size) for _ in range(size))


def _events() -> list[Event]:
    return [
        MemoryStored(memory_id=A, text="tokens are validated in middleware"),
        MemoryEmbedded(
            memory_id=A,
            model="m",
            text_digest=text_digest("tokens are validated in middleware"),
            vector=_vec(3),
        ),
        MemoryStored(memory_id=B, text="retry budget is three"),
        MemoryEmbedded(
            memory_id=B, model="m", text_digest=text_digest("retry budget is three"), vector=_vec(DIM)
        ),
    ]


async def _log(events: list[Event]) -> InMemoryEventLog:
    log = InMemoryEventLog()
    await log.append([new_envelope(e, event_id=f"e{i}", tenant="t") for i, e in enumerate(events)])
    log.records.insert(2, LogRecord(seq=0, subject="cm.log.t.memory.stored", data=b"\xff not json"))
    log.records = [LogRecord(seq=i, subject=r.subject, data=r.data) for i, r in enumerate(log.records, 1)]
    return log


async def test_poison_is_passed_counted_and_parked_and_the_rest_applied(tmp_path: Path) -> None:
    log, sink = await _log(_events()), Sink()
    live = LiveProjection(_projection(tmp_path), name="memory", poison=sink)
    applied = await live.apply([r async for r in log.read(1)])
    assert applied == 3 and live.seq == 5 and live.poisoned == 2
    assert [(p.seq, p.projection) for p in sink.parked] == [(2, "memory"), (3, "memory")]
    assert "has 3 dimensions, the index expects 8" in sink.parked[0].reason
    assert sink.parked[1].reason.startswith("memory: undecodable") and sink.parked[1].data == b"\xff not json"
    points = {
        memory_id_of(p): p for p in live.projection.index.get(point_ids("t", [A, B]), with_vectors=True)
    }
    assert points[A].dense is None and points[A].payload["text"] == "tokens are validated in middleware"
    assert points[B].dense is not None
    assert Position(tmp_path / "position.json").poisoned == 2  # saved with each poison event
    live.projection.sync()  # the applied events' position: saved at the next flush
    again = Position(tmp_path / "position.json")
    assert (again.seq, again.poisoned) == (5, 2)  # the count survives a restart
    live.projection.index.close()


async def test_a_failing_sink_does_not_stop_the_projection(tmp_path: Path) -> None:
    log = await _log(_events())
    live = LiveProjection(_projection(tmp_path), poison=Sink(fail=True))
    assert await live.apply([r async for r in log.read(1)]) == 3 and live.seq == 5
    live.projection.index.close()


async def test_writers_wait_for_their_sequence(tmp_path: Path) -> None:
    log = await _log(_events())
    live = LiveProjection(_projection(tmp_path))
    waiting = asyncio.create_task(live.wait_for(4, 5.0))
    assert not await live.wait_for(4, 0.05)
    await live.apply([r async for r in log.read(1)])
    assert await waiting
    live.projection.index.close()


async def test_rebuild_passes_the_same_poison_and_swaps_in_an_equal_projection(tmp_path: Path) -> None:
    log, sink = await _log(_events()), Sink()
    live = LiveProjection(_projection(tmp_path / "live"), poison=sink)
    await live.apply([r async for r in log.read(1)])
    before = index_digest(live.projection.index, IndexFilter())
    rebuilt = await live.rebuild(
        log, _projection(tmp_path / "fresh"), chunk=2, prepare=lambda p: p.index.optimize()
    )
    rebuilt.old.index.close()
    assert rebuilt.events == 3 and rebuilt.poisoned == 2 and live.seq == 5
    assert index_digest(live.projection.index, IndexFilter()) == before
    assert [p.seq for p in sink.parked] == [2, 3, 2, 3]  # the sink dedupes by sequence (the DLQ's message id)
    live.projection.index.close()


async def test_a_fresh_record_after_the_position_is_followed(tmp_path: Path) -> None:
    log = await _log(_events())
    live = LiveProjection(_projection(tmp_path))
    records = [r async for r in log.read(1)]
    await live.apply(records[:2])
    await live.apply(records)  # a follower restarted from an older position: nothing twice
    extra = new_envelope(MemoryStored(memory_id=str(uuid.UUID(int=3)), text="new"), event_id="x", tenant="t")
    await live.apply([LogRecord(seq=6, subject="s", data=encode_envelope(extra))])
    assert live.seq == 6 and live.poisoned == 2
    assert live.projection.index.count(IndexFilter()) == 3
    live.projection.index.close()


class HeldProjection:
    """The real memory projection, whose ``apply_batch`` waits for a signal (a fold in its thread)."""

    def __init__(self, inner: MemoryProjection) -> None:
        self.inner = inner
        self.entered = threading.Event()
        self.release = threading.Event()
        self.concurrent = 0
        self._running = 0

    @property
    def last_seq(self) -> int:
        return self.inner.last_seq

    @property
    def poisoned(self) -> int:
        return self.inner.poisoned

    def apply_batch(self, decoded: Decoded) -> int:
        self._running += 1
        self.concurrent = max(self.concurrent, self._running)
        self.entered.set()
        self.release.wait(10)
        try:
            return self.inner.apply_batch(decoded)
        finally:
            self._running -= 1

    def skip(self, seq: int) -> None:
        self.inner.skip(seq)

    def save_position(self, seq: int) -> None:
        self.inner.save_position(seq)


async def test_a_follower_cancelled_mid_fold_holds_the_lock_until_its_thread_is_done(tmp_path: Path) -> None:
    log = await _log(_events())
    held = HeldProjection(_projection(tmp_path))
    live = LiveProjection(held)
    records = [r async for r in log.read(1)]
    first = asyncio.create_task(live.apply(records))
    await asyncio.to_thread(held.entered.wait, 5)
    first.cancel()
    await asyncio.sleep(0.05)
    assert not first.done() and live.lock.locked()  # the thread still folds: the lock is not let go
    restarted = asyncio.create_task(live.apply(records))  # what a restarted follower does at once
    held.release.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert await restarted == 0  # it waited for the lock and found every record applied already
    assert held.concurrent == 1 and live.seq == 5
    assert live.projection.inner.index.count(IndexFilter()) == 2
    held.inner.index.close()


async def test_a_swapped_out_projection_is_released_only_once_its_reads_are_done(tmp_path: Path) -> None:
    """A recall that takes longer than the grace (a busy machine) keeps the old projection open."""
    live = LiveProjection(_projection(tmp_path / "old"), name="memory")
    old = live.projection
    started, finish = threading.Event(), threading.Event()

    def slow(projection: MemoryProjection) -> int:
        started.set()
        finish.wait(5)
        return len(list(projection.index.scroll(IndexFilter())))

    reading = asyncio.create_task(live.read_held(slow))
    await asyncio.to_thread(started.wait, 5)
    async with live.lock:
        assert await live.swap(_projection(tmp_path / "new")) is old
    release = asyncio.create_task(live.released(old, grace_s=0.0))
    await asyncio.sleep(0.2)
    assert not release.done()  # the read still holds it
    finish.set()
    assert await reading == 0
    assert await asyncio.wait_for(release, 2) is True
    assert await live.released(live.projection, grace_s=0.0, at_most_s=0.1) is True  # nothing reads it


async def test_a_cancelled_read_holds_its_projection_until_its_thread_returns(tmp_path: Path) -> None:
    live = LiveProjection(_projection(tmp_path), name="memory")
    old = live.projection
    started, finish = threading.Event(), threading.Event()

    def slow(projection: MemoryProjection) -> None:
        started.set()
        finish.wait(5)

    reading = asyncio.create_task(live.read_held(slow))
    await asyncio.to_thread(started.wait, 5)
    reading.cancel()
    await asyncio.sleep(0.05)
    assert await live.released(old, grace_s=0.0, at_most_s=0.1) is False  # the thread still runs
    finish.set()
    with pytest.raises(asyncio.CancelledError):
        await reading
    assert await live.released(old, grace_s=0.0, at_most_s=1.0) is True
