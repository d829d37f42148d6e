"""Session-neighbour expansion on a real Qdrant Edge shard: ordered by creation, scoped by the filter."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codememory.recall.links import session_neighbours
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, IndexPoint


def _point(n: int, session: str, created_seq: int, tenant: str = "t") -> IndexPoint:
    payload = {"tenant": tenant, "session_id": session, "created_seq": created_seq, "state": "active"}
    return IndexPoint(id=str(uuid.UUID(int=n)), payload=payload)


def test_neighbours_are_the_memories_just_before_and_after_in_the_session(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    index.upsert(
        [
            _point(1, "a", 10),
            _point(2, "a", 13),
            _point(3, "a", 20),
            _point(4, "a", 30),
            _point(5, "b", 14),  # another session, in between by sequence
            _point(6, "a", 15, tenant="other"),  # another tenant, in between
        ]
    )
    parent = index.get([str(uuid.UUID(int=2))])[0]
    found = session_neighbours(index, IndexFilter(equals={"tenant": "t"}), [(parent.id, parent.payload, 0.8)])
    assert set(found) == {str(uuid.UUID(int=1)), str(uuid.UUID(int=3))}
    assert all(score == 0.8 for _, score in found.values())


def test_a_neighbour_keeps_its_best_parent_score(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    index.upsert([_point(1, "a", 10), _point(2, "a", 11), _point(3, "a", 12)])
    first, _, third = index.get([str(uuid.UUID(int=i)) for i in (1, 2, 3)])
    found = session_neighbours(
        index,
        IndexFilter(equals={"tenant": "t"}),
        [(first.id, first.payload, 0.4), (third.id, third.payload, 0.9)],
    )
    assert found[str(uuid.UUID(int=2))][1] == 0.9


def test_memories_without_a_session_have_no_neighbours(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    index.upsert([_point(1, "", 10), _point(2, "", 11)])
    (point,) = index.get([str(uuid.UUID(int=1))])
    assert session_neighbours(index, IndexFilter(), [(point.id, point.payload, 1.0)]) == {}


def _linked(n: int, previous: int | None, tenant: str = "t") -> IndexPoint:
    payload = {
        "tenant": tenant,
        "session_id": "a",
        "created_seq": n,
        "state": "active",
        "previous_id": str(uuid.UUID(int=previous)) if previous else "",
    }
    return IndexPoint(id=str(uuid.UUID(int=n)), payload=payload)


def test_linked_memories_find_their_neighbours_by_previous_id(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    # 1 <- 2 <- 4 (3 belongs to another tenant and names 2 as well; 5 follows 4)
    index.upsert(
        [_linked(1, None), _linked(2, 1), _linked(3, 2, tenant="other"), _linked(4, 2), _linked(5, 4)]
    )
    two, five = index.get([str(uuid.UUID(int=2)), str(uuid.UUID(int=5))])
    found = session_neighbours(
        index, IndexFilter(equals={"tenant": "t"}), [(two.id, two.payload, 0.7), (five.id, five.payload, 0.2)]
    )
    assert set(found) == {str(uuid.UUID(int=i)) for i in (1, 4)}
    assert found[str(uuid.UUID(int=4))][1] == 0.7  # the best of its parents (2 before it, 5 after it)


def test_an_executor_reads_the_same_neighbours(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    index.upsert([_linked(1, None), _linked(2, 1), _linked(3, 2), _linked(4, 3)])
    two, four = index.get([str(uuid.UUID(int=2)), str(uuid.UUID(int=4))])
    parents = [(two.id, two.payload, 0.7), (four.id, four.payload, 0.3)]
    flt = IndexFilter(equals={"tenant": "t"})
    with ThreadPoolExecutor(max_workers=1) as executor:
        together = session_neighbours(index, flt, parents, executor)
    alone = session_neighbours(index, flt, parents)
    assert {k: s for k, (_, s) in together.items()} == {k: s for k, (_, s) in alone.items()}
    assert set(together) == {str(uuid.UUID(int=i)) for i in (1, 3)}
    assert together[str(uuid.UUID(int=3))][1] == 0.7


def test_memories_linked_by_meaning_are_neighbours_across_sessions_within_the_filter(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    near, gone, foreign = (str(uuid.UUID(int=n)) for n in (7, 8, 9))
    parent = _point(1, "a", 10)
    parent.payload["links"] = [near, gone, foreign]
    merged = _point(8, "c", 40)
    merged.payload["state"] = "merged"
    index.upsert([parent, _point(7, "b", 50), merged, _point(9, "d", 60, tenant="other")])
    flt = IndexFilter(equals={"tenant": "t"}, any_of={"state": ["active"]})
    found = session_neighbours(index, flt, [(parent.id, parent.payload, 0.7)], semantic=1.0)
    assert set(found) == {near}  # a merged restatement and another tenant's memory stay out
    assert found[near][1] == 0.7
