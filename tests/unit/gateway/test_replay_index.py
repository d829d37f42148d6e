"""A replay serves its fold at once and swaps in the copy whose HNSW a child built (``indexbuild``).

An in-memory LOG and real Edge shards: the rebuilt generation serves unindexed, a memory written
meanwhile reaches the indexed copy (caught up under the lock), CURRENT names the copy at the end, and
a build that is stopped leaves the serving generation in place.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from wordhash import DIM, WordHashEmbedder  # type: ignore[import-not-found]

from codememory.events import InMemoryEventLog, LogRecord, MemoryScope
from codememory.gateway.core import GatewayCore
from codememory.gateway.indexes import IndexGenerations, code_projection
from codememory.gateway.replay import Replayed, Replayer
from codememory.gateway.writes import NewMemory
from codememory.lexical import SparseEncoder
from codememory.projection import CodeProjection, LiveProjection, poll
from codememory.recall import RecallQuery
from codememory.redaction import clean_text
from codememory.vectorstore import (
    DenseSearch,
    IndexFilter,
    IndexUnavailableError,
    PayloadCachedIndex,
    index_digest,
)


class CountedLog(InMemoryEventLog):
    """Counts the reads from LOG's start (a replay's; following reads after its position)."""

    def __init__(self) -> None:
        super().__init__()
        self.from_start = 0

    def read(self, from_seq: int = 1, *, until_seq: int | None = None) -> AsyncIterator[LogRecord]:
        self.from_start += from_seq <= 1
        return super().read(from_seq, until_seq=until_seq)


@dataclass
class Gateway:
    core: GatewayCore
    replayer: Replayer
    generations: IndexGenerations
    log: CountedLog
    code: LiveProjection[CodeProjection]


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[Gateway]:
    log, encoder = CountedLog(), SparseEncoder()
    generations = IndexGenerations(
        tmp_path, DIM, payload_cache=100, search=DenseSearch(hnsw_ef=32), model_id="test/word-hash"
    )
    live = LiveProjection(generations.projection(generations.current(), encoder))
    code = LiveProjection(code_projection(tmp_path, 0, DIM, encoder), name="code")
    replayer = Replayer(
        log, generations, encoder, live, code, data_dir=tmp_path, dense_size=DIM, readers_s=0.5
    )
    follow = [asyncio.create_task(poll(log, live)), asyncio.create_task(poll(log, code))]
    core = GatewayCore(live, log, WordHashEmbedder(), encoder, write_wait_s=5.0, clean_text=clean_text)
    yield Gateway(core, replayer, generations, log, code)
    for task in follow:
        task.cancel()
    await replayer.stop()
    live.projection.index.close()
    code.projection.shard.close()


async def _store(core: GatewayCore, texts: list[str]) -> list[str]:
    scope = MemoryScope(session_id="s1")
    return [(await core.store("t", NewMemory(text=text, scope=scope))).memory_id for text in texts]


async def _top(core: GatewayCore, text: str) -> list[str]:
    return [h.memory_id for h in await core.recall(RecallQuery(tenant="t", text=text, limit=5))]


async def _serving(replayer: Replayer) -> asyncio.Task[Replayed]:
    """A replay started, once its fold serves and its HNSW is being built apart."""
    task = asyncio.create_task(replayer.replay())
    async with asyncio.timeout(30):
        while not replayer.indexing:
            assert not task.done(), "the replay ended without building its index apart"
            await asyncio.sleep(0.01)
    return task


async def test_the_fold_serves_then_the_indexed_copy_is_swapped_in(gateway: Gateway) -> None:
    core, replayer, generations = gateway.core, gateway.replayer, gateway.generations
    await _store(core, [f"retry budget {i} of the payment service" for i in range(20)])
    before = index_digest(core.live.projection.index, IndexFilter())
    first = await _top(core, "retry budget payment")
    await gateway.code.wait_for(core.live.seq, 5.0)
    old_code, read_before = gateway.code.projection, gateway.log.from_start
    task = await _serving(replayer)
    assert gateway.code.projection is not old_code  # both swapped in before the HNSW is built
    assert gateway.log.from_start - read_before == 1  # one read of LOG for both projections
    assert generations.current() == 2 and replayer.running  # the fold serves, unindexed
    assert core.live.projection.index.inner.path.parent.name == "gen-2"  # type: ignore[attr-defined]
    assert await _top(core, "retry budget payment") == first
    late = (await _store(core, ["a memory written while the index builds"]))[0]  # serving applies it
    assert (await _top(core, "written while the index builds"))[0] == late
    done = await task
    assert done.digest_after == done.digest_before == before  # the old one digested at the swap
    assert done.graph_digest_after == done.graph_digest_before != ""
    assert 0 < done.fold_seconds <= done.seconds <= done.index_seconds
    assert not replayer.indexing and not replayer.running
    assert generations.current() == 3 and not (generations.root / "gen-2").exists()
    assert (await _top(core, "written while the index builds"))[0] == late  # caught up before the swap
    assert await _top(core, "retry budget payment") == first
    served = core.live.projection.index
    assert isinstance(served, PayloadCachedIndex) and served.inner.path.parent.name == "gen-3"
    assert served.inner._search is not None and served.inner._search.hnsw_ef == 32  # HNSW_EF kept


async def test_a_stopped_build_leaves_the_fold_serving(gateway: Gateway) -> None:
    core, replayer, generations = gateway.core, gateway.replayer, gateway.generations
    await _store(core, [f"note {i} on cache eviction" for i in range(10)])
    first = await _top(core, "cache eviction")
    task = await _serving(replayer)
    await replayer.stop()
    with pytest.raises(IndexUnavailableError):
        await task
    assert not replayer.indexing and not replayer.running
    assert generations.current() == 2 and not (generations.root / "gen-3").exists()
    assert await _top(core, "cache eviction") == first
    again = await replayer.replay()  # the lock was released: a second replay runs
    assert again.digest_before == again.digest_after and again.index_seconds > 0
    assert generations.current() == 4 and await _top(core, "cache eviction") == first


def test_a_build_stopped_before_its_child_started_starts_none(tmp_path: Path) -> None:
    from codememory.gateway.indexbuild import IndexBuild
    from codememory.vectorstore import EdgeVectorIndex

    edge = EdgeVectorIndex(tmp_path / "memories" / "gen-2" / "shard", DIM)
    build = IndexBuild(IndexGenerations(tmp_path, DIM), 2, 3, edge)
    build.abort()
    with pytest.raises(IndexUnavailableError):
        build.build()
    assert build.aborted and build._builder is None
    edge.close()
