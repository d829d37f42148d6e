"""Our index types in Qdrant Edge's forms and back: filters, stored points, sparse vectors, searches.

Kept apart from ``EdgeVectorIndex`` so the index module holds only what it does with the shard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from qdrant_edge import (
    FieldCondition,
    Filter,
    HasIdCondition,
    MatchAny,
    MatchPrefix,
    MatchValue,
    Query,
    QueryRequest,
    RangeFloat,
    SearchParams,
    SparseVector,
)

from codememory.lexical import SparseVec
from codememory.vectorstore.port import DENSE, SPARSE, IndexFilter, StoredPoint, canonical_id

if TYPE_CHECKING:  # aliases that exist only in the type stub
    from qdrant_edge import ConditionType, PointId, Vector

__all__ = ["dense_request", "edge_filter", "edge_sparse", "sparse_request", "stored_point", "vectors_of"]


def edge_filter(flt: IndexFilter) -> Filter | None:
    """The Qdrant Edge form of ``flt`` (``None`` when it has no conditions)."""
    if flt.is_empty:
        return None
    must: list[ConditionType] = [FieldCondition(key=k, match=MatchValue(v)) for k, v in flt.equals.items()]
    must += [FieldCondition(key=k, match=MatchAny(list(vs))) for k, vs in flt.any_of.items()]
    must += [FieldCondition(key=k, range=RangeFloat(gte=lo, lte=hi)) for k, (lo, hi) in flt.ranges.items()]
    must += [FieldCondition(key=k, match=MatchPrefix(v)) for k, v in flt.prefixes.items()]
    if flt.ids:
        must.append(HasIdCondition({canonical_id(i) for i in flt.ids}))
    must_not: list[ConditionType] = [
        FieldCondition(key=k, match=MatchValue(v)) for k, v in flt.not_equals.items()
    ]
    return Filter(must=must or None, must_not=must_not or None)


def vectors_of(vector: Vector | None) -> tuple[tuple[float, ...] | None, SparseVec | None]:
    if not isinstance(vector, dict):
        return None, None
    dense_raw = vector.get(DENSE)
    sparse_raw = vector.get(SPARSE)
    dense = tuple(float(x) for x in cast("list[float]", dense_raw)) if isinstance(dense_raw, list) else None
    sparse = None
    if isinstance(sparse_raw, SparseVector) and sparse_raw.indices:
        sparse = SparseVec.from_dict(dict(zip(sparse_raw.indices, sparse_raw.values, strict=True)))
    return dense, sparse


def stored_point(point_id: PointId, payload: dict[str, Any] | None, vector: Vector | None) -> StoredPoint:
    dense, sparse = vectors_of(vector)
    return StoredPoint(id=str(point_id), payload=payload or {}, dense=dense, sparse=sparse)


def edge_sparse(sparse: SparseVec) -> SparseVector:
    return SparseVector(list(sparse.indices), list(sparse.values))


def dense_request(
    vector: list[float],
    native: Filter | None,
    limit: int,
    params: SearchParams | None,
    with_vectors: bool = False,
    with_payload: bool = False,
) -> QueryRequest:
    """The nearest ``limit`` points to ``vector`` (checked already) under the native filter."""
    return QueryRequest(
        limit=limit,
        query=Query.Nearest(vector, using=DENSE),
        filter=native,
        with_payload=with_payload,
        with_vector=[DENSE] if with_vectors else False,
        params=params,
    )


def sparse_request(
    sparse: SparseVec, native: Filter | None, limit: int, with_payload: bool = False
) -> QueryRequest:
    """The best ``limit`` BM25 matches of ``sparse`` under the native filter."""
    query = Query.Nearest(edge_sparse(sparse), using=SPARSE)
    return QueryRequest(limit=limit, query=query, filter=native, with_payload=with_payload)
