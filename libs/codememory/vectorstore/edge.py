"""The default vector index: Qdrant Edge, the Qdrant engine running inside this process.

No server to run and no network hop: an HNSW search over 100K x 384 vectors takes about half a
millisecond. This module holds the ``VectorIndex`` operations on points (writes, reads, searches,
scrolls); opening, configuring and closing the shard, and typing the engine's bare exceptions, are
``edgeshard.EdgeShardHandle``'s. An update of a missing point is recognised by looking the point up,
not by parsing the engine's message.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from qdrant_edge import (
    CountRequest,
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
from codememory.vectorstore.edgeshard import EdgeShardHandle
from codememory.vectorstore.errors import IndexUnavailableError, PointNotFoundError, VectorIndexError
from codememory.vectorstore.layout import DenseSearch, ShardLayout
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

__all__ = ["EdgeVectorIndex", "edge_filter"]  # edge_filter: kept importable from here


class EdgeVectorIndex(EdgeShardHandle):
    """``VectorIndex`` over a Qdrant Edge shard at ``path`` (created if the directory is empty)."""

    def __init__(
        self,
        path: Path,
        dense_size: int,
        *,
        keyword_fields: Sequence[str] = DEFAULT_KEYWORD_FIELDS,
        float_fields: Sequence[str] = DEFAULT_FLOAT_FIELDS,
        indexing_threads: int = 0,
        layout: ShardLayout | None = None,
        search: DenseSearch | None = None,
    ) -> None:
        super().__init__(path, dense_size, indexing_threads=indexing_threads, layout=layout)
        self._search = self.layout.search_params(search or DenseSearch())
        self.keyword_fields, self.float_fields = tuple(keyword_fields), tuple(float_fields)
        try:
            self._index_fields(keyword_fields, float_fields)
        except VectorIndexError:
            self.close()  # release the WAL lock, or no one can open this shard until we are collected
            raise

    def _index_fields(self, keyword_fields: Sequence[str], float_fields: Sequence[str]) -> None:
        """Create the payload indexes the shard lacks (about 25 ms each, once per shard), and drop the
        ones these fields no longer name: an index holds memory for as long as the shard is open (the
        memory id's, made before it stopped being indexed, held about 230 MB at a million memories)."""
        indexed = set(self._call("info", lambda s: s.info()).payload_schema)
        for field in sorted(indexed - {*keyword_fields, *float_fields}):
            self._update(UpdateOperation.delete_field_index(field))
        for field in keyword_fields:
            if field not in indexed:
                params = self.layout.keyword_index(tenant=field == "tenant")
                self._update(UpdateOperation.create_field_index(field, params))
        for field in float_fields:
            if field not in indexed:
                self._update(UpdateOperation.create_field_index(field, self.layout.float_index()))

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
