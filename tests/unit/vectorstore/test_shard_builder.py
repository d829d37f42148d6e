"""What ``ShardBuilder`` adds to the contract (run in test_contract): reads answered without waiting
for the child, exactly; a write the child fails reported by the next call; the shard handed back."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from vectorstore_support import DIM, FLOATS, KEYWORDS, pid, unit  # type: ignore[import-not-found]

from codememory.vectorstore import (
    EdgeVectorIndex,
    IndexFilter,
    IndexPoint,
    IndexUnavailableError,
    ShardBuilder,
    StoredPoint,
    index_digest,
)
from codememory.vectorstore.builder_worker import _ARGS, split_shared


def _builder(path: Path, **options: object) -> ShardBuilder:
    EdgeVectorIndex(path, DIM, keyword_fields=KEYWORDS, float_fields=FLOATS).close()
    return ShardBuilder(path, DIM, keyword_fields=KEYWORDS, float_fields=FLOATS, **options)  # type: ignore[arg-type]


def _point(n: int, **payload: object) -> IndexPoint:
    return IndexPoint(id=pid(n), payload={"n": n, **payload}, dense=unit(n, 1, 0, 0))


def test_every_filter_shape_crosses_the_pipe_unchanged() -> None:
    filters = [
        IndexFilter(),
        IndexFilter(equals={"tenant": "a", "n": 3, "ok": True}, not_equals={"state": "forgotten"}),
        IndexFilter(any_of={"tags": ["x", "y"], "state": []}, ids=[pid(1), pid(2)]),
        IndexFilter(ranges={"created_at": (None, 20.0), "created_seq": (1.0, None), "x": (0.5, 1.5)}),
    ]
    for flt in filters:
        wire = msgspec.msgpack.encode((flt, True))
        (decoded, with_vectors) = _ARGS["scroll"].decode(wire)
        assert msgspec.json.encode(decoded) == msgspec.json.encode(flt) and with_vectors is True
        assert decoded.ids == list(flt.ids) and decoded.ranges == flt.ranges


def test_reads_after_writes_are_exact_recent_or_not(tmp_path: Path) -> None:
    builder = _builder(tmp_path / "shard", recent=1)
    try:
        builder.upsert([_point(1, session_id="s1"), _point(2, session_id="s1")])
        builder.upsert([_point(3, session_id="s2")])  # point 1 and 2 are no longer recent: asked of the child
        builder.upsert([_point(2, session_id="s1", v=2)])
        found = builder.get([pid(3), pid(1), pid(9), pid(2)], with_vectors=True)
        assert [p.id for p in found] == [pid(3), pid(1), pid(2)]
        assert found[2].payload == {"n": 2, "session_id": "s1", "v": 2}
        assert found[1].dense == pytest.approx(unit(1, 1, 0, 0))
        assert builder.get([pid(9)]) == []
        in_s1 = IndexFilter(equals={"session_id": "s1"})
        assert sorted(p.id for p in builder.scroll(in_s1)) == sorted([pid(1), pid(2)])
        assert list(builder.scroll(IndexFilter(equals={"session_id": "never"}))) == []
        builder.delete([pid(2)])
        assert [p.id for p in builder.get([pid(2), pid(3)])] == [pid(3)]
    finally:
        builder.close()


def test_a_write_the_child_fails_is_reported_by_the_next_call(tmp_path: Path) -> None:
    builder = _builder(tmp_path / "shard")
    try:
        bad = IndexPoint(id=pid(1), payload={1: "not a string key"})  # type: ignore[dict-item]
        builder.upsert([bad])  # returns at once: the child has not applied it yet
        with pytest.raises(IndexUnavailableError, match="failed a write"):
            builder.flush()
        with pytest.raises(IndexUnavailableError):
            builder.count(IndexFilter())
    finally:
        with pytest.raises(IndexUnavailableError):
            builder.close()
    with pytest.raises(IndexUnavailableError):
        builder.get([pid(1)])


def test_closed_the_shard_opens_in_process_with_every_write(tmp_path: Path) -> None:
    builder = _builder(tmp_path / "shard")
    builder.upsert([_point(n, tenant="a") for n in range(1, 4)])
    builder.upsert([_point(4, tenant="b")])
    assert builder.optimize() in (True, False)
    builder.close()
    builder.close()  # twice is harmless
    edge = EdgeVectorIndex(tmp_path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS)
    try:
        stored = edge.get([pid(n) for n in range(1, 5)])
        assert [p.payload for p in stored] == [
            {"n": 1, "tenant": "a"},
            {"n": 2, "tenant": "a"},
            {"n": 3, "tenant": "a"},
            {"n": 4, "tenant": "b"},
        ]
        assert all(isinstance(p, StoredPoint) for p in stored)
        assert edge.count(IndexFilter(equals={"tenant": "a"})) == 3
    finally:
        edge.close()


def _persisted_threads(shard: Path) -> int:
    """The HNSW build threads the shard persisted (Qdrant Edge's ``edge_config.json``)."""
    config = json.loads((shard / "edge_config.json").read_text())
    return int(config["hnsw_config"]["max_indexing_threads"])


def test_a_rebuild_builds_on_its_threads_and_the_shard_reopens_with_the_live_setting(tmp_path: Path) -> None:
    """A replay's child may build the HNSW on more threads; the shard persists that with its HNSW
    parameters, so opening it in process afterwards states the live setting again (same points)."""
    builder = _builder(tmp_path / "shard", indexing_threads=2)
    builder.upsert([_point(n, tenant="a") for n in range(1, 6)])
    assert builder.optimize() in (True, False)
    assert _persisted_threads(tmp_path / "shard") == 2
    built = index_digest(builder, IndexFilter())
    builder.close()
    edge = EdgeVectorIndex(tmp_path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS)
    try:
        assert _persisted_threads(tmp_path / "shard") == 0
        assert index_digest(edge, IndexFilter()) == built and edge.count(IndexFilter()) == 5
        assert edge.optimize() is False  # nothing to build again: the thread count is not a graph parameter
    finally:
        edge.close()
    with pytest.raises(ValueError, match="indexing_threads"):
        EdgeVectorIndex(tmp_path / "other", DIM, indexing_threads=-1)


def test_shared_payload_values_are_split_off_and_merge_back_to_each_point() -> None:
    def payload(n: int) -> dict[str, object]:
        odd = n % 2 == 1
        return {"tenant": "a", "n": n, "one": 1 if odd else 1.0, "flag": True, "zero": -0.0 if odd else 0.0,
                "tags": [] if n < 5 else ["x"], "meta": {}, "text": f"text {n}"}  # fmt: skip

    points = [IndexPoint(id=pid(n), payload=payload(n)) for n in range(8)]
    own, shared = split_shared(points, min_shared=2)
    merged = {p.id: dict(p.payload) for p in own}
    for values, ids in shared:
        for point_id in ids:
            assert not set(values) & set(merged[point_id])
            merged[point_id].update(values)
    for point in points:
        assert merged[point.id] == point.payload
        assert [(k, type(v), str(v)) for k, v in sorted(merged[point.id].items())] == [
            (k, type(v), str(v)) for k, v in sorted(point.payload.items())
        ]  # 1 stays apart from 1.0 and True, -0.0 from 0.0
    assert own[0].payload == {"n": 0, "text": "text 0"}  # tenant, one/zero (4 each), flag, tags, meta shared
    assert own[6] is points[6]  # alone in holding what it holds: not worth a merge
    assert split_shared(points, min_shared=9) == (points, [])
    assert split_shared([*points, points[0]], min_shared=4) == ([*points, points[0]], [])


def test_the_child_digests_what_the_shard_holds_and_an_abort_ends_the_wait(tmp_path: Path) -> None:
    """A replay's check runs in the child (``digest``); a stopping gateway kills it (``abort``)."""
    builder = _builder(tmp_path / "shard")
    builder.upsert([_point(n, tenant="a") for n in range(1, 30)])
    digest = builder.digest()
    builder.close()
    shard = EdgeVectorIndex(tmp_path / "shard", DIM, keyword_fields=KEYWORDS, float_fields=FLOATS)
    assert digest == index_digest(shard, IndexFilter())
    shard.close()
    builder = _builder(tmp_path / "shard")
    builder.abort()
    with pytest.raises(IndexUnavailableError):
        builder.optimize()
    with pytest.raises(IndexUnavailableError):
        builder.close()
    builder.close()  # closed: harmless again


def test_a_child_that_flushes_while_idle_writes_the_same_shard(tmp_path: Path) -> None:
    """``flush_points``: flushed between upserts (every one here) or only when asked, the same points."""
    digests = []
    for name, flush_points in (("idle", 1), ("asked", 0)):
        builder = _builder(tmp_path / name, flush_points=flush_points)
        for start in range(0, 30, 10):
            builder.upsert([_point(n, session_id=f"s{n % 3}") for n in range(start, start + 10)])
            builder.get([pid(start)])  # a round trip: the child is idle after it, and flushes
        builder.delete([pid(4)])
        builder.close()
        shard = EdgeVectorIndex(tmp_path / name, DIM, keyword_fields=KEYWORDS, float_fields=FLOATS)
        assert shard.count(IndexFilter()) == 29
        digests.append(index_digest(shard, IndexFilter()))
        shard.close()
    assert digests[0] == digests[1]
