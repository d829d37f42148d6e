"""The vector index over qdrant-client: a Qdrant server in production, local mode in tests.

With ``QdrantClient(url=...)`` this talks to a real Qdrant server (the deployment that outgrows one
process). ``QdrantClient(location=":memory:")`` or ``path=...`` is qdrant-client's pure-Python local
mode: about 300 times slower than Qdrant Edge, so it only serves as the second implementation that
keeps the contract suite honest. Local mode ignores payload indexes and warns when asked for one.
The index owns the client: ``close`` closes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from qdrant_client import QdrantClient
from qdrant_client import models as m
from qdrant_client.conversions import common_types as qtypes
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from codememory.lexical import SparseVec
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

__all__ = ["QdrantClientIndex", "client_filter"]

T = TypeVar("T")
_UNAVAILABLE_STATUS = {None, 502, 503, 504}


def client_filter(flt: IndexFilter) -> m.Filter | None:
    """The qdrant-client form of ``flt`` (``None`` when it has no conditions)."""
    if flt.is_empty:
        return None
    must: list[m.Condition] = [
        m.FieldCondition(key=k, match=m.MatchValue(value=v)) for k, v in flt.equals.items()
    ]
    must += [m.FieldCondition(key=k, match=m.MatchAny(any=list(vs))) for k, vs in flt.any_of.items()]
    must += [m.FieldCondition(key=k, range=m.Range(gte=lo, lte=hi)) for k, (lo, hi) in flt.ranges.items()]
    must += [m.FieldCondition(key=k, match=m.MatchPrefix(prefix=v)) for k, v in flt.prefixes.items()]
    if flt.ids:
        must.append(m.HasIdCondition(has_id=[canonical_id(i) for i in flt.ids]))
    must_not: list[m.Condition] = [
        m.FieldCondition(key=k, match=m.MatchValue(value=v)) for k, v in flt.not_equals.items()
    ]
    return m.Filter(must=must or None, must_not=must_not or None)


def _translate(what: str, exc: Exception) -> VectorIndexError:
    if isinstance(exc, ResponseHandlingException | ConnectionError | TimeoutError):
        return IndexUnavailableError(f"Qdrant {what} failed: {exc}")
    if isinstance(exc, UnexpectedResponse) and exc.status_code in _UNAVAILABLE_STATUS:
        return IndexUnavailableError(f"Qdrant {what} failed: {exc}")
    return VectorIndexError(f"Qdrant {what} failed: {exc}")


def _stored(point_id: m.ExtendedPointId, payload: dict[str, Any] | None, vector: Any) -> StoredPoint:
    dense, sparse = _vectors(vector)
    return StoredPoint(id=str(point_id), payload=payload or {}, dense=dense, sparse=sparse)


def _vectors(vector: Any) -> tuple[tuple[float, ...] | None, SparseVec | None]:
    if not isinstance(vector, dict):
        return None, None
    dense_raw, sparse_raw = vector.get(DENSE), vector.get(SPARSE)
    dense = tuple(float(x) for x in dense_raw) if isinstance(dense_raw, list) else None
    sparse = None
    if isinstance(sparse_raw, m.SparseVector) and sparse_raw.indices:
        sparse = SparseVec.from_dict(dict(zip(sparse_raw.indices, sparse_raw.values, strict=True)))
    return dense, sparse


def _sparse(sparse: SparseVec) -> m.SparseVector:
    return m.SparseVector(indices=list(sparse.indices), values=list(sparse.values))


class QdrantClientIndex:
    """``VectorIndex`` over collection ``collection`` (created with both named vectors if missing)."""

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        dense_size: int,
        *,
        keyword_fields: Sequence[str] = DEFAULT_KEYWORD_FIELDS,
        float_fields: Sequence[str] = DEFAULT_FLOAT_FIELDS,
    ) -> None:
        self._client: QdrantClient | None = client
        self.collection = collection
        self.dense_size = dense_size
        if not self._call("collection check", lambda c: c.collection_exists(collection)):
            self._call("create collection", self._create)
        info = self._call("collection info", lambda c: c.get_collection(collection))
        vectors = info.config.params.vectors
        size = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
        if size != dense_size:
            raise VectorIndexError(f"collection {collection} has dense size {size}, expected {dense_size}")
        indexed = set(info.payload_schema or {})
        wanted: dict[str, m.PayloadSchemaType | m.KeywordIndexParams] = dict.fromkeys(
            float_fields, m.PayloadSchemaType.FLOAT
        )
        wanted.update(dict.fromkeys(keyword_fields, m.PayloadSchemaType.KEYWORD))
        if "tenant" in wanted:
            wanted["tenant"] = m.KeywordIndexParams(type=m.KeywordIndexType.KEYWORD, is_tenant=True)
        for field, schema in wanted.items():
            if field not in indexed:
                self._index_field(field, schema)

    def _index_field(self, field: str, schema: m.PayloadSchemaType | m.KeywordIndexParams) -> None:
        self._call("payload index", lambda c: c.create_payload_index(self.collection, field, schema))

    def _create(self, client: QdrantClient) -> None:
        try:
            client.create_collection(
                self.collection,
                vectors_config={DENSE: m.VectorParams(size=self.dense_size, distance=m.Distance.COSINE)},
                sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
            )
        except (UnexpectedResponse, ValueError):
            if not client.collection_exists(self.collection):  # another process won the race: fine
                raise

    def _call(self, what: str, fn: Callable[[QdrantClient], T]) -> T:
        if self._client is None:
            raise IndexUnavailableError(f"index over collection {self.collection} is closed")
        try:
            return fn(self._client)
        except VectorIndexError:
            raise
        except Exception as exc:
            raise _translate(what, exc) from exc

    def _update_point(self, point_id: str, what: str, fn: Callable[[QdrantClient], object]) -> None:
        try:
            self._call(what, fn)
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
            vector: dict[str, m.Vector] = {}
            if p.dense is not None:
                vector[DENSE] = check_dense(p.dense, self.dense_size)
            if p.sparse is not None:
                vector[SPARSE] = _sparse(p.sparse)
            converted.append(m.PointStruct(id=canonical_id(p.id), vector=vector, payload=dict(p.payload)))
        self._call("upsert", lambda c: c.upsert(self.collection, converted))

    def set_dense(self, point_id: str, dense: Sequence[float]) -> None:
        pid = canonical_id(point_id)
        vectors = [m.PointVectors(id=pid, vector={DENSE: check_dense(dense, self.dense_size)})]
        self._update_point(pid, "set dense", lambda c: c.update_vectors(self.collection, vectors))

    def replace_sparse(self, point_id: str, sparse: SparseVec) -> None:
        pid = canonical_id(point_id)
        vectors = [m.PointVectors(id=pid, vector={SPARSE: _sparse(sparse)})]
        self._update_point(pid, "replace sparse", lambda c: c.update_vectors(self.collection, vectors))

    def set_payload(self, point_id: str, payload: Mapping[str, Any]) -> None:
        pid = canonical_id(point_id)
        self._update_point(pid, "set payload", lambda c: c.set_payload(self.collection, dict(payload), [pid]))

    def delete(self, point_ids: Sequence[str]) -> None:
        if point_ids:
            selector = m.PointIdsList(points=[canonical_id(i) for i in point_ids])
            self._call("delete", lambda c: c.delete(self.collection, selector))

    def get(self, point_ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        wanted = list(dict.fromkeys(canonical_id(i) for i in point_ids))
        if not wanted:
            return []
        records = self._call(
            "retrieve",
            lambda c: c.retrieve(self.collection, wanted, with_payload=True, with_vectors=with_vectors),
        )
        found = {str(r.id): _stored(r.id, r.payload, r.vector) for r in records}
        return [found[i] for i in wanted if i in found]

    def dense_vectors(self, point_ids: Sequence[str]) -> dict[str, Sequence[float]]:
        wanted = list(dict.fromkeys(canonical_id(i) for i in point_ids))
        if not wanted:
            return {}
        records = self._call(
            "retrieve",
            lambda c: c.retrieve(self.collection, wanted, with_payload=False, with_vectors=[DENSE]),
        )
        found = {str(r.id): _stored(r.id, None, r.vector).dense for r in records}
        return {i: dense for i, dense in found.items() if dense is not None}

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
        query = check_dense(vector, self.dense_size)
        response = self._call(
            "dense search",
            lambda c: c.query_points(
                self.collection,
                query=query,
                using=DENSE,
                query_filter=client_filter(flt),
                limit=limit,
                with_payload=with_payload,
                with_vectors=[DENSE] if with_vectors else False,
            ),
        )
        return [
            Hit(id=str(p.id), score=p.score, payload=p.payload or {}, dense=_vectors(p.vector)[0])
            for p in response.points
        ]

    def search_sparse(
        self, sparse: SparseVec, flt: IndexFilter, limit: int, with_payload: bool = True
    ) -> list[Hit]:
        if not sparse.indices or flt.matches_nothing or limit <= 0:
            return []
        response = self._call(
            "sparse search",
            lambda c: c.query_points(
                self.collection,
                query=_sparse(sparse),
                using=SPARSE,
                query_filter=client_filter(flt),
                limit=limit,
                with_payload=with_payload,
            ),
        )
        return [Hit(id=str(p.id), score=p.score, payload=p.payload or {}) for p in response.points]

    def scroll(self, flt: IndexFilter, batch: int = 256, with_vectors: bool = False) -> Iterator[StoredPoint]:
        if flt.matches_nothing:
            return
        native = client_filter(flt)
        offset: qtypes.PointId | None = None
        while True:
            records, offset = self._scroll_page(native, batch, offset, with_vectors)
            for r in records:
                yield _stored(r.id, r.payload, r.vector)
            if offset is None:
                return

    def _scroll_page(
        self, native: m.Filter | None, batch: int, offset: qtypes.PointId | None, with_vectors: bool
    ) -> tuple[list[m.Record], qtypes.PointId | None]:
        return self._call(
            "scroll",
            lambda c: c.scroll(
                self.collection,
                native,
                limit=batch,
                offset=offset,
                with_payload=True,
                with_vectors=with_vectors,
            ),
        )

    def count(self, flt: IndexFilter) -> int:
        if flt.matches_nothing:
            return 0
        result = self._call("count", lambda c: c.count(self.collection, client_filter(flt), exact=True))
        return result.count

    def flush(self) -> None:
        """Nothing to do: the server's WAL (or local mode's store) holds every acknowledged write."""
        if self._client is None:
            raise IndexUnavailableError(f"index over collection {self.collection} is closed")

    def optimize(self) -> bool:
        """Nothing to do: a Qdrant server (and local mode) optimizes on its own."""
        if self._client is None:
            raise IndexUnavailableError(f"index over collection {self.collection} is closed")
        return False

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()
