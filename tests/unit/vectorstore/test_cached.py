"""The payload cache: what it keeps, what it drops, and that a read racing a write keeps nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from vectorstore_support import DIM, pid  # type: ignore[import-not-found]

from codememory.vectorstore import EdgeVectorIndex, IndexFilter, IndexPoint, PayloadCachedIndex, StoredPoint


def _cached(tmp_path: Path, capacity: int) -> tuple[EdgeVectorIndex, PayloadCachedIndex]:
    edge = EdgeVectorIndex(tmp_path / "shard", DIM)
    edge.upsert([IndexPoint(id=pid(n), payload={"tenant": "t", "state": "active", "n": n}) for n in range(5)])
    return edge, PayloadCachedIndex(edge, capacity)


def test_a_second_read_of_the_same_points_is_answered_from_memory(tmp_path: Path) -> None:
    _, cached = _cached(tmp_path, 10)
    flt = IndexFilter(equals={"tenant": "t"}, ids=[pid(1), pid(2)])
    assert len(list(cached.scroll(flt))) == 2 and (cached.hits, cached.misses) == (0, 2)
    assert len(list(cached.scroll(flt))) == 2 and (cached.hits, cached.misses) == (2, 2)
    assert [p.payload["n"] for p in cached.get([pid(2)])] == [2] and cached.hits == 3
    other_tenant = IndexFilter(equals={"tenant": "u"}, ids=[pid(1), pid(2)])
    assert list(cached.scroll(other_tenant)) == []  # cached, and still filtered
    cached.close()


def test_the_least_recently_used_payload_goes_first(tmp_path: Path) -> None:
    _, cached = _cached(tmp_path, 2)
    cached.get([pid(0)])
    cached.get([pid(1)])
    cached.get([pid(0)])  # 0 is now the most recent
    cached.get([pid(2)])  # evicts 1
    hits = cached.hits
    cached.get([pid(0), pid(2)])
    assert cached.hits == hits + 2
    cached.get([pid(1)])
    assert cached.hits == hits + 2
    cached.close()


def test_a_read_that_raced_a_write_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edge, cached = _cached(tmp_path, 10)
    real_get = edge.get

    def racing_get(point_ids: list[str], with_vectors: bool = False) -> list[StoredPoint]:
        read = real_get(point_ids, with_vectors)
        cached.set_payload(pid(1), {"state": "forgotten"})  # applied while the read was in flight
        return read

    monkeypatch.setattr(edge, "get", racing_get)
    assert cached.get([pid(1)])[0].payload["state"] == "active"  # what the engine returned then
    monkeypatch.setattr(edge, "get", real_get)
    assert cached.get([pid(1)])[0].payload["state"] == "forgotten"
    cached.close()


def test_capacity_must_be_positive(tmp_path: Path) -> None:
    edge = EdgeVectorIndex(tmp_path / "shard", DIM)
    with pytest.raises(ValueError, match="capacity"):
        PayloadCachedIndex(edge, 0)
    edge.close()


def test_dense_vectors_are_kept_beside_payloads_until_a_write_changes_them(tmp_path: Path) -> None:
    edge = EdgeVectorIndex(tmp_path / "shard", DIM)
    cached = PayloadCachedIndex(edge, 2)
    axes = [(1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0)]
    points = [IndexPoint(id=pid(n), payload={"n": n}, dense=axes[n]) for n in range(3)]
    cached.upsert(points)
    asked: list[list[str]] = []
    real = edge.dense_vectors

    def counting(point_ids: list[str]) -> dict[str, object]:
        asked.append(list(point_ids))
        return real(point_ids)  # type: ignore[return-value]

    edge.dense_vectors = counting  # type: ignore[method-assign,assignment]
    first = cached.dense_vectors([pid(0), pid(1)])
    assert cached.dense_vectors([pid(1), pid(0)]) == first and asked == [[pid(0), pid(1)]]
    assert list(first[pid(1)]) == [0.0, 1.0, 0.0, 0.0]  # the engine's float32 values, unchanged
    cached.set_payload(pid(0), {"m": 1})  # a payload write leaves the vector
    cached.dense_vectors([pid(0)])
    assert len(asked) == 1
    cached.set_dense(pid(0), (0.0, 0.0, 0.0, 1.0))  # a vector write does not
    assert list(cached.dense_vectors([pid(0)])[pid(0)]) == [0.0, 0.0, 0.0, 1.0]
    assert asked[-1] == [pid(0)]
    cached.delete([pid(1)])
    assert cached.dense_vectors([pid(1)]) == {} and asked[-1] == [pid(1)]
    cached.dense_vectors([pid(2)])  # capacity 2: the least recently used (1, absent, was never kept) ...
    cached.dense_vectors([pid(0), pid(2)])
    assert asked[-1] == [pid(2)]  # ... so 0 and 2 are both held
    cached.close()


def test_a_raced_vector_read_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edge = EdgeVectorIndex(tmp_path / "shard", DIM)
    cached = PayloadCachedIndex(edge, 10)
    cached.upsert([IndexPoint(id=pid(1), payload={}, dense=(1.0, 0.0, 0.0, 0.0))])
    real = edge.dense_vectors

    def racing(point_ids: list[str]) -> dict[str, object]:
        read = real(point_ids)
        cached.set_dense(pid(1), (0.0, 1.0, 0.0, 0.0))  # applied while the read was in flight
        return read  # type: ignore[return-value]

    monkeypatch.setattr(edge, "dense_vectors", racing)
    assert list(cached.dense_vectors([pid(1)])[pid(1)]) == [1.0, 0.0, 0.0, 0.0]
    monkeypatch.setattr(edge, "dense_vectors", real)
    assert list(cached.dense_vectors([pid(1)])[pid(1)]) == [0.0, 1.0, 0.0, 0.0]
    cached.close()
