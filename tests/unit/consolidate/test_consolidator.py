"""The consolidator over an in-memory LOG: a requested cycle waits for LOG, writes, and sees its writes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from consolidatekit import Log, at_angle, unit  # type: ignore[import-not-found]

from codememory.consolidate.consolidator import Consolidator
from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.view import ConsolidationView
from codememory.events import InMemoryEventLog, MemoryScope, MemoryStored
from codememory.projection import LiveProjection, poll


@contextlib.asynccontextmanager
async def _consolidating(history: Log, wait_s: float) -> AsyncIterator[Consolidator]:
    """A consolidator whose view follows an in-memory LOG holding ``history``."""
    event_log = InMemoryEventLog()
    await event_log.append([envelope for _, envelope in history.records])
    live = LiveProjection(ConsolidationView(), name="consolidate")
    follower = asyncio.create_task(poll(event_log, live))
    try:
        yield Consolidator(live, event_log, ConsolidationPolicy(), wait_s=wait_s)
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower


async def test_a_requested_cycle_records_its_conclusions_once() -> None:
    history = Log("t")
    old = history.stored("The API listens on port 8080", unit(1))
    new = history.stored("The API listens on port 9090 from now on", at_angle(0.85))
    async with _consolidating(history, wait_s=5) as consolidator:
        live = consolidator.live
        report = await consolidator.run("t")
        assert report.superseded == 1 and not report.error
        assert live.seq >= report.last_seq  # its own events are folded before it returns
        assert live.projection.tenant("t").memories[old].state == "superseded"
        assert live.projection.tenant("t").memories[new].state == "active"
        assert consolidator.due() == []
        again = await consolidator.run("t")
        assert again.superseded == 0


async def test_a_cycle_says_how_many_memories_it_left_out_for_want_of_a_vector() -> None:
    history = Log("t")
    history.stored("The API listens on port 8080", unit(1))
    history.add(MemoryStored(memory_id="u", text="tests run with make check", scope=MemoryScope(repo="r")))
    async with _consolidating(history, wait_s=0.5) as consolidator:
        report = await consolidator.run("t")  # waits half a second for the vector, then goes on
        assert report.without_vectors == 1 and not report.error
