"""One LOG read for several folds: every reader gets every batch once, LOG is read once, a reader that
leaves never stalls the others, a failed read reaches every reader, and two rebuilds share one read
(decoded once)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from codememory.events import InMemoryEventLog, LogRecord, MemoryStored, new_envelope
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import LiveProjection
from codememory.projection.shared import SharedRead
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest


class CountedLog(InMemoryEventLog):
    """An in-memory LOG that counts the records it hands out, and can fail after ``fail_after``."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__()
        self.handed = 0
        self.fail_after = fail_after

    async def read(self, from_seq: int = 1, *, until_seq: int | None = None) -> AsyncIterator[LogRecord]:
        async for record in super().read(from_seq, until_seq=until_seq):
            if self.fail_after is not None and self.handed >= self.fail_after:
                raise ConnectionError("LOG went away")
            self.handed += 1
            yield record


async def _log(n: int, fail_after: int | None = None) -> CountedLog:
    log = CountedLog(fail_after)
    await log.append(
        [
            new_envelope(
                MemoryStored(memory_id=str(uuid.UUID(int=i + 1)), text=f"m{i}"), event_id=f"e{i}", tenant="t"
            )
            for i in range(n)
        ]
    )
    return log


async def _seqs(reader: AsyncIterator[list[LogRecord]], pause_s: float = 0.0) -> list[int]:
    seen = []
    async for batch in reader:
        seen.extend(r.seq for r in batch)
        await asyncio.sleep(pause_s)
    return seen


async def test_every_reader_gets_every_record_in_order_and_log_is_read_once() -> None:
    log = await _log(25)
    read = SharedRead(log, 3, 22, readers=2, chunk=4, ahead=1)
    slow, fast = await asyncio.gather(_seqs(read.reader(0), 0.01), _seqs(read.reader(1)))
    assert slow == fast == list(range(3, 23))
    assert log.handed == 20 and read.batches == 5
    with pytest.raises(ValueError):
        read.reader(0)  # each reader once


async def test_a_reader_that_leaves_does_not_stall_the_others_and_the_last_one_stops_the_read() -> None:
    log = await _log(40)
    read = SharedRead(log, 1, 40, readers=2, chunk=2, ahead=1)

    async def leaves_early() -> None:
        async for _ in read.reader(0):
            raise RuntimeError("its fold failed")

    with pytest.raises(RuntimeError):
        await leaves_early()
    assert await asyncio.wait_for(_seqs(read.reader(1), 0.001), 5) == list(range(1, 41))

    again = SharedRead(log, 1, 40, readers=1, chunk=2, ahead=1)
    reader = again.reader(0)
    assert [r.seq for r in await anext(reader)] == [1, 2]
    await reader.aclose()  # the only reader gone: the read is cancelled, not left waiting for room
    await asyncio.sleep(0.01)
    assert again._pump is not None and again._pump.done() and again.batches < 20


async def test_a_failed_read_is_raised_in_every_reader() -> None:
    log = await _log(10, fail_after=5)
    read = SharedRead(log, 1, 10, readers=2, chunk=2)
    results = await asyncio.gather(_seqs(read.reader(0)), _seqs(read.reader(1)), return_exceptions=True)
    assert all(isinstance(r, ConnectionError) for r in results)


def _projection(path: Path) -> MemoryProjection:
    return MemoryProjection(
        EdgeVectorIndex(path / "shard", 8), SparseEncoder(), Position(path / "position.json")
    )


async def test_two_rebuilds_from_one_read_equal_their_live_projections(tmp_path: Path) -> None:
    log = await _log(30)
    log.records.append(LogRecord(seq=31, subject="cm.log.t.memory.stored", data=b"\xff not json"))
    lives = [LiveProjection(_projection(tmp_path / f"live{i}"), name=f"p{i}") for i in range(2)]
    for live in lives:
        await live.apply([r async for r in log.read(1)])
    before = [index_digest(live.projection.index, IndexFilter()) for live in lives]
    handed = log.handed
    read = SharedRead(log, 1, await log.last_seq(), readers=2, chunk=7)
    rebuilt = await asyncio.gather(
        *(
            live.rebuild(log, _projection(tmp_path / f"fresh{i}"), shared=(read, i))
            for i, live in enumerate(lives)
        )
    )
    assert log.handed - handed == 31  # one read for both (the catch-ups found nothing more)
    assert [(r.events, r.poisoned) for r in rebuilt] == [(30, 1), (30, 1)]  # decoded once, poison to both
    assert [index_digest(live.projection.index, IndexFilter()) for live in lives] == before
    for live, r in zip(lives, rebuilt, strict=True):
        r.old.index.close()
        live.projection.index.close()
