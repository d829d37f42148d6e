"""Index generations: an Edge shard the gateway writes alone is read through the payload cache."""

from __future__ import annotations

from pathlib import Path

from codememory.gateway.indexes import IndexGenerations
from codememory.lexical import SparseEncoder
from codememory.vectorstore import EdgeVectorIndex, PayloadCachedIndex


def test_an_edge_projection_reads_through_the_payload_cache_unless_it_is_off(tmp_path: Path) -> None:
    cached = IndexGenerations(tmp_path / "a", 4, payload_cache=100).projection(1, SparseEncoder())
    assert isinstance(cached.index, PayloadCachedIndex) and cached.index.capacity == 100
    plain = IndexGenerations(tmp_path / "b", 4).projection(1, SparseEncoder())
    assert isinstance(plain.index, EdgeVectorIndex)
    cached.index.close()
    plain.index.close()
