"""An import's wait for its dense vectors (``embedwait``), driven through ``ImportRun.finish`` over an
in-memory log and a real Edge shard, the embed handler writing the vectors."""

from __future__ import annotations

import asyncio

import pytest
from importkit import import_run, imported_memories  # type: ignore[import-not-found]
from wordhash import WordHashEmbedder  # type: ignore[import-not-found]

from codememory.bus import Delivery
from codememory.embed.handler import EmbedHandler
from codememory.events import decode_envelope
from codememory.gateway.core import GatewayCore
from codememory.memory import point_ids


async def test_waits_for_every_dense_vector(core: GatewayCore) -> None:
    run = import_run(core)
    await run.add(imported_memories(40))
    log = core.event_log
    embedder = EmbedHandler(log, WordHashEmbedder())

    async def embed_later() -> None:
        await asyncio.sleep(0.3)
        records = [r async for r in log.read(1)]
        await embedder([Delivery(seq=r.seq, subject=r.subject, data=r.data, attempt=1) for r in records])

    task = asyncio.create_task(embed_later())
    tally = await run.finish(wait_embedded=True, timeout_s=10)
    await task
    assert tally.embedded
    points = await asyncio.to_thread(core.live.projection.index.get, point_ids("t1", run._new), True)
    assert len(points) == 40 and all(p.dense is not None for p in points)


async def test_vectors_are_waited_for_a_window_at_a_time_and_one_stuck_memory_hides_nothing(
    core: GatewayCore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codememory.gateway import embedwait

    monkeypatch.setattr(embedwait, "EMBED_CHECK", 4)
    monkeypatch.setattr(embedwait, "EMBED_STALL_S", 1.0)
    read: list[int] = []
    index = core.live.projection.index
    real_get = index.get
    monkeypatch.setattr(index, "get", lambda ids, *a: (read.append(len(ids)), real_get(ids, *a))[1])
    run = import_run(core)
    await run.add(imported_memories(20))
    await run._appended()  # the batch is in the log (``add`` returns while it is appended)
    log = core.event_log
    embedder = EmbedHandler(log, WordHashEmbedder())
    records = [r async for r in log.read(1)]
    first = run._new[0]
    # every memory but the first gets its vector, a little later
    rest = [r for r in records if getattr(decode_envelope(r.data).payload, "memory_id", "") != first]
    assert len(rest) == 19

    async def embed_later() -> None:
        await asyncio.sleep(0.3)
        await embedder([Delivery(seq=r.seq, subject=r.subject, data=r.data, attempt=1) for r in rest])

    task = asyncio.create_task(embed_later())
    read.clear()  # the import's own check for existing memories read all 20 at once
    tally = await run.finish(wait_embedded=True, timeout_s=10)
    await task
    assert not tally.embedded  # the stuck one: given up on after the stall, not waited on forever
    assert read and max(read) <= 4  # never more than a window per look
    points = await asyncio.to_thread(real_get, point_ids("t1", run._new[1:]))
    assert all(p.payload["embedded_digest"] == p.payload["text_digest"] for p in points)


async def _held_while_vectors_arrive(
    core: GatewayCore, monkeypatch: pytest.MonkeyPatch, hold_s: float, timeout_s: float
) -> bool:
    """Import 10 memories, then hold the projection (as an optimize does) for ``hold_s`` while their
    vectors are appended to LOG: whether the import's wait got them all."""
    from codememory.gateway import embedwait

    monkeypatch.setattr(embedwait, "EMBED_STALL_S", 0.3)
    run = import_run(core)
    await run.add(imported_memories(10))
    await run._appended()
    log = core.event_log
    records = [r async for r in log.read(1)]
    await core.live.wait_for(records[-1].seq, 5)
    embedder = EmbedHandler(log, WordHashEmbedder())

    async def optimize_and_embed() -> None:
        async with core.live.lock:
            await embedder([Delivery(seq=r.seq, subject=r.subject, data=r.data, attempt=1) for r in records])
            await asyncio.sleep(hold_s)

    task = asyncio.create_task(optimize_and_embed())
    await asyncio.sleep(0.05)  # the lock is taken before the wait starts
    tally = await run.finish(wait_embedded=True, timeout_s=timeout_s)
    await task
    return tally.embedded


async def test_vectors_held_back_by_a_busy_projection_are_still_waited_for(
    core: GatewayCore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the vectors are in LOG for 1.2 s, four times the stall, before the projection can fold them
    assert await _held_while_vectors_arrive(core, monkeypatch, hold_s=1.2, timeout_s=10)


async def test_a_projection_held_longer_than_the_time_left_is_given_up_on(
    core: GatewayCore, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not await _held_while_vectors_arrive(core, monkeypatch, hold_s=1.5, timeout_s=0.6)
