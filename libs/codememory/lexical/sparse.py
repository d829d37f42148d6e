"""BM25 sparse vectors as plain values, so nothing outside the index adapters sees a Qdrant type.

``SparseEncoder`` wraps ``qdrant_edge.Bm25``, which runs in-process (no server, no model download).
A document gets term-frequency weights saturated by ``k`` and normalised by ``b`` against ``avg_len``;
a query gets weight 1.0 per distinct term. The IDF part of BM25 is applied by the index at search time
(the sparse vector is configured with the IDF modifier), so a stored vector never goes stale as the
corpus grows. Feed both sides through ``code_terms`` first: the tokenizer is built for prose.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import msgspec
from qdrant_edge import Bm25, Bm25Config, SparseVector

__all__ = ["SparseEncoder", "SparseVec", "sparse_dot"]


class SparseVec(msgspec.Struct, frozen=True):
    """Non-zero dimensions of a sparse vector: ``indices[i]`` has weight ``values[i]``."""

    indices: tuple[int, ...] = ()
    values: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if len(self.indices) != len(self.values):
            raise ValueError(f"{len(self.indices)} indices but {len(self.values)} values")

    def as_dict(self) -> dict[int, float]:
        return dict(zip(self.indices, self.values, strict=True))

    @classmethod
    def from_dict(cls, weights: Mapping[int, float]) -> SparseVec:
        """Sorted by index, so equal vectors compare equal whatever order they were built in."""
        ordered = sorted(weights.items())
        return cls(tuple(i for i, _ in ordered), tuple(float(v) for _, v in ordered))


def sparse_dot(a: SparseVec, b: SparseVec) -> float:
    """Dot product over the shared dimensions (BM25 score without IDF when ``a`` is a query)."""
    small, large = (a, b) if len(a.indices) <= len(b.indices) else (b, a)
    weights = large.as_dict()
    return float(sum(v * weights.get(i, 0.0) for i, v in zip(small.indices, small.values, strict=True)))


def _plain(vector: SparseVector) -> SparseVec:
    indices = vector.indices
    if all(a < b for a, b in itertools.pairwise(indices)):  # sorted and distinct, as BM25 gives them
        return SparseVec(tuple(indices), tuple(float(v) for v in vector.values))
    return SparseVec.from_dict(dict(zip(indices, vector.values, strict=True)))


class SparseEncoder:
    """BM25 text-to-sparse encoder with English stopwords and stemming by default.

    ``k`` (term-frequency saturation), ``b`` (length normalisation, 0..1) and ``avg_len`` (expected
    document length in tokens) must stay the same for every document of one index: documents encoded
    with different settings are not comparable.
    """

    def __init__(
        self, *, k: float = 1.2, b: float = 0.75, avg_len: float = 256.0, language: str = "english"
    ) -> None:
        try:
            self._model = Bm25(Bm25Config(k=k, b=b, avg_len=avg_len, language=language))
        except ValueError as exc:
            raise ValueError(f"invalid BM25 settings: {exc}") from exc
        self.k, self.b, self.avg_len, self.language = k, b, avg_len, language

    def encode_document(self, text: str) -> SparseVec:
        return _plain(self._model.embed_document(text))

    def encode_query(self, text: str) -> SparseVec:
        return _plain(self._model.embed_query(text))
