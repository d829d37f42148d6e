"""The memory projection rebuilt from LOG beside the live one, its Edge shard written by a child process.

What replay and tests share: ``rebuild_memory`` folds LOG into a fresh projection (lexical vectors on
worker processes, the shard written apart by a ``ShardBuilder`` while this process folds), builds or
defers its HNSW, catches up under the live projection's lock and swaps it in. ``replay.Replayer``
runs it beside the code projection's rebuild on one read of LOG.
"""

from __future__ import annotations

from collections.abc import Callable

from codememory.events import EventLog
from codememory.lexical.pool import TermsPool
from codememory.memory import MemoryProjection
from codememory.projection import LiveProjection, Rebuilt
from codememory.projection.live import READERS_S
from codememory.projection.shared import SharedRead
from codememory.vectorstore import EdgeVectorIndex, PayloadCachedIndex, ShardBuilder, VectorIndex

__all__ = ["INDEXING_THREADS", "READERS_S", "TERMS_WORKERS", "edge_shard", "rebuild_memory"]

TERMS_WORKERS = 2  # processes computing lexical vectors during a replay (this machine has 2 cores)
INDEXING_THREADS = 0  # threads of a rebuilt shard's HNSW build: the engine's choice (1 on 2 cores);
# 2 gave no gain at 50,000 points (bench_replay: 42.9 s against 37.9 s, medians of 2)


def _prepare(projection: MemoryProjection) -> None:
    projection.sync()  # flushed once, not after every chunk: nobody reads it before the swap
    projection.index.optimize()


def edge_shard(index: VectorIndex) -> EdgeVectorIndex | None:
    """The Edge shard under ``index`` (itself, or under the payload cache); None for a server."""
    inner = index.inner if isinstance(index, PayloadCachedIndex) else index
    return inner if isinstance(inner, EdgeVectorIndex) else None


class _BuiltApart:
    """While a rebuild folds, ``fresh``'s Edge shard is written by a ``ShardBuilder`` child process;
    ``done`` (after the HNSW build, in the child) hands the shard back to ``fresh``'s own index.
    With ``serve_first``, the child builds no HNSW (``rebuild_memory``)."""

    def __init__(
        self,
        fresh: MemoryProjection,
        edge: EdgeVectorIndex,
        indexing_threads: int,
        serve_first: Callable[[], None] | None = None,
    ) -> None:
        self.fresh, self.edge, self.own = fresh, edge, fresh.index
        self.serve_first = serve_first
        edge.close()  # empty, just created: the child opens it
        self.builder = ShardBuilder(
            edge.path,
            edge.dense_size,
            keyword_fields=edge.keyword_fields,
            float_fields=edge.float_fields,
            indexing_threads=indexing_threads,  # for its one HNSW build; ``done`` reopens with ours
            layout=edge.layout,  # the segments it builds are laid out as the shard was opened
        )
        fresh.index = self.builder

    def prepare(self, projection: MemoryProjection) -> None:
        if self.serve_first is None:
            _prepare(projection)
        else:
            projection.sync()
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
    serve_first: Callable[[], None] | None = None,
    close_old: bool = True,
    shared: tuple[SharedRead, int] | None = None,
) -> Rebuilt[MemoryProjection]:
    """Fold LOG into ``fresh``, build its HNSW, swap it in; the old index is closed after its readers.

    The lexical vectors of each chunk are computed on ``terms_workers`` processes (0: in this one);
    with ``apart``, an Edge shard is written by a process of its own (``ShardBuilder``) while this one
    folds, and opened here again once its HNSW is built, a build that may use ``indexing_threads``
    (the shard is opened here with the live setting again). With ``serve_first`` (an Edge shard
    written apart), no HNSW is built: ``serve_first`` is called under the lock once the shard holds
    what the live one does, flushed, before it is swapped in unindexed (``indexbuild`` copies it).
    ``shared``: LOG taken from a read shared with another rebuild (``LiveProjection.rebuild``)."""
    pool = TermsPool(fresh.encoder, terms_workers) if terms_workers > 0 else None
    fresh.terms, fresh.deferred_sync = pool, True
    edge = edge_shard(fresh.index) if apart else None
    built = _BuiltApart(fresh, edge, indexing_threads, serve_first) if edge is not None else None
    try:
        prepare = built.prepare if built is not None else _prepare
        before_swap = None
        if serve_first is not None and built is not None:

            def before_swap(projection: MemoryProjection) -> None:
                projection.index.flush()
                serve_first()

        rebuilt = await live.rebuild(
            event_log, fresh, chunk=chunk, prepare=prepare, before_swap=before_swap, shared=shared
        )
    finally:
        fresh.terms = None  # live following encodes its few events in process
        if pool is not None:
            pool.close()
        if built is not None:
            built.done()  # a failed rebuild: the shard back in process, for the caller to close
    if close_old:  # else the caller closes it (``Replayer`` digests it first)
        await live.released(rebuilt.old, readers_s)
        rebuilt.old.index.close()
    return rebuilt
