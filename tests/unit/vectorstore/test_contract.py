"""The VectorIndex contract, run against Qdrant Edge, qdrant-client local mode and Edge behind the payload
cache (see conftest)."""

from __future__ import annotations

import msgspec
import pytest
from vectorstore_support import pid, unit  # type: ignore[import-not-found]

from codememory.lexical import SparseEncoder, SparseVec, code_terms
from codememory.vectorstore import (
    EdgeVectorIndex,
    IndexFilter,
    IndexPoint,
    IndexUnavailableError,
    PairedSearch,
    PayloadCachedIndex,
    PointNotFoundError,
    VectorIndex,
    VectorIndexError,
    search_pair,
)

EVERYTHING = IndexFilter()
ENCODER = SparseEncoder()


def point(
    n: int, dense: tuple[float, ...] | None = None, sparse: SparseVec | None = None, **payload: object
) -> IndexPoint:
    return IndexPoint(id=pid(n), payload={"n": n, **payload}, dense=dense, sparse=sparse)


def ids(points: object) -> set[str]:
    return {p.id for p in points}  # type: ignore[attr-defined]


def test_upsert_get_round_trip(index: VectorIndex) -> None:
    payload = {"tenant": "a", "tags": ["x", "y"], "importance": 0.5, "ok": True, "meta": {"k": "v"}, "n": 1}
    sparse = SparseVec((3, 7), (0.5, 1.25))
    index.upsert([IndexPoint(id=pid(1), payload=payload, dense=unit(1, 0, 0, 0), sparse=sparse)])

    [stored] = index.get([pid(1)], with_vectors=True)
    assert stored.id == pid(1)
    assert stored.payload == payload
    assert stored.dense == pytest.approx(unit(1, 0, 0, 0))
    assert stored.sparse == sparse

    [bare] = index.get([pid(1)])
    assert bare.payload == payload
    assert bare.dense is None and bare.sparse is None


def test_dense_vectors_reads_only_the_points_that_have_one(index: VectorIndex) -> None:
    sparse = SparseVec((3,), (1.0,))
    index.upsert([point(1, unit(1, 0, 0, 0), sparse), point(2, sparse=sparse), point(3, unit(0, 1, 1, 0))])
    found = index.dense_vectors([pid(3), pid(2), pid(9), pid(1).upper(), pid(3)])
    assert set(found) == {pid(1), pid(3)}  # canonical ids; none without a dense vector or missing
    assert tuple(found[pid(1)]) == pytest.approx(unit(1, 0, 0, 0))
    assert tuple(found[pid(3)]) == pytest.approx(unit(0, 1, 1, 0))
    index.set_dense(pid(1), unit(0, 0, 0, 1))  # a later read sees the new vector (a cache forgets)
    assert tuple(index.dense_vectors([pid(1)])[pid(1)]) == pytest.approx(unit(0, 0, 0, 1))
    index.delete([pid(3)])
    assert index.dense_vectors([pid(3)]) == {} and index.dense_vectors([]) == {}


def test_get_skips_missing_keeps_order_and_dedupes(index: VectorIndex) -> None:
    index.upsert([point(1), point(2), point(3)])
    found = index.get([pid(3), pid(9), pid(1), pid(3)])
    assert [p.id for p in found] == [pid(3), pid(1)]
    assert index.get([]) == []


def test_ids_come_back_canonical(index: VectorIndex) -> None:
    index.upsert([IndexPoint(id=pid(1).upper(), payload={})])
    assert [p.id for p in index.get([pid(1)])] == [pid(1)]


def test_bad_id_and_wrong_dimension_are_index_errors(index: VectorIndex) -> None:
    with pytest.raises(VectorIndexError):
        index.upsert([IndexPoint(id="not-a-uuid", payload={})])
    with pytest.raises(VectorIndexError):
        index.upsert([point(1, dense=(1.0, 0.0))])
    with pytest.raises(VectorIndexError):
        index.search_dense([1.0], EVERYTHING, 5)


def test_sparse_only_point_then_set_dense(index: VectorIndex) -> None:
    sparse = ENCODER.encode_document("retry the upload")
    index.upsert([point(1, sparse=sparse, tenant="a")])
    assert index.search_dense(unit(1, 1, 0, 0), EVERYTHING, 5) == []

    index.set_dense(pid(1), unit(1, 1, 0, 0))

    [stored] = index.get([pid(1)], with_vectors=True)
    assert stored.dense == pytest.approx(unit(1, 1, 0, 0))
    assert stored.sparse == sparse
    assert stored.payload == {"n": 1, "tenant": "a"}
    assert [h.id for h in index.search_dense(unit(1, 1, 0, 0), EVERYTHING, 5)] == [pid(1)]


def test_replace_sparse_keeps_dense_and_payload(index: VectorIndex) -> None:
    index.upsert([point(1, dense=unit(0, 1, 0, 0), sparse=ENCODER.encode_document("old words"), tenant="a")])
    new = ENCODER.encode_document("fresh retry policy")
    index.replace_sparse(pid(1), new)

    [stored] = index.get([pid(1)], with_vectors=True)
    assert stored.sparse == new
    assert stored.dense == pytest.approx(unit(0, 1, 0, 0))
    assert stored.payload == {"n": 1, "tenant": "a"}
    assert index.search_sparse(ENCODER.encode_query("old"), EVERYTHING, 5) == []
    assert [h.id for h in index.search_sparse(ENCODER.encode_query("retry"), EVERYTHING, 5)] == [pid(1)]


def test_set_payload_merges(index: VectorIndex) -> None:
    index.upsert([point(1, dense=unit(1, 0, 0, 0), tenant="a", state="active")])
    index.set_payload(pid(1), {"state": "deprecated", "seq": 7})

    [stored] = index.get([pid(1)], with_vectors=True)
    assert stored.payload == {"n": 1, "tenant": "a", "state": "deprecated", "seq": 7}
    assert stored.dense == pytest.approx(unit(1, 0, 0, 0))


def test_updates_of_a_missing_point_raise_point_not_found(index: VectorIndex) -> None:
    with pytest.raises(PointNotFoundError):
        index.set_payload(pid(5), {"a": 1})
    with pytest.raises(PointNotFoundError):
        index.set_dense(pid(5), unit(1, 0, 0, 0))
    with pytest.raises(PointNotFoundError):
        index.replace_sparse(pid(5), SparseVec((1,), (1.0,)))
    assert index.count(EVERYTHING) == 0


def test_delete(index: VectorIndex) -> None:
    index.upsert([point(1), point(2)])
    index.delete([pid(1), pid(9)])
    index.delete([])
    assert ids(index.get([pid(1), pid(2)])) == {pid(2)}
    assert index.count(EVERYTHING) == 1


def test_upserting_twice_leaves_one_point_with_the_last_content(index: VectorIndex) -> None:
    index.upsert([point(1, dense=unit(1, 0, 0, 0), sparse=SparseVec((1,), (1.0,)), v=1)])
    index.upsert([point(1, v=2)])
    assert index.count(EVERYTHING) == 1
    [stored] = index.get([pid(1)], with_vectors=True)
    assert stored.payload == {"n": 1, "v": 2}
    assert stored.dense is None and stored.sparse is None


@pytest.fixture
def filtered(index: VectorIndex) -> VectorIndex:
    index.upsert(
        [
            point(
                1,
                dense=unit(1, 0, 0, 0),
                tenant="a",
                state="active",
                tags=["auth", "jwt"],
                created_at=10.0,
                memory_id="a1b2c3d4-0001",
            ),
            point(
                2,
                dense=unit(1, 1, 0, 0),
                tenant="a",
                state="deprecated",
                tags=["db"],
                created_at=20.0,
                memory_id="a1b2ffff-0002",
            ),
            point(
                3,
                dense=unit(0, 1, 0, 0),
                tenant="b",
                state="active",
                tags=["auth"],
                created_at=30.0,
                memory_id="c0ffee00-0003",
            ),
            point(
                4,
                dense=unit(0, 0, 1, 0),
                tenant="b",
                state="forgotten",
                created_at=40.5,
                memory_id="a1b2c3d4-0004",
            ),
        ]
    )
    return index


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        (IndexFilter(), {1, 2, 3, 4}),
        (IndexFilter(equals={"tenant": "a"}), {1, 2}),
        (IndexFilter(equals={"tenant": "a", "state": "active"}), {1}),
        (IndexFilter(equals={"n": 3}), {3}),
        (IndexFilter(any_of={"tags": ["jwt", "db"]}), {1, 2}),
        (IndexFilter(any_of={"tags": ["auth"]}), {1, 3}),
        (IndexFilter(any_of={"state": ["active", "deprecated"]}), {1, 2, 3}),
        (IndexFilter(any_of={"state": []}), set()),
        (IndexFilter(not_equals={"state": "forgotten"}), {1, 2, 3}),
        (IndexFilter(not_equals={"tags": "auth"}), {2, 4}),
        (IndexFilter(ranges={"created_at": (20.0, None)}), {2, 3, 4}),
        (IndexFilter(ranges={"created_at": (None, 20.0)}), {1, 2}),
        (IndexFilter(ranges={"created_at": (15.0, 40.5)}), {2, 3, 4}),
        (
            IndexFilter(
                equals={"tenant": "b"}, any_of={"tags": ["auth"]}, ranges={"created_at": (0.0, 35.0)}
            ),
            {3},
        ),
        (IndexFilter(prefixes={"state": "act"}), {1, 3}),
        (IndexFilter(prefixes={"state": "active"}), {1, 3}),
        (IndexFilter(prefixes={"tags": "jw"}), {1}),  # an element of a list
        (IndexFilter(equals={"tenant": "b"}, prefixes={"state": "f"}), {4}),
        (IndexFilter(prefixes={"state": "activex"}), set()),
        (IndexFilter(prefixes={"missing": "a"}), set()),
        (IndexFilter(prefixes={"kind": "a"}), set()),  # a field no point has, and no index
        (IndexFilter(prefixes={"memory_id": "a1b2"}), {1, 2, 4}),  # a field with no index
        (IndexFilter(prefixes={"memory_id": "a1b2c3d4"}), {1, 4}),
        (IndexFilter(equals={"tenant": "a"}, prefixes={"memory_id": "a1b2c3d4"}), {1}),
    ],
)
def test_filters(filtered: VectorIndex, flt: IndexFilter, expected: set[int]) -> None:
    want = {pid(n) for n in expected}
    assert ids(filtered.scroll(flt)) == want
    assert filtered.count(flt) == len(want)
    assert ids(filtered.search_dense(unit(1, 1, 1, 1), flt, 10)) == want
    by_ids = msgspec.structs.replace(flt, ids=[pid(n) for n in (4, 9, 3, 2, 1)])
    first = [p.id for p in filtered.scroll(by_ids)]  # asked twice: a cache answers the second
    assert first == sorted(want) and [p.id for p in filtered.scroll(by_ids)] == first


def test_a_read_after_a_write_sees_the_write(index: VectorIndex) -> None:
    index.upsert([point(1, tenant="a", state="active")])
    active = IndexFilter(equals={"state": "active"}, ids=[pid(1)])
    assert ids(index.scroll(active)) == {pid(1)} and index.get([pid(1)])[0].payload["state"] == "active"
    index.set_payload(pid(1), {"state": "forgotten"})
    assert ids(index.scroll(active)) == set() and index.get([pid(1)])[0].payload["state"] == "forgotten"
    index.upsert([point(1, tenant="a", state="active", v=2)])
    assert [p.payload["v"] for p in index.scroll(active)] == [2]
    index.delete([pid(1)])
    assert index.get([pid(1)]) == [] and ids(index.scroll(active)) == set()


def test_changing_a_returned_payload_changes_nothing_stored(index: VectorIndex) -> None:
    index.upsert([point(1, tenant="a")])
    index.get([pid(1)])[0].payload["tenant"] = "b"
    for p in index.scroll(IndexFilter(ids=[pid(1)])):
        p.payload["tenant"] = "c"
    assert index.get([pid(1)])[0].payload["tenant"] == "a"


def test_search_dense_orders_by_cosine(filtered: VectorIndex) -> None:
    hits = filtered.search_dense(unit(1, 0.2, 0, 0), EVERYTHING, 3, with_vectors=True)
    assert [h.id for h in hits] == [pid(1), pid(2), pid(3)]
    assert hits[0].score == pytest.approx(unit(1, 0.2, 0, 0)[0], abs=1e-5)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].dense == pytest.approx(unit(1, 0, 0, 0))
    assert hits[0].payload["tenant"] == "a"
    assert all(h.dense is None for h in filtered.search_dense(unit(1, 0, 0, 0), EVERYTHING, 3))


def test_search_dense_without_payloads_keeps_ids_and_scores(filtered: VectorIndex) -> None:
    full = filtered.search_dense(unit(1, 0.2, 0, 0), EVERYTHING, 3)
    bare = filtered.search_dense(unit(1, 0.2, 0, 0), EVERYTHING, 3, with_payload=False)
    assert [(h.id, h.score) for h in bare] == [(h.id, h.score) for h in full]
    assert all(h.payload == {} for h in bare) and all(h.payload for h in full)


def test_search_sparse_ranks_by_bm25(index: VectorIndex) -> None:
    texts = {
        1: "validateToken() rejects an expired token before the retry",
        2: "the retry budget for uploads is three attempts",
        3: "use the staging database for migrations",
        4: "token refresh happens in validateToken, token expiry is checked there",
    }
    index.upsert([point(n, sparse=ENCODER.encode_document(code_terms(t))) for n, t in texts.items()])
    hits = index.search_sparse(ENCODER.encode_query(code_terms("validate token")), EVERYTHING, 10)
    assert [h.id for h in hits][:2] == [pid(4), pid(1)]
    assert ids(hits) == {pid(1), pid(4)}
    assert all(h.score > 0 for h in hits)
    assert index.search_sparse(SparseVec(), EVERYTHING, 10) == []
    bare = index.search_sparse(ENCODER.encode_query(code_terms("validate token")), EVERYTHING, 10, False)
    assert [(h.id, h.score) for h in bare] == [(h.id, h.score) for h in hits]
    assert all(h.payload == {} for h in bare) and all(h.payload for h in hits)


def test_search_pair_is_both_searches_without_payloads(index: VectorIndex) -> None:
    texts = {1: "retry the upload", 2: "token refresh in validateToken", 3: "retry budget", 4: "staging db"}
    index.upsert(
        [
            point(n, dense=unit(n, 1, 0, 0), sparse=ENCODER.encode_document(code_terms(t)), tenant="a")
            for n, t in texts.items()
        ]
        + [point(5, dense=unit(1, 1, 0, 0), sparse=ENCODER.encode_document("retry"), tenant="b")]
    )
    query, only_a = ENCODER.encode_query(code_terms("retry token")), IndexFilter(equals={"tenant": "a"})
    dense, lexical = search_pair(index, unit(1, 1, 0, 0), query, only_a, 3)
    want_dense = index.search_dense(unit(1, 1, 0, 0), only_a, 3, with_payload=False)
    want_lexical = index.search_sparse(query, only_a, 3, False)
    assert [(h.id, h.score) for h in dense] == [(h.id, h.score) for h in want_dense] and len(dense) == 3
    assert [(h.id, h.score) for h in lexical] == [(h.id, h.score) for h in want_lexical]
    assert {h.id for h in lexical} == {pid(1), pid(2), pid(3)}
    assert all(h.payload == {} for h in [*dense, *lexical])
    assert search_pair(index, unit(1, 1, 0, 0), SparseVec(), only_a, 3)[1] == []  # no terms: no BM25
    assert search_pair(index, unit(1, 1, 0, 0), query, IndexFilter(any_of={"state": []}), 3) == ([], [])
    # Edge, in either layout and behind the cache, answers in one engine call (``query_batch``)
    if isinstance(index, EdgeVectorIndex | PayloadCachedIndex):
        assert isinstance(index, PairedSearch)


def test_tenant_isolation_via_equals_filter(index: VectorIndex) -> None:
    text = ENCODER.encode_document("deploy with the blue green script")
    index.upsert([point(1, dense=unit(1, 0, 0, 0), sparse=text, tenant="a")])
    index.upsert([point(2, dense=unit(1, 0, 0, 0), sparse=text, tenant="b")])
    only_b = IndexFilter(equals={"tenant": "b"})
    assert [h.id for h in index.search_dense(unit(1, 0, 0, 0), only_b, 10)] == [pid(2)]
    assert [h.id for h in index.search_sparse(ENCODER.encode_query("deploy"), only_b, 10)] == [pid(2)]
    assert [p.id for p in index.scroll(only_b)] == [pid(2)]


def test_scroll_is_in_stable_id_order_across_pages(index: VectorIndex) -> None:
    index.upsert([point(n, tenant="a" if n % 2 else "b") for n in range(11)])
    first = [p.id for p in index.scroll(EVERYTHING, batch=3)]
    assert first == sorted(pid(n) for n in range(11))
    assert [p.id for p in index.scroll(EVERYTHING, batch=4)] == first
    assert [p.id for p in index.scroll(IndexFilter(equals={"tenant": "a"}), batch=2)] == sorted(
        pid(n) for n in range(11) if n % 2
    )


def test_closed_index_is_unavailable(index: VectorIndex) -> None:
    index.upsert([point(1)])
    index.flush()
    index.close()
    index.close()
    with pytest.raises(IndexUnavailableError):
        index.get([pid(1)])
    with pytest.raises(IndexUnavailableError):
        index.flush()


def test_ids_filter_restricts_to_those_points(index: VectorIndex) -> None:
    points = [
        IndexPoint(id=pid(i + 500), payload={"tenant": "t"}, dense=unit(1.0, float(i), 0.5, 0.25))
        for i in range(5)
    ]
    index.upsert(points)
    wanted = [points[1].id, points[3].id]
    hits = index.search_dense(unit(1.0, 0.0, 0.5, 0.25), IndexFilter(equals={"tenant": "t"}, ids=wanted), 10)
    assert sorted(h.id for h in hits) == sorted(wanted)
    assert index.count(IndexFilter(ids=wanted)) == 2


def test_optimize_keeps_every_point_searchable(index: VectorIndex) -> None:
    points = [
        IndexPoint(id=pid(i + 700), payload={"tenant": "t"}, dense=unit(1.0, float(i), 0.5, 0.25))
        for i in range(50)
    ]
    index.upsert(points)
    index.optimize()
    assert index.count(IndexFilter(equals={"tenant": "t"})) == 50
    assert index.search_dense(unit(1.0, 3.0, 0.5, 0.25), IndexFilter(equals={"tenant": "t"}), 1)[0].id == pid(
        703
    )
