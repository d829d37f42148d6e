"""A replayed generation serves before its HNSW exists; the HNSW is built apart and swapped in after.

Why: folding LOG reaches 10,000 events/s, but building the HNSW graph of the folded shard runs at
about 2,000 points/s on this machine's two cores, so a replay that waits for it rebuilds at about
2,000 events/s. A shard whose segments have no HNSW yet still answers every search exactly (Qdrant
Edge scans the unindexed segments), only more slowly; so a replay swaps its fold in as soon as it is
folded (``serving``) and the graph is built on a copy of that shard by a child process
(``ShardBuilder.optimize``: Qdrant Edge holds the GIL while it builds, so it cannot run in this
process without stopping everything else here). When the child is done, the copy is opened here, the
events the serving one applied meanwhile are folded into it under the projection's lock, and it is
swapped in and committed as CURRENT (``IndexBuild.finish``). Readers never see a half-built index:
each moment's projection holds every event up to its position.

The copy is a generation of its own (``gen-<n>``, see ``indexes``): a gateway stopped during the
build restarts on the serving generation and drops the unfinished copy (``discard_abandoned``).
Meanwhile the gateway's periodic ``optimize`` must leave the serving shard alone (it would build the
same graph in process, holding the GIL): it skips while ``Replayer.running``.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import structlog

from codememory.events import EventLog
from codememory.gateway.indexes import IndexGenerations
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection
from codememory.projection import LiveProjection
from codememory.vectorstore import EdgeVectorIndex, IndexUnavailableError, ShardBuilder

log = structlog.get_logger(__name__)

SHARD = "shard"  # a generation's shard directory (``IndexGenerations``)


def copy_generation(root: Path, source: int, target: int) -> None:
    """``gen-<source>`` (shard closed, position saved) copied whole to ``gen-<target>``."""
    destination = root / f"gen-{target}"
    shutil.rmtree(destination, ignore_errors=True)
    shutil.copytree(root / f"gen-{source}", destination)


@dataclass
class IndexBuild:
    """The HNSW of generation ``target`` (a copy of the serving ``source``) built by a child."""

    generations: IndexGenerations
    source: int
    target: int
    edge: EdgeVectorIndex  # the serving shard, for its field lists and dense size
    indexing_threads: int = 0
    started: float = 0.0  # ``time.perf_counter()`` when the replay started
    seconds: float = 0.0  # from ``started`` until the indexed copy was swapped in (0: not yet)

    def __post_init__(self) -> None:
        self._builder: ShardBuilder | None = None
        self._aborted = threading.Event()
        self._lock = threading.Lock()
        self.swapped = False  # the indexed copy serves: never discard it then

    @property
    def aborted(self) -> bool:
        return self._aborted.is_set()

    def copy(self) -> None:
        """The generation about to serve, flushed and caught up under the projection's lock, copied for
        the build (``memoryrebuild.rebuild_memory``'s ``serve_first``): the copy holds what the
        swapped-out one did."""
        copy_generation(self.generations.root, self.source, self.target)

    @property
    def path(self) -> Path:
        return self.generations.root / f"gen-{self.target}" / SHARD

    def build(self) -> str:
        """In a thread: the child opens the copy, builds its HNSW, digests every point (the replay's
        check, off this process), flushes and closes it. Blocks on the child's pipe (the GIL is free
        meanwhile). Returns the digest; raises ``IndexUnavailableError`` when aborted."""
        with self._lock:  # ``abort`` sees the child once it exists, or stops it being started
            if self._aborted.is_set():
                raise IndexUnavailableError("the index build was stopped")
            builder = self._builder = ShardBuilder(
                self.path,
                self.edge.dense_size,
                keyword_fields=self.edge.keyword_fields,
                float_fields=self.edge.float_fields,
                indexing_threads=self.indexing_threads,
            )
        try:
            builder.optimize()
            digest = builder.digest()
        finally:
            builder.close()
        if self._aborted.is_set():
            raise IndexUnavailableError("the index build was stopped")
        return digest

    def abort(self) -> None:
        """Stop the child (the gateway stops): the thread in ``build`` returns with an error."""
        with self._lock:
            self._aborted.set()
            builder = self._builder
        if builder is not None:
            builder.abort()

    async def finish(
        self,
        live: LiveProjection[MemoryProjection],
        event_log: EventLog,
        encoder: SparseEncoder,
        readers_s: float,
    ) -> None:
        """Open the indexed copy here, catch it up under the lock, swap it in, commit it as CURRENT,
        and remove the generation it replaced once its readers are done."""
        indexed = await asyncio.to_thread(self.generations.projection, self.target, encoder)
        try:
            old, caught_up = await live.catch_up(event_log, indexed)
        except BaseException:
            indexed.index.close()
            raise
        self.swapped = True
        self.generations.commit(self.target)
        self.seconds = time.perf_counter() - self.started
        seconds = round(self.seconds, 3)
        log.info("replay_indexed", seconds=seconds, caught_up=caught_up, generation=self.target)
        await live.released(old, readers_s)
        old.index.close()
        shutil.rmtree(self.generations.root / f"gen-{self.source}", ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.generations.root / f"gen-{self.target}", ignore_errors=True)


__all__ = ["IndexBuild", "copy_generation"]
