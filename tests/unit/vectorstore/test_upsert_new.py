"""New points written with the values their batch shares set once (``upsert_new``): the same points
as ``upsert``, and a point is invisible to every tenant-filtered read until it is whole."""

from __future__ import annotations

import math
import uuid
from pathlib import Path

from codememory.lexical import SparseVec
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, IndexPoint, PayloadCachedIndex, index_digest
from codememory.vectorstore.shared import split_hidden

DIM = 4


def _points(n: int, tenant: str = "t", start: int = 0) -> list[IndexPoint]:
    return [
        IndexPoint(
            id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{tenant}/{i}")),
            payload={
                "tenant": tenant,
                "text": f"memory {i}",
                "state": "active",
                "branch": "",
                "paths": [],
                "metadata": {},
                "importance": 0.5 if i % 5 else -0.0,
                "seq": i,
                "tags": ["a"] if i % 2 else ["a", "b"],
            },
            sparse=SparseVec((i, 1000 + i), (1.0, 0.5)),
        )
        for i in range(start, start + n)
    ]


def test_upsert_new_stores_the_same_points_as_upsert(tmp_path: Path) -> None:
    points = [*_points(40), *_points(20, tenant="u")]
    whole, split = EdgeVectorIndex(tmp_path / "a", DIM), EdgeVectorIndex(tmp_path / "b", DIM)
    try:
        whole.upsert(points)
        split.upsert_new(points)
        everything = IndexFilter()
        assert index_digest(split, everything) == index_digest(whole, everything)
        assert [p.payload for p in split.get([points[7].id])] == [points[7].payload]
    finally:
        whole.close()
        split.close()


def test_a_split_point_has_the_tenant_among_its_shared_values_or_keeps_its_whole_payload() -> None:
    mixed = [*_points(30), *_points(3, tenant="u", start=100)]  # "u": not its batch's common tenant
    own, shared = split_hidden(mixed, "tenant", min_shared=4)
    assert shared and all(values["tenant"] == "t" for values, _ in shared)
    split_ids = {i for _, ids in shared for i in ids}
    for before, after in zip(mixed, own, strict=True):
        if before.id in split_ids:
            assert "tenant" not in after.payload and "text" in after.payload
        else:
            assert after.payload == before.payload
    assert {p.id for p in mixed[-3:]}.isdisjoint(split_ids)
    zeros = [after for before, after in zip(mixed, own, strict=True) if before.payload["importance"] == 0]
    assert len(zeros) == 7 and all(math.copysign(1, p.payload["importance"]) < 0 for p in zeros)


def test_a_half_written_point_is_invisible_to_tenant_reads(tmp_path: Path) -> None:
    """What a crash between the two engine updates leaves: no tenant, so no tenant-filtered read
    finds it (the memory projection takes such a point for absent and writes it again)."""
    index = EdgeVectorIndex(tmp_path / "s", DIM)
    try:
        own, _ = split_hidden(_points(20), "tenant", min_shared=2)
        index.upsert(own)
        tenant = IndexFilter(equals={"tenant": "t"})
        assert index.count(IndexFilter()) == 20 and index.count(tenant) == 0
        assert index.search_sparse(SparseVec((3,), (1.0,)), tenant, 5) == []
    finally:
        index.close()


def test_the_payload_cache_forgets_what_upsert_new_writes(tmp_path: Path) -> None:
    cached = PayloadCachedIndex(EdgeVectorIndex(tmp_path / "c", DIM), 100)
    try:
        first = _points(20)
        cached.upsert(first)
        assert cached.get([first[0].id])[0].payload["text"] == "memory 0"  # now in the cache
        rewritten = [IndexPoint(id=p.id, payload={**p.payload, "text": "again"}) for p in first]
        cached.upsert_new(rewritten)
        assert cached.get([first[0].id])[0].payload["text"] == "again"
    finally:
        cached.close()
