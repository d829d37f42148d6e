"""The default vector index: Qdrant Edge, the Qdrant engine running inside this process.

No server to run and no network hop: an HNSW search over 100K x 384 vectors takes about half a
millisecond. The shard lives in one directory; it is created on first use and loaded afterwards.
Qdrant Edge raises bare ``Exception`` for nearly everything, so every call goes through ``_call``,
which turns failures into the ``VectorIndexError`` tree (an update of a missing point is recognised by
looking the point up, not by parsing the message).

``indexing_threads``: the threads an HNSW build may use (0: the engine's choice, one thread on a
2-core machine). The shard persists it with its HNSW parameters (``edge_config.json``), so every open
states it: a rebuild's ``ShardBuilder`` opens the new shard with more threads for its one build, and
the gateway opening it afterwards with 0 restores the live setting (the segments built stay valid:
the thread count is no part of the graph's parameters, nothing is rebuilt).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from qdrant_edge import (
    CountRequest,
    EdgeConfig,
    EdgeShard,
    HnswIndexConfig,
    Point,
    PointVectors,
    QueryBatchRequest,
    Record,
    ScrollRequest,
    UpdateOperation,
)

from codememory.lexical import SparseVec
from codememory.vectorstore.edgeforms import (
    dense_request,
    edge_filter,
    edge_sparse,
    sparse_request,
    stored_point,
    vectors_of,
)
from codememory.vectorstore.errors import IndexUnavailableError, PointNotFoundError, VectorIndexError
from codememory.vectorstore.layout import ShardLayout
from codememory.vectorstore.port import (
    DEFAULT_FLOAT_FIELDS,
    DEFAULT_KEYWORD_FIELDS,
    DENSE,
    SPARSE,
    Hit,
    IndexFilter,
    IndexPoint,
    StoredPoint,
    canonical_id,
    check_dense,
)
from codememory.vectorstore.shared import split_hidden

if TYPE_CHECKING:  # aliases that exist only in the type stub
    from qdrant_edge import NamedVector, PointId

__all__ = ["HNSW_M", "EdgeVectorIndex", "edge_filter"]  # edge_filter: kept importable from here

T = TypeVar("T")
# Qdrant's HNSW defaults, stated because a config naming the thread count must name them all
HNSW_M, HNSW_EF_CONSTRUCT, HNSW_FULL_SCAN_THRESHOLD_KB = 16, 100, 10_000


class EdgeVectorIndex:
    """``VectorIndex`` over a Qdrant Edge shard at ``path`` (created if the directory is empty)."""

    def __init__(
        self,
        path: Path,
        dense_size: int,
        *,
        keyword_fields: Sequence[str] = DEFAULT_KEYWORD_FIELDS,
        float_fields: Sequence[str] = DEFAULT_FLOAT_FIELDS,
        indexing_threads: int = 0,
        hnsw_ef: int = 0,
        layout: ShardLayout | None = None,
    ) -> None:
        if indexing_threads < 0:
            raise ValueError(f"indexing_threads must be 0 (the engine decides) or more: {indexing_threads}")
        self.path = path
        self.layout = layout or ShardLayout()
        # candidates the HNSW search keeps (0: the engine's default, the graph's ef_construct, 100)
        self._search = self.layout.search_params(hnsw_ef)
        self.dense_size = dense_size
        self.keyword_fields, self.float_fields = tuple(keyword_fields), tuple(float_fields)
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
        try:
            self._index_fields(keyword_fields, float_fields)
        except VectorIndexError:
            self.close()  # release the WAL lock, or no one can open this shard until we are collected
            raise

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

    def _index_fields(self, keyword_fields: Sequence[str], float_fields: Sequence[str]) -> None:
        """Create the payload indexes the shard lacks (about 25 ms each, once per shard)."""
        indexed = set(self._call("info", lambda s: s.info()).payload_schema)
        for field in keyword_fields:
            if field not in indexed:
                params = self.layout.keyword_index(tenant=field == "tenant")
                self._update(UpdateOperation.create_field_index(field, params))
        for field in float_fields:
            if field not in indexed:
                self._update(UpdateOperation.create_field_index(field, self.layout.float_index()))

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

    def _update_point(self, point_id: str, operation: UpdateOperation) -> None:
        try:
            self._update(operation)
        except IndexUnavailableError:
            raise
        except VectorIndexError:
            if not self.get([point_id]):
                raise PointNotFoundError(point_id) from None
            raise

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        converted = []
        for p in points:
            vector: dict[str, NamedVector] = {}
            if p.dense is not None:
                vector[DENSE] = check_dense(p.dense, self.dense_size)
            if p.sparse is not None:
                vector[SPARSE] = edge_sparse(p.sparse)
            converted.append(Point(canonical_id(p.id), vector, p.payload))  # converted, not kept
        self._update(UpdateOperation.upsert_points(converted))

    def upsert_shared(
        self, points: Sequence[IndexPoint], shared: Sequence[tuple[Mapping[str, Any], Sequence[str]]]
    ) -> None:
        """``upsert``, then each shared payload merged into its points: each value converted once, not
        once per point (``vectorstore.shared``). Two engine updates, so a reader between them sees the
        points without the shared keys: for a shard nobody reads yet, or through ``upsert_new``."""
        self.upsert(points)
        for payload, point_ids in shared:
            ids: list[PointId] = [canonical_id(i) for i in point_ids]
            self._update(UpdateOperation.set_payload(ids, dict(payload)))

    def upsert_new(self, points: Sequence[IndexPoint], hidden_by: str = "tenant") -> None:
        """``upsert`` of points the shard does not hold yet (or holds half-written, see below), the
        payload values most of them share converted once (``split_hidden``): ~60% less of the time
        the GIL is held than ``upsert`` for a memory's payload. Two engine updates: between them, and
        after a crash between them, a point lacks its shared values, ``hidden_by`` among them, so
        every read that filters on ``hidden_by`` passes it by; the writer must take a point without
        ``hidden_by`` for one it has not written (the memory projection does)."""
        self.upsert_shared(*split_hidden(points, hidden_by))

    def set_dense(self, point_id: str, dense: Sequence[float]) -> None:
        pid = canonical_id(point_id)
        vector = check_dense(dense, self.dense_size)
        self._update_point(pid, UpdateOperation.update_vectors([PointVectors(pid, {DENSE: vector})]))

    def replace_sparse(self, point_id: str, sparse: SparseVec) -> None:
        pid = canonical_id(point_id)
        operation = UpdateOperation.update_vectors([PointVectors(pid, {SPARSE: edge_sparse(sparse)})])
        self._update_point(pid, operation)

    def set_payload(self, point_id: str, payload: Mapping[str, Any]) -> None:
        pid = canonical_id(point_id)
        self._update_point(pid, UpdateOperation.set_payload([pid], dict(payload)))

    def delete(self, point_ids: Sequence[str]) -> None:
        if point_ids:
            self._update(UpdateOperation.delete_points([canonical_id(i) for i in point_ids]))

    def get(self, point_ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        wanted = list(dict.fromkeys(canonical_id(i) for i in point_ids))
        if not wanted:
            return []
        records = self._call("retrieve", lambda s: s.retrieve(list(wanted), True, with_vectors))
        found = {str(r.id): stored_point(r.id, r.payload, r.vector) for r in records}
        return [found[i] for i in wanted if i in found]

    def dense_vectors(self, point_ids: Sequence[str]) -> dict[str, Sequence[float]]:
        wanted = list(dict.fromkeys(canonical_id(i) for i in point_ids))
        if not wanted:
            return {}
        records = self._call("retrieve", lambda s: s.retrieve(list(wanted), False, [DENSE]))
        found: dict[str, Sequence[float]] = {}
        for r in records:  # the engine's list of floats as it is (a tuple copy cost more than the read)
            dense = r.vector.get(DENSE) if isinstance(r.vector, dict) else None
            if isinstance(dense, list) and dense:
                found[str(r.id)] = cast("list[float]", dense)
        return found

    def search_dense(
        self,
        vector: Sequence[float],
        flt: IndexFilter,
        limit: int,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[Hit]:
        if flt.matches_nothing or limit <= 0:
            return []
        request = dense_request(
            check_dense(vector, self.dense_size),
            edge_filter(flt),
            limit,
            self._search,
            with_vectors,
            with_payload,
        )
        scored = self._call("dense search", lambda s: s.query(request))
        hits = []
        for p in scored:
            dense = vectors_of(p.vector)[0]
            hits.append(Hit(id=str(p.id), score=p.score, payload=p.payload or {}, dense=dense))
        return hits

    def search_sparse(
        self, sparse: SparseVec, flt: IndexFilter, limit: int, with_payload: bool = True
    ) -> list[Hit]:
        if not sparse.indices or flt.matches_nothing or limit <= 0:
            return []
        request = sparse_request(sparse, edge_filter(flt), limit, with_payload)
        scored = self._call("sparse search", lambda s: s.query(request))
        return [Hit(id=str(p.id), score=p.score, payload=p.payload or {}) for p in scored]

    def search_both(
        self, vector: Sequence[float], sparse: SparseVec, flt: IndexFilter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        """``search_dense`` and ``search_sparse`` without payloads as one ``query_batch``: the engine
        plans them together, and no thread of ours waits on another (at a million memories, the BM25
        search in a thread beside the query's embedding took 15-20 ms where this takes 12 in all)."""
        if flt.matches_nothing or limit <= 0:
            return [], []
        native = edge_filter(flt)
        requests = [dense_request(check_dense(vector, self.dense_size), native, limit, self._search)]
        if sparse.indices:
            requests.append(sparse_request(sparse, native, limit))
        found = self._call("search", lambda s: s.query_batch(QueryBatchRequest(requests)))
        hits = [[Hit(id=str(p.id), score=p.score, payload={}) for p in scored] for scored in found]
        return hits[0], hits[1] if sparse.indices else []

    def scroll(self, flt: IndexFilter, batch: int = 256, with_vectors: bool = False) -> Iterator[StoredPoint]:
        if flt.matches_nothing:
            return
        native = edge_filter(flt)
        offset: PointId | None = None
        while True:
            request = ScrollRequest(
                offset=offset, limit=batch, filter=native, with_payload=True, with_vector=with_vectors
            )
            records, offset = self._scroll_page(request)
            for r in records:
                yield stored_point(r.id, r.payload, r.vector)
            if offset is None:
                return

    def _scroll_page(self, request: ScrollRequest) -> tuple[list[Record], PointId | None]:
        return self._call("scroll", lambda s: s.scroll(request))

    def count(self, flt: IndexFilter) -> int:
        if flt.matches_nothing:
            return 0
        return self._call("count", lambda s: s.count(CountRequest(exact=True, filter=edge_filter(flt))))

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
