"""One open Qdrant Edge shard: its configuration, opening and closing, and where its errors get types.

Kept apart from ``edge.py`` (the ``VectorIndex`` operations on points) because this is what any user
of the engine needs before the first point is read: the directory becomes a shard (created on first
use, loaded afterwards), the HNSW parameters are stated, and a close waits out a read still running.
Qdrant Edge raises bare ``Exception`` for nearly everything, so every call goes through ``_call``,
which turns failures into the ``VectorIndexError`` tree.

``indexing_threads``: the threads an HNSW build may use (0: the engine's choice, one thread on a
2-core machine). The shard persists it with its HNSW parameters (``edge_config.json``), so every open
states it: a rebuild's ``ShardBuilder`` opens the new shard with more threads for its one build, and
the gateway opening it afterwards with 0 restores the live setting (the segments built stay valid:
the thread count is no part of the graph's parameters, nothing is rebuilt).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from qdrant_edge import EdgeConfig, EdgeShard, HnswIndexConfig, UpdateOperation

from codememory.vectorstore.errors import IndexUnavailableError, VectorIndexError
from codememory.vectorstore.layout import ShardLayout
from codememory.vectorstore.port import DENSE, SPARSE

__all__ = ["HNSW_EF_CONSTRUCT", "HNSW_FULL_SCAN_THRESHOLD_KB", "HNSW_M", "EdgeShardHandle"]

T = TypeVar("T")
# Qdrant's HNSW defaults, stated because a config naming the thread count must name them all
HNSW_M, HNSW_EF_CONSTRUCT, HNSW_FULL_SCAN_THRESHOLD_KB = 16, 100, 10_000


class EdgeShardHandle:
    """The Qdrant Edge shard at ``path`` (created if the directory is empty), open until ``close``."""

    def __init__(
        self, path: Path, dense_size: int, *, indexing_threads: int = 0, layout: ShardLayout | None = None
    ) -> None:
        if indexing_threads < 0:
            raise ValueError(f"indexing_threads must be 0 (the engine decides) or more: {indexing_threads}")
        self.path = path
        self.layout = layout or ShardLayout()
        self.dense_size = dense_size
        hnsw = HnswIndexConfig(
            m=HNSW_M,
            ef_construct=HNSW_EF_CONSTRUCT,
            full_scan_threshold=HNSW_FULL_SCAN_THRESHOLD_KB,
            max_indexing_threads=indexing_threads,
        )
        self._config = EdgeConfig(  # the layout: see ``layout``
            vectors={DENSE: self.layout.dense_params(dense_size)},
            sparse_vectors={SPARSE: self.layout.sparse_params()},
            payload_memory=self.layout.payload_memory,
            hnsw_config=hnsw,
        )
        self._shard: EdgeShard | None = self._open()

    def _open(self) -> EdgeShard:
        exists = self.path.is_dir() and any(self.path.iterdir())
        try:
            if exists:
                return EdgeShard.load(str(self.path), self._config)
            return EdgeShard.create(str(self.path), self._config)
        except Exception as exc:
            raise IndexUnavailableError(f"cannot open Qdrant Edge shard at {self.path}: {exc}") from exc

    def reopen(self) -> None:
        """Open the shard again after ``close``: another process (``ShardBuilder``) wrote it meanwhile."""
        if self._shard is None:
            self._shard = self._open()

    def _call(self, what: str, fn: Callable[[EdgeShard], T]) -> T:
        if self._shard is None:
            raise IndexUnavailableError(f"Qdrant Edge shard at {self.path} is closed")
        try:
            return fn(self._shard)
        except VectorIndexError:
            raise
        except Exception as exc:
            raise VectorIndexError(f"Qdrant Edge {what} failed: {exc}") from exc

    def _update(self, operation: UpdateOperation) -> None:
        self._call("update", lambda s: s.update(operation))

    def flush(self) -> None:
        self._call("flush", lambda s: s.flush())

    def indexed_vectors(self) -> int:
        """Vectors under an index, as Qdrant Edge counts them: every sparse vector (its inverted index
        exists from the start) plus the dense ones under an HNSW graph (none in a replay's fold before
        its build: dense searches scan)."""
        return int(self._call("info", lambda s: s.info()).indexed_vectors_count)

    def optimize(self) -> bool:
        """Edge runs no optimizer in the background: without this, search stays a full scan."""
        return bool(self._call("optimize", lambda s: s.optimize()))

    def close(self) -> None:
        """Flush and close; a read still running in another thread (a recall the gRPC server gave up
        on at shutdown) holds the shard for a moment, so close waits for it (2 s at most)."""
        shard, self._shard = self._shard, None
        if shard is None:
            return
        for attempt in range(40):
            try:
                shard.flush()
                shard.close()
                return
            except RuntimeError as exc:
                if "borrow" not in str(exc) or attempt == 39:
                    raise
                time.sleep(0.05)
