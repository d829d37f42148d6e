"""Qdrant Edge specifics: the shard lives on disk, is reopened, and is locked by its one owner."""

from __future__ import annotations

from pathlib import Path

import pytest
from qdrant_edge import EdgeShard
from vectorstore_support import pid, unit  # type: ignore[import-not-found]

from codememory.lexical import SparseVec
from codememory.vectorstore import (
    DEFAULT_FLOAT_FIELDS,
    DEFAULT_KEYWORD_FIELDS,
    DenseSearch,
    EdgeVectorIndex,
    IndexFilter,
    IndexPoint,
    IndexUnavailableError,
)


def test_reopening_from_disk_keeps_points_and_vectors(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "shard"
    index = EdgeVectorIndex(path, 4)
    sparse = SparseVec((5, 9), (0.5, 2.0))
    index.upsert([IndexPoint(id=pid(1), payload={"tenant": "a"}, dense=unit(0, 0, 1, 0), sparse=sparse)])
    index.upsert([IndexPoint(id=pid(2), payload={"tenant": "b"}, sparse=sparse)])
    index.set_payload(pid(2), {"state": "active"})
    index.close()

    reopened = EdgeVectorIndex(path, 4)
    try:
        assert reopened.count(IndexFilter()) == 2
        first, second = reopened.get([pid(1), pid(2)], with_vectors=True)
        assert first.dense == pytest.approx(unit(0, 0, 1, 0))
        assert first.sparse == sparse
        assert second.payload == {"tenant": "b", "state": "active"}
        assert second.dense is None
        assert [
            h.id for h in reopened.search_dense(unit(0, 0, 1, 0), IndexFilter(equals={"tenant": "a"}), 3)
        ] == [pid(1)]
    finally:
        reopened.close()


def test_payload_indexes_are_created_once(tmp_path: Path) -> None:
    EdgeVectorIndex(tmp_path / "shard", 4).close()
    EdgeVectorIndex(tmp_path / "shard", 4).close()  # reopening finds them and creates nothing
    shard = EdgeShard.load(str(tmp_path / "shard"))
    try:
        assert set(shard.info().payload_schema) == {*DEFAULT_KEYWORD_FIELDS, *DEFAULT_FLOAT_FIELDS}
    finally:
        shard.close()


def test_an_index_the_fields_no_longer_name_is_dropped_at_open(tmp_path: Path) -> None:
    """A shard made when the memory id was indexed gives that memory back once opened again."""
    old = EdgeVectorIndex(tmp_path / "shard", 4, keyword_fields=(*DEFAULT_KEYWORD_FIELDS, "memory_id"))
    old.upsert([IndexPoint(id=pid(1), payload={"tenant": "a", "memory_id": "m1"}, dense=unit(1, 0, 0, 0))])
    old.close()
    reopened = EdgeVectorIndex(tmp_path / "shard", 4)
    try:  # unindexed, the field still filters (the engine reads payloads)
        assert [p.id for p in reopened.scroll(IndexFilter(equals={"memory_id": "m1"}))] == [pid(1)]
    finally:
        reopened.close()
    shard = EdgeShard.load(str(tmp_path / "shard"))
    try:
        assert set(shard.info().payload_schema) == {*DEFAULT_KEYWORD_FIELDS, *DEFAULT_FLOAT_FIELDS}
    finally:
        shard.close()


def test_a_second_owner_and_a_wrong_dense_size_are_refused(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    with pytest.raises(IndexUnavailableError):
        EdgeVectorIndex(tmp_path / "shard", 4)  # the WAL is locked by the first
    index.close()
    with pytest.raises(IndexUnavailableError, match="vector size"):
        EdgeVectorIndex(tmp_path / "shard", 8)


def test_a_search_breadth_is_passed_to_the_engine(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "shard", 4, search=DenseSearch(hnsw_ef=16))
    try:
        points = [IndexPoint(id=pid(n), payload={"tenant": "a"}, dense=unit(1, n, 0, 0)) for n in range(5)]
        index.upsert(points)
        index.optimize()
        hits = index.search_dense(unit(1, 0, 0, 0), IndexFilter(equals={"tenant": "a"}), 2)
        assert [h.id for h in hits] == [pid(0), pid(1)]
    finally:
        index.close()
