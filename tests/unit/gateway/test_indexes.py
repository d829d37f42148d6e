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


def test_a_generation_keyed_by_memory_id_alone_is_replaced_by_a_fresh_one(tmp_path: Path) -> None:
    generations = IndexGenerations(tmp_path, 4)
    old = generations.root / "gen-1"
    old.mkdir(parents=True)
    (old / "model.json").write_text('{"model_id": "m", "dim": 4}')  # written before POINT_IDS
    (old / "position.json").write_text('{"seq": 40, "poisoned": 0}')
    assert generations.renew() == 2 and generations.current() == 2 and not old.exists()
    fresh = generations.projection(generations.current(), SparseEncoder())
    assert fresh.last_seq == 0  # filled again from LOG by the live projection
    fresh.index.close()
    assert generations.renew() == 2  # a generation keyed as today is kept
