"""Replay: both projections rebuilt from LOG beside the live ones, then swapped in. No re-embedding.

Vectors are events, so folding LOG again gives the same index. The memory projection is folded into a
new generation (``IndexGenerations``), caught up under the lock, swapped and committed as CURRENT; on
Qdrant Edge it serves before its HNSW exists (exact scans) and the HNSW is built apart and swapped in
after (``indexbuild``). The old generation is removed once readers that started on it are done. The
code graphs and their search shard are rebuilt the same way. The digests of the old and the rebuilt
projection say whether the live projections were consistent (they are equal when they were).
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import structlog

from codememory.collector import fewer_collections
from codememory.events import EventLog
from codememory.gateway.indexbuild import IndexBuild
from codememory.gateway.indexes import IndexGenerations, code_projection
from codememory.gateway.memoryrebuild import (
    INDEXING_THREADS,
    READERS_S,
    edge_shard,
    rebuild_memory,
)
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection
from codememory.projection import CodeProjection, LiveProjection, Rebuilt
from codememory.projection.shared import SharedRead
from codememory.vectorstore import (
    IndexFilter,
    index_digest,
)

log = structlog.get_logger(__name__)

A = TypeVar("A")
B = TypeVar("B")

CHUNK = 5000  # events a batch of the replay's LOG read (handed to both folds)


@dataclass(frozen=True)
class Replayed:
    events: int
    seconds: float
    digest_before: str
    digest_after: str
    graph_digest_before: str
    graph_digest_after: str
    fold_seconds: float = 0.0  # reading and folding LOG into the memory projection
    index_seconds: float = 0.0  # from the start until the HNSW built apart was swapped in (0: none)


async def _both(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """Both run at once; when one fails (or this is cancelled) the other is stopped and waited for,
    and the first failure is raised."""
    tasks = (asyncio.ensure_future(first), asyncio.ensure_future(second))
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()  # nothing when it is done
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in tasks:
        if not task.cancelled() and (error := task.exception()) is not None:
            raise error
    return tasks[0].result(), tasks[1].result()


class Replayer:
    """One replay at a time (``running``: a second replay or a model migration waits or is refused).

    ``serve_first`` (the default, an Edge shard): the rebuilt projections serve once folded
    (``Replayed.seconds``); the memory shard's HNSW is then built apart on a copy and swapped in
    (``indexbuild``; ``indexing`` meanwhile), and the replay returns when it is (``index_seconds``).
    The digests are taken off the serving path: the old projection's once it is swapped out (frozen at
    the swap), the rebuilt one's by the child on the indexed copy; equal when the live projection was
    consistent and no event arrived between the end of the fold and the swap (as before: a digest is
    a snapshot)."""

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
        serve_first: bool = True,
        readers_s: float = READERS_S,
    ) -> None:
        self._log = event_log
        self._indexing_threads = indexing_threads
        self._generations = generations
        self._encoder = encoder
        self._memory = memory
        self._code = code
        self._data_dir = data_dir
        self._dense_size = dense_size
        self._serve_first = serve_first
        self._readers_s = readers_s
        self._running = asyncio.Lock()
        self._build: IndexBuild | None = None  # the HNSW being built apart by the running replay
        self.phase = ""  # "memory", "code", "indexing" while a replay runs (ReplayWatch)
        # the last replay's events, fold s, s until the memory projection served, and both projections
        self.served: tuple[int, float, float, float] | None = None

    @property
    def running(self) -> bool:
        return self._running.locked()

    @property
    def indexing(self) -> bool:
        """The serving memory projection's HNSW is being built apart (recall scans exactly meanwhile)."""
        return self._build is not None

    async def stop(self) -> None:
        """The gateway stops: a build under way is abandoned (its copy is removed at the next start)."""
        if self._build is not None:
            self._build.abort()

    async def replay(self) -> Replayed:
        async with self._running:
            try:
                return await self._replay()
            finally:
                self._build, self.phase = None, ""

    def _index_build(self, fresh: MemoryProjection, generation: int, started: float) -> IndexBuild | None:
        edge = edge_shard(fresh.index)
        if not self._serve_first or edge is None:
            return None
        target = generation + 1
        shutil.rmtree(self._generations.root / f"gen-{target}", ignore_errors=True)
        return IndexBuild(self._generations, generation, target, edge, self._indexing_threads, started)

    async def _replay(self) -> Replayed:
        started = time.perf_counter()
        old_generation = self._generations.current()
        generation = old_generation + 1
        shutil.rmtree(self._generations.root / f"gen-{generation}", ignore_errors=True)
        fresh = self._generations.projection(generation, self._encoder)
        build = self._index_build(fresh, generation, started)
        fresh_code = code_projection(
            self._data_dir, self._code.projection.generation + 1, self._dense_size, self._encoder
        )
        read = SharedRead(self._log, 1, await self._log.last_seq(), readers=2, chunk=CHUNK)
        self.phase = "code"  # shown once the memory projection serves (``live.rebuilding`` until then)

        async def memory() -> tuple[Rebuilt[MemoryProjection], float]:
            rebuilt = await rebuild_memory(
                self._memory,
                self._log,
                fresh,
                indexing_threads=self._indexing_threads,
                serve_first=build.copy if build is not None else None,
                readers_s=0.0,  # the old projection is closed by ``_digest_old``, after its readers
                close_old=False,
                shared=(read, 0),
            )
            self._generations.commit(generation)
            memory_s = time.perf_counter() - started  # recall is served by the rebuilt projection now
            log.info(
                "replay_memory_serving",
                events=rebuilt.events,
                fold_s=round(rebuilt.fold_s, 3),
                seconds=round(memory_s, 3),
            )
            return rebuilt, memory_s

        graphs: list[str] = []  # (before, after), taken at the swap: see ``digest_both``

        def digest_both(caught_up: CodeProjection) -> None:
            """Under the code projection's lock, at the swap, when both hold the same events (a digest
            taken later would count what the serving one applied since)."""
            graphs[:] = [self._code.projection.digest(), caught_up.digest()]

        async def code() -> CodeProjection:
            try:
                rebuilt_code = await self._code.rebuild(
                    self._log, fresh_code, shared=(read, 1), before_swap=digest_both
                )
                return rebuilt_code.old
            except BaseException:
                if self._code.projection is not fresh_code:
                    fresh_code.shard.close()
                raise

        with fewer_collections():  # the collector took a third of the fold's process (``collector``)
            (rebuilt, memory_s), old_code = await _both(memory(), code())
        serving_s = time.perf_counter() - started
        self.served = (rebuilt.events, rebuilt.fold_s, memory_s, serving_s)
        log.info("replay_serving", events=rebuilt.events, seconds=round(serving_s, 3), indexing=bool(build))
        self._build, self.phase = build, "indexing" if build is not None else "finishing"
        before, after, _ = await asyncio.gather(
            self._digest_old(rebuilt.old, old_generation),
            self._rebuilt(build),
            self._close_code(old_code),
        )
        graph_before, graph_after = graphs
        index_s = build.seconds if build is not None else 0.0
        seconds = time.perf_counter() - started
        log.info("replayed", events=rebuilt.events, seconds=round(seconds, 3), same=before == after)
        return Replayed(
            rebuilt.events, serving_s, before, after, graph_before, graph_after, rebuilt.fold_s, index_s
        )

    async def _close_code(self, old: CodeProjection) -> None:
        """The swapped-out code-search shard closed after its readers (``CodeCore.search`` holds it), and
        removed."""
        await self._code.released(old, self._readers_s)
        old.shard.close()
        shutil.rmtree(self._data_dir / f"code-{old.generation}", ignore_errors=True)

    async def _digest_old(self, old: MemoryProjection, generation: int) -> str:
        """The swapped-out projection, frozen at the swap: digested, closed and removed."""
        try:
            return await asyncio.to_thread(index_digest, old.index, IndexFilter())
        finally:
            await self._memory.released(old, self._readers_s)
            old.index.close()
            shutil.rmtree(self._generations.root / f"gen-{generation}", ignore_errors=True)

    async def _rebuilt(self, build: IndexBuild | None) -> str:
        """The rebuilt projection's digest; with ``build``, its HNSW built apart and swapped in."""
        if build is None:
            return await asyncio.to_thread(index_digest, self._memory.projection.index, IndexFilter())
        try:
            digest = await asyncio.to_thread(build.build)
            await build.finish(self._memory, self._log, self._encoder, self._readers_s)
        except BaseException:
            if not build.swapped:
                build.discard()  # the unindexed generation keeps serving; its next optimize indexes it
            raise
        return digest
