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


def test_points_keyed_by_memory_id_are_dropped_before_a_fold_from_the_start(tmp_path: Path) -> None:
    import uuid

    from codememory.gateway.indexes import drop_unscoped_points
    from codememory.memory import point_id
    from codememory.vectorstore import IndexFilter, IndexPoint

    projection = IndexGenerations(tmp_path, 4).projection(1, SparseEncoder())
    old = [str(uuid.uuid4()) for _ in range(3)]  # what a server collection kept from before
    new = point_id("t", str(uuid.uuid4()))
    projection.index.upsert([IndexPoint(id=m, payload={"memory_id": m, "tenant": "t"}) for m in old])
    projection.index.upsert([IndexPoint(id=new, payload={"memory_id": "x", "tenant": "t"})])
    assert drop_unscoped_points(projection) == 3
    assert [p.id for p in projection.index.scroll(IndexFilter())] == [new]
    assert drop_unscoped_points(projection) == 0  # keyed as today: left alone
    projection.index.close()


def test_a_generation_keeps_the_layout_it_was_built_with(tmp_path: Path) -> None:
    from codememory.vectorstore import layout_named

    before = IndexGenerations(tmp_path, 4, layout=layout_named("ram")).projection(1, SparseEncoder())
    before.index.close()
    marker = tmp_path / "memories" / "gen-1" / "model.json"
    marker.write_text('{"model_id": "", "dim": 4}')  # as written before layouts
    disk = IndexGenerations(tmp_path, 4, layout=layout_named("disk"))
    assert disk.layout_of(1).name == "ram"  # built before layouts were recorded: ram, not the configured
    assert disk.layout_of(2).name == "disk"  # a new generation (a replay's) gets the configured one
    fresh = disk.projection(2, SparseEncoder())
    assert isinstance(fresh.index, EdgeVectorIndex) and fresh.index.layout.name == "disk"
    fresh.index.close()
    again = IndexGenerations(tmp_path, 4)  # the default (int8) configured since: generation 2 stays disk
    assert again.layout_of(2).name == "disk" and again.layout_of(1).name == "ram"
    assert again.layout_of(3).name == "int8"  # the next one is built in the default
