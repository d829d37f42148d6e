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
from typing import TYPE_CHECKING, Any, TypeVar

from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    HnswIndexConfig,
    KeywordIndexParams,
    Memory,
    Modifier,
    PayloadSchemaType,
    Point,
    PointVectors,
    Query,
    QueryRequest,
    Record,
    ScrollRequest,
    SearchParams,
    UpdateOperation,
)

from codememory.lexical import SparseVec
from codememory.vectorstore.edgeforms import edge_filter, edge_sparse, stored_point, vectors_of
from codememory.vectorstore.errors import IndexUnavailableError, PointNotFoundError, VectorIndexError
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
    ) -> None:
        if indexing_threads < 0:
            raise ValueError(f"indexing_threads must be 0 (the engine decides) or more: {indexing_threads}")
        self.path = path
        # candidates the HNSW search keeps (0: the engine's default, the graph's ef_construct, 100)
        self._search = SearchParams(hnsw_ef=hnsw_ef) if hnsw_ef > 0 else None
        self.dense_size = dense_size
        self.keyword_fields, self.float_fields = tuple(keyword_fields), tuple(float_fields)
        hnsw = HnswIndexConfig(
            m=HNSW_M,
            ef_construct=HNSW_EF_CONSTRUCT,
            full_scan_threshold=HNSW_FULL_SCAN_THRESHOLD_KB,
            max_indexing_threads=indexing_threads,
        )
        self._config = EdgeConfig(
            vectors={DENSE: EdgeVectorParams(size=dense_size, distance=Distance.Cosine)},
            sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)},
            payload_memory=Memory.Cached,  # every hit reads its payload: Cold cost ~2 ms per search at 20K
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
                tenant = field == "tenant"
                params = KeywordIndexParams(is_tenant=True) if tenant else PayloadSchemaType.Keyword
                self._update(UpdateOperation.create_field_index(field, params))
        for field in float_fields:
            if field not in indexed:
                self._update(UpdateOperation.create_field_index(field, PayloadSchemaType.Float))

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
        once per point (``builder_worker``). Two engine updates, so a reader between them would see the
        points without the shared keys: only for a shard nobody reads yet."""
        self.upsert(points)
        for payload, point_ids in shared:
            ids: list[PointId] = [canonical_id(i) for i in point_ids]
            self._update(UpdateOperation.set_payload(ids, dict(payload)))

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
        request = QueryRequest(
            limit=limit,
            query=Query.Nearest(check_dense(vector, self.dense_size), using=DENSE),
            filter=edge_filter(flt),
            with_payload=with_payload,
            with_vector=[DENSE] if with_vectors else False,
            params=self._search,
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
        query = Query.Nearest(edge_sparse(sparse), using=SPARSE)
        request = QueryRequest(limit=limit, query=query, filter=edge_filter(flt), with_payload=with_payload)
        scored = self._call("sparse search", lambda s: s.query(request))
        return [Hit(id=str(p.id), score=p.score, payload=p.payload or {}) for p in scored]

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
