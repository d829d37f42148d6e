"""The gateway's optimize policy over a real Edge shard: every few thousand events, and during a bulk
import only once the events since the last optimize reach the events before it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from wordhash import DIM  # type: ignore[import-not-found]

from codememory.events import InMemoryEventLog, MemoryScope, MemoryStored, new_envelope
from codememory.gateway.optimizing import OptimizePolicy
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import LiveProjection, poll
from codememory.vectorstore import EdgeVectorIndex


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[tuple[LiveProjection[MemoryProjection], InMemoryEventLog]]:
    log = InMemoryEventLog()
    projection = MemoryProjection(EdgeVectorIndex(tmp_path / "shard", DIM), SparseEncoder(), Position(None))
    followed = LiveProjection(projection)
    task = asyncio.create_task(poll(log, followed))
    yield followed, log
    task.cancel()
    projection.index.close()


async def _store(live: LiveProjection[MemoryProjection], log: InMemoryEventLog, n: int, at: int) -> None:
    envelopes = [
        new_envelope(
            MemoryStored(
                memory_id=f"00000000-0000-4000-8000-{at + i:012d}",
                text=f"fact {at + i}",
                scope=MemoryScope(repo="r"),
            ),
            event_id=f"stored-{at + i}",
            tenant="t1",
        )
        for i in range(n)
    ]
    appended = await log.append(envelopes)
    assert await live.wait_for(appended[-1].seq, 10)


async def test_due_after_so_many_events_and_during_an_import_once_the_shard_doubled(
    live: tuple[LiveProjection[MemoryProjection], InMemoryEventLog],
) -> None:
    followed, log = live
    policy = OptimizePolicy(after_events=10)
    await _store(followed, log, 9, 0)
    assert not policy.due(followed)
    await _store(followed, log, 1, 9)
    assert policy.due(followed)
    assert await policy.optimize(followed) >= 0.0
    assert (followed.unoptimized, policy.optimized_seq) == (0, 10)
    await _store(followed, log, 30, 10)
    assert policy.due(followed)
    assert await policy.optimize(followed) >= 0.0 and policy.optimized_seq == 40
    followed.bulk_writers = 1  # an import writes: the next waits for 40 more events, not 10
    await _store(followed, log, 39, 40)
    assert not policy.due(followed)
    await _store(followed, log, 1, 79)
    assert policy.due(followed)
    await policy.optimize(followed)
    await _store(followed, log, 10, 80)
    assert not policy.due(followed)  # 10 of the 80 it waits for now
    followed.bulk_writers = 0  # the import ended: the usual rule again
    assert policy.due(followed)
