"""The vector index port: one collection, one dense and one sparse named vector, payload filters.

Services talk to this Protocol, never to a Qdrant library, so the engine can change without touching
them: ``EdgeVectorIndex`` (Qdrant Edge, in-process, the default) and ``QdrantClientIndex``
(qdrant-client: a Qdrant server by URL, or its slow local mode for tests) both pass one contract suite.

Points are identified by UUID strings; ids come back in canonical form (lowercase, hyphenated), which is
what ``canonical_id`` returns. A point may exist with only its sparse vector (BM25 is computed at once,
the dense embedding arrives later) or with neither (a tombstone).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import msgspec

from codememory.lexical import SparseVec
from codememory.vectorstore.errors import VectorIndexError

__all__ = [
    "DEFAULT_FLOAT_FIELDS",
    "DEFAULT_KEYWORD_FIELDS",
    "DENSE",
    "SPARSE",
    "Hit",
    "IndexFilter",
    "IndexPoint",
    "PairedSearch",
    "StoredPoint",
    "VectorIndex",
    "canonical_id",
    "check_dense",
]

DENSE = "dense"
SPARSE = "bm25"

# Payload fields the memory projection filters on; adapters index them where the engine supports it.
# Not the memory id: a memory is read by its point id (``memory.points``), and an index of a million
# distinct ids held about 230 MB of the gateway's memory for no query.
DEFAULT_KEYWORD_FIELDS: tuple[str, ...] = (
    "tenant", "state", "type", "repo", "branch", "user", "session_id", "paths", "tags", "previous_id",
)  # fmt: skip
DEFAULT_FLOAT_FIELDS: tuple[str, ...] = ("created_at", "importance", "created_seq")

Scalar = str | int | bool


class IndexPoint(msgspec.Struct, frozen=True, kw_only=True):
    """A point to write. ``dense=None`` / ``sparse=None`` means the point has no such vector."""

    id: str
    payload: dict[str, Any]
    dense: tuple[float, ...] | None = None
    sparse: SparseVec | None = None


class StoredPoint(msgspec.Struct, frozen=True, kw_only=True):
    """A point as read back; vectors are ``None`` unless asked for (or absent)."""

    id: str
    payload: dict[str, Any]
    dense: tuple[float, ...] | None = None
    sparse: SparseVec | None = None


class Hit(msgspec.Struct, frozen=True, kw_only=True):
    """A search result: higher ``score`` is better (cosine for dense, BM25 with IDF for sparse)."""

    id: str
    score: float
    payload: dict[str, Any]
    dense: tuple[float, ...] | None = None


class IndexFilter(msgspec.Struct, frozen=True, kw_only=True):
    """A payload filter every adapter can express; all parts must hold (AND).

    - ``equals``: field == value.
    - ``any_of``: field value is one of the list; on an array field, any element may match. An empty
      list matches nothing.
    - ``not_equals``: field != value (a point without the field passes).
    - ``ranges``: ``(gte, lte)`` bounds on a numeric field, ``None`` for an open side.
    - ``prefixes``: a string field starts with this (a short id typed by a person; the field need not
      be indexed: the engine then reads the payloads the other conditions leave).
    - ``ids``: only these point ids (empty: no restriction), e.g. to score known candidates.
    """

    equals: Mapping[str, Scalar] = {}
    any_of: Mapping[str, Sequence[str]] = {}
    not_equals: Mapping[str, Scalar] = {}
    ranges: Mapping[str, tuple[float | None, float | None]] = {}
    prefixes: Mapping[str, str] = {}
    ids: Sequence[str] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.equals or self.any_of or self.not_equals or self.ranges or self.prefixes or self.ids)

    @property
    def matches_nothing(self) -> bool:
        return any(len(values) == 0 for values in self.any_of.values())


_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def canonical_id(point_id: str) -> str:
    """The canonical UUID string for ``point_id``; raises ``VectorIndexError`` if it is not a UUID."""
    if isinstance(point_id, str) and _CANONICAL.fullmatch(point_id):
        return point_id  # already canonical (nearly every id): no parse
    try:
        return str(uuid.UUID(point_id))
    except (ValueError, TypeError, AttributeError) as exc:
        raise VectorIndexError(f"point id is not a UUID: {point_id!r}") from exc


def check_dense(vector: Sequence[float], size: int) -> list[float]:
    """The vector as a list of floats; raises ``VectorIndexError`` on a dimension mismatch."""
    if len(vector) != size:
        raise VectorIndexError(f"dense vector has {len(vector)} dimensions, the index expects {size}")
    return vector if isinstance(vector, list) else list(vector)


class VectorIndex(Protocol):
    """One collection: dense vector ``"dense"`` (cosine) and sparse vector ``"bm25"`` (IDF modifier)."""

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        """Insert or wholly replace each point (payload and both vectors)."""
        ...

    def set_dense(self, point_id: str, dense: Sequence[float]) -> None:
        """Set the dense vector, keeping payload and sparse vector. ``PointNotFoundError`` if absent."""
        ...

    def replace_sparse(self, point_id: str, sparse: SparseVec) -> None:
        """Set the sparse vector, keeping payload and dense vector. ``PointNotFoundError`` if absent."""
        ...

    def set_payload(self, point_id: str, payload: Mapping[str, Any]) -> None:
        """Merge keys into the payload (others are kept). ``PointNotFoundError`` if absent."""
        ...

    def delete(self, point_ids: Sequence[str]) -> None:
        """Delete points; missing ids are ignored."""
        ...

    def get(self, point_ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        """The points that exist, in the order asked, each once."""
        ...

    def dense_vectors(self, point_ids: Sequence[str]) -> dict[str, Sequence[float]]:
        """The dense vectors of those points that have one, by canonical id: no payload and no sparse
        vector read (recall compares its top hits by meaning; the BM25 vector costs the engine most)."""
        ...

    def search_dense(
        self,
        vector: Sequence[float],
        flt: IndexFilter,
        limit: int,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[Hit]:
        """Nearest points by cosine among those with a dense vector, best first (without payloads,
        each hit's payload is empty: the caller already holds them, and copying them costs)."""
        ...

    def search_sparse(
        self, sparse: SparseVec, flt: IndexFilter, limit: int, with_payload: bool = True
    ) -> list[Hit]:
        """Best BM25 matches among points sharing a term with the query, best first (without
        payloads, as ``search_dense``)."""
        ...

    def scroll(self, flt: IndexFilter, batch: int = 256, with_vectors: bool = False) -> Iterator[StoredPoint]:
        """Every matching point, in ascending id order."""
        ...

    def count(self, flt: IndexFilter) -> int: ...

    def flush(self) -> None:
        """Make every write durable."""
        ...

    def optimize(self) -> bool:
        """Build search indexes (HNSW) for what was written; off the query path. True if work was done."""
        ...

    def close(self) -> None:
        """Release the index; later calls raise ``IndexUnavailableError``. Closing twice is harmless."""
        ...


@runtime_checkable
class PairedSearch(Protocol):
    """An index that runs a dense and a sparse search as one engine call (``search_pair``)."""

    def search_both(
        self, vector: Sequence[float], sparse: SparseVec, flt: IndexFilter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        """``search_dense`` and ``search_sparse`` of the same filter and limit, without payloads."""
        ...


def search_pair(
    index: VectorIndex, vector: Sequence[float], sparse: SparseVec, flt: IndexFilter, limit: int
) -> tuple[list[Hit], list[Hit]]:
    """The dense and the BM25 top ``limit`` under ``flt``, ids and scores only: one engine call where
    the index can (``PairedSearch``: Qdrant Edge plans the two as one batch), else one search each.
    The hits are those of ``search_dense`` and ``search_sparse`` with ``with_payload=False``."""
    if isinstance(index, PairedSearch):
        return index.search_both(vector, sparse, flt, limit)
    dense = index.search_dense(vector, flt, limit, with_payload=False)
    return dense, index.search_sparse(sparse, flt, limit, False)
