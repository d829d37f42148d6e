"""Where a Qdrant Edge shard keeps each of its parts: in RAM, or on disk read through the page cache.

The engine fixes a segment's storage when it builds the segment (``segment.json`` records it), so a
layout applies to the segments a shard builds after it is opened with it: choose it for a new shard
(a replay or a model migration builds a new generation), not for one already built. Three presets;
``int8`` is a new memory shard's default (``DEFAULT_LAYOUT``):

- ``int8``: an int8 copy of the dense vectors (a quarter of their size) held in RAM; the HNSW search
  runs on it and scores with it (7,200 random vectors, 1,000 hits: at most 0.005 from the cosine,
  0.001 at the median). The float32 originals stay on disk, read through the page cache only for what
  a caller asks by id (recall's restatement check reads its top hits'), or, with ``rescore`` (the
  gateway's ``RESCORE``), to rescore the best ``oversampling`` times ``limit`` candidates of every
  search with the exact cosine. Everything else (the BM25 postings, payloads, payload indexes: every
  query reads many of them) is loaded. At a million memories (``bench_million.py``, RESULTS.md) a
  query's search reads a quarter of the memory ``ram``'s does, and what a search has not read lately
  is what costs: over gRPC, in turns, recall p50 24.7 ms against 29.1 (rescored, medians of 13 rounds
  each), p99 46-55 ms against 51-101 in three of four sets, the gateway's peak resident memory 2.96
  GiB against 3.84, the same top 10 for all 300 questions. Rescoring reads about a hundred originals
  at random per search; on a host that pages out what lay idle for a minute (this machine does, with
  DAMON), that took about 13 reads from disk per recall (page faults; 0.1 without rescoring). Without
  it: 0.82x the recall time in process and 0.83-0.93x over gRPC, 2.79 GiB, 97% of the top 10 alike
  (the differences swap equally relevant copies: the same texts in 292 of 300 top 10s). At 100,000
  memories rescored ``int8`` cost more than ``ram`` (15.3 ms against 13.0 in turns: the originals'
  reads outweighed the cheaper walk); without rescoring it costs less (25.6 against 27.7 ms in turns
  on a slower day, 0.78 GiB against 0.86, 98% of the top 10 alike).
- ``ram`` (what every shard had before layouts; one that recorded no layout is one): the float32
  vectors loaded as well, and searched directly. The shard's whole size is resident.
- ``disk``: the vectors as ``int8`` keeps them; payloads, the BM25 index and the payload indexes are
  memory-mapped, not loaded: the pages recall touches stay in the page cache, the rest are read when
  first needed. The least memory and the fastest open; the slowest queries.

``ShardLayout`` is the one typed object of where parts are kept; ``layout_named`` turns the gateway
setting into it. ``DenseSearch`` is how each dense search walks and scores (the gateway's ``HNSW_EF``
and ``RESCORE``): a search parameter, so it applies to any shard at its next open, whatever its layout.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from qdrant_edge import (
    Distance,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    FloatIndexParams,
    KeywordIndexParams,
    Memory,
    Modifier,
    PayloadSchemaType,
    QuantizationSearchParams,
    ScalarQuantizationConfig,
    ScalarType,
    SearchParams,
)

__all__ = ["DEFAULT_LAYOUT", "LAYOUTS", "DenseSearch", "ShardLayout", "layout_named"]


class DenseSearch(msgspec.Struct, frozen=True, kw_only=True):
    """How every dense search of a shard runs; the defaults are the engine's walk, int8 scores."""

    hnsw_ef: int = 0  # candidates the HNSW search keeps (0: the engine's default, ef_construct, 100)
    rescore: bool = False  # a quantized layout's best candidates rescored with the float32 originals

    def __post_init__(self) -> None:
        if self.hnsw_ef < 0:
            raise ValueError(f"hnsw_ef must be 0 (the engine's default) or more, got {self.hnsw_ef}")


class ShardLayout(msgspec.Struct, frozen=True, kw_only=True):
    """Placement of a shard's parts; the defaults are the ``ram`` preset."""

    name: str = "ram"
    dense_on_disk: bool = False  # float32 originals memory-mapped, read on demand (rescoring)
    quantization: Literal["none", "int8"] = "none"  # int8 copies in RAM, searched first
    oversampling: float = 2.0  # with quantization: candidates rescored per result asked for
    payload_on_disk: bool = False
    sparse_on_disk: bool = False  # the BM25 inverted index
    indexes_on_disk: bool = False  # the payload (keyword and float) indexes

    def __post_init__(self) -> None:
        if self.oversampling < 1.0:
            raise ValueError(f"oversampling must be at least 1, got {self.oversampling}")

    def dense_params(self, size: int) -> EdgeVectorParams:
        """Unset parts stay unset: a ``ram`` shard is opened with the config it was created with."""
        quantization = None
        if self.quantization == "int8":
            quantization = ScalarQuantizationConfig(ScalarType.Int8, quantile=0.99, memory=Memory.Cached)
        memory = Memory.Cold if self.dense_on_disk else None
        return EdgeVectorParams(
            size=size, distance=Distance.Cosine, quantization_config=quantization, memory=memory
        )

    def sparse_params(self) -> EdgeSparseVectorParams:
        memory = Memory.Cold if self.sparse_on_disk else None  # None: the engine's default, in RAM
        return EdgeSparseVectorParams(modifier=Modifier.Idf, memory=memory)

    @property
    def payload_memory(self) -> Memory:
        # in RAM every hit reads its payload cheaply; on disk the gateway's payload cache answers most
        return Memory.Cold if self.payload_on_disk else Memory.Cached

    def keyword_index(self, tenant: bool) -> KeywordIndexParams | PayloadSchemaType:
        if not self.indexes_on_disk:
            return KeywordIndexParams(is_tenant=True) if tenant else PayloadSchemaType.Keyword
        return KeywordIndexParams(is_tenant=tenant or None, memory=Memory.Cold)

    def float_index(self) -> FloatIndexParams | PayloadSchemaType:
        return FloatIndexParams(memory=Memory.Cold) if self.indexes_on_disk else PayloadSchemaType.Float

    def search_params(self, search: DenseSearch) -> SearchParams | None:
        """What each dense search asks (None: the engine's defaults). With quantization, ``rescore``
        rescores the best ``oversampling`` times ``limit`` with the float32 originals (exact cosine,
        read from disk); without it the scores are the int8 copies' (see the module's docstring)."""
        hnsw_ef = search.hnsw_ef
        if self.quantization == "none":
            return SearchParams(hnsw_ef=hnsw_ef) if hnsw_ef > 0 else None
        if search.rescore:
            quantized = QuantizationSearchParams(rescore=True, oversampling=self.oversampling)
        else:
            quantized = QuantizationSearchParams(rescore=False)
        return SearchParams(hnsw_ef=hnsw_ef if hnsw_ef > 0 else None, quantization=quantized)


LAYOUTS: dict[str, ShardLayout] = {
    "ram": ShardLayout(),
    "int8": ShardLayout(name="int8", dense_on_disk=True, quantization="int8"),
    "disk": ShardLayout(
        name="disk",
        dense_on_disk=True,
        quantization="int8",
        payload_on_disk=True,
        sparse_on_disk=True,
        indexes_on_disk=True,
    ),
}


DEFAULT_LAYOUT = "int8"  # a new memory shard's: see the module's docstring


def layout_named(name: str) -> ShardLayout:
    """The preset ``name`` (``ram``, ``int8`` or ``disk``); ``ValueError`` naming the choices otherwise."""
    try:
        return LAYOUTS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"shard layout must be one of {', '.join(LAYOUTS)}, got {name!r}") from None
