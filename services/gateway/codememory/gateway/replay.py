"""Replay: both projections rebuilt from LOG beside the live ones, then swapped in. No re-embedding.

Vectors are events, so folding LOG again gives the same index. The memory projection is folded into a
new generation (``IndexGenerations``), its search structures built, caught up under the lock, swapped
and committed as CURRENT; the old generation is removed once readers that started on it are done. The
code graphs and their search shard are rebuilt the same way. The digests before and after say
whether the live projections were consistent (they are equal when they were).
"""

from __future__ import annotations

import asyncio
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import structlog

from codememory.events import EventLog
from codememory.gateway.indexes import IndexGenerations, code_projection
from codememory.lexical import SparseEncoder
from codememory.lexical.pool import TermsPool
from codememory.memory import MemoryProjection
from codememory.projection import CodeProjection, LiveProjection, Rebuilt
from codememory.vectorstore import (
    EdgeVectorIndex,
    IndexFilter,
    PayloadCachedIndex,
    ShardBuilder,
    VectorIndex,
    index_digest,
)

log = structlog.get_logger(__name__)

READERS_S = 2.0  # searches that started on a swapped-out index finish before it closes
TERMS_WORKERS = 2  # processes computing lexical vectors during a replay (this machine has 2 cores)
INDEXING_THREADS = 0  # threads of a rebuilt shard's HNSW build: the engine's choice (1 on 2 cores);
# 2 gave no gain at 50,000 points (bench_replay: 42.9 s against 37.9 s, medians of 2)


@dataclass(frozen=True)
class Replayed:
    events: int
    seconds: float
    digest_before: str
    digest_after: str
    graph_digest_before: str
    graph_digest_after: str


def _prepare(projection: MemoryProjection) -> None:
    projection.sync()  # flushed once, not after every chunk: nobody reads it before the swap
    projection.index.optimize()


def _edge_shard(index: VectorIndex) -> EdgeVectorIndex | None:
    """The Edge shard under ``index`` (itself, or under the payload cache); None for a server."""
    inner = index.inner if isinstance(index, PayloadCachedIndex) else index
    return inner if isinstance(inner, EdgeVectorIndex) else None


class _BuiltApart:
    """While a rebuild folds, ``fresh``'s Edge shard is written by a ``ShardBuilder`` child process;
    ``done`` (after the HNSW build, in the child) hands the shard back to ``fresh``'s own index."""

    def __init__(self, fresh: MemoryProjection, edge: EdgeVectorIndex, indexing_threads: int) -> None:
        self.fresh, self.edge, self.own = fresh, edge, fresh.index
        edge.close()  # empty, just created: the child opens it
        self.builder = ShardBuilder(
            edge.path,
            edge.dense_size,
            keyword_fields=edge.keyword_fields,
            float_fields=edge.float_fields,
            indexing_threads=indexing_threads,  # for its one HNSW build; ``done`` reopens with ours
        )
        fresh.index = self.builder

    def prepare(self, projection: MemoryProjection) -> None:
        _prepare(projection)
        self.done()

    def done(self) -> None:
        if self.fresh.index is self.own:
            return
        try:
            self.builder.close()
        finally:
            self.edge.reopen()
            self.fresh.index = self.own


async def rebuild_memory(
    live: LiveProjection[MemoryProjection],
    event_log: EventLog,
    fresh: MemoryProjection,
    *,
    chunk: int = 5000,
    readers_s: float = READERS_S,
    terms_workers: int = TERMS_WORKERS,
    apart: bool = True,
    indexing_threads: int = INDEXING_THREADS,
) -> Rebuilt[MemoryProjection]:
    """Fold LOG into ``fresh``, build its HNSW, swap it in; the old index is closed after its readers.

    The lexical vectors of each chunk are computed on ``terms_workers`` processes (0: in this one);
    with ``apart``, an Edge shard is written by a process of its own (``ShardBuilder``) while this one
    folds, and opened here again once its HNSW is built, a build that may use ``indexing_threads``
    (the shard is opened here with the live setting again)."""
    pool = TermsPool(fresh.encoder, terms_workers) if terms_workers > 0 else None
    fresh.terms, fresh.deferred_sync = pool, True
    edge = _edge_shard(fresh.index) if apart else None
    built = _BuiltApart(fresh, edge, indexing_threads) if edge is not None else None
    try:
        prepare = built.prepare if built is not None else _prepare
        rebuilt = await live.rebuild(event_log, fresh, chunk=chunk, prepare=prepare)
    finally:
        fresh.terms = None  # live following encodes its few events in process
        if pool is not None:
            pool.close()
        if built is not None:
            built.done()  # a failed rebuild: the shard back in process, for the caller to close
    await asyncio.sleep(readers_s)
    rebuilt.old.index.close()
    return rebuilt


class Replayer:
    def __init__(
        self,
        event_log: EventLog,
        generations: IndexGenerations,
        encoder: SparseEncoder,
        memory: LiveProjection[MemoryProjection],
        code: LiveProjection[CodeProjection],
        *,
        data_dir: Path,
        dense_size: int,
        indexing_threads: int = INDEXING_THREADS,
    ) -> None:
        self._log = event_log
        self._indexing_threads = indexing_threads
        self._generations = generations
        self._encoder = encoder
        self._memory = memory
        self._code = code
        self._data_dir = data_dir
        self._dense_size = dense_size
        self._running = asyncio.Lock()

    @property
    def running(self) -> bool:
        return self._running.locked()

    async def replay(self) -> Replayed:
        async with self._running:
            started = time.perf_counter()
            everything = IndexFilter()
            before = await asyncio.to_thread(index_digest, self._memory.projection.index, everything)
            old_generation = self._generations.current()
            generation = old_generation + 1
            shutil.rmtree(self._generations.root / f"gen-{generation}", ignore_errors=True)
            fresh = self._generations.projection(generation, self._encoder)
            threads = self._indexing_threads
            events = (await rebuild_memory(self._memory, self._log, fresh, indexing_threads=threads)).events
            self._generations.commit(generation)
            shutil.rmtree(self._generations.root / f"gen-{old_generation}", ignore_errors=True)
            after = await asyncio.to_thread(index_digest, self._memory.projection.index, everything)
            graph_before = await asyncio.to_thread(self._code.projection.digest)
            fresh_code = code_projection(
                self._data_dir, self._code.projection.generation + 1, self._dense_size, self._encoder
            )
            old_code = (await self._code.rebuild(self._log, fresh_code)).old
            graph_after = await asyncio.to_thread(self._code.projection.digest)
            await asyncio.sleep(READERS_S / 2)
            old_code.shard.close()
            shutil.rmtree(self._data_dir / f"code-{old_code.generation}", ignore_errors=True)
            seconds = time.perf_counter() - started
            log.info("replayed", events=events, seconds=round(seconds, 3), same=before == after)
            return Replayed(events, seconds, before, after, graph_before, graph_after)
