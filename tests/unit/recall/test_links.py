"""Session-neighbour expansion on a real Qdrant Edge shard: ordered by creation, scoped by the filter."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codememory.memory import memory_id_of, point_ids
from codememory.recall.links import session_neighbours
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, IndexPoint, StoredPoint


def _get(index: EdgeVectorIndex, *numbers: int, tenant: str = "t") -> list[StoredPoint]:
    """The tenant's memories ``numbers`` (memory ids ``UUID(int=n)``), read by their point ids."""
    return index.get(point_ids(tenant, [str(uuid.UUID(int=n)) for n in numbers]))


def _point(n: int, session: str, created_seq: int, tenant: str = "t") -> IndexPoint:
    mid = str(uuid.UUID(int=n))
    payload = {"tenant": tenant, "memory_id": mid, "session_id": session, "created_seq": created_seq}
    payload["state"] = "active"
    return IndexPoint(id=point_ids(tenant, [mid])[0], payload=payload)


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
    parent = _get(index, 2)[0]
    found = session_neighbours(
        index, IndexFilter(equals={"tenant": "t"}), [(memory_id_of(parent), parent.payload, 0.8)]
    )
    assert set(found) == {str(uuid.UUID(int=1)), str(uuid.UUID(int=3))}
    assert all(score == 0.8 for _, score in found.values())


def test_a_neighbour_keeps_its_best_parent_score(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    index.upsert([_point(1, "a", 10), _point(2, "a", 11), _point(3, "a", 12)])
    first, _, third = _get(index, 1, 2, 3)
    found = session_neighbours(
        index,
        IndexFilter(equals={"tenant": "t"}),
        [(memory_id_of(first), first.payload, 0.4), (memory_id_of(third), third.payload, 0.9)],
    )
    assert found[str(uuid.UUID(int=2))][1] == 0.9


def test_memories_without_a_session_have_no_neighbours(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    index.upsert([_point(1, "", 10), _point(2, "", 11)])
    (point,) = _get(index, 1)
    assert session_neighbours(index, IndexFilter(), [(memory_id_of(point), point.payload, 1.0)]) == {}


def _linked(n: int, previous: int | None, tenant: str = "t") -> IndexPoint:
    payload = {
        "tenant": tenant,
        "memory_id": str(uuid.UUID(int=n)),
        "session_id": "a",
        "created_seq": n,
        "state": "active",
        "previous_id": str(uuid.UUID(int=previous)) if previous else "",
    }
    return IndexPoint(id=point_ids(tenant, [str(uuid.UUID(int=n))])[0], payload=payload)


def test_linked_memories_find_their_neighbours_by_previous_id(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    # 1 <- 2 <- 4 (3 belongs to another tenant and names 2 as well; 5 follows 4)
    index.upsert(
        [_linked(1, None), _linked(2, 1), _linked(3, 2, tenant="other"), _linked(4, 2), _linked(5, 4)]
    )
    two, five = _get(index, 2, 5)
    found = session_neighbours(
        index,
        IndexFilter(equals={"tenant": "t"}),
        [(memory_id_of(two), two.payload, 0.7), (memory_id_of(five), five.payload, 0.2)],
    )
    assert set(found) == {str(uuid.UUID(int=i)) for i in (1, 4)}
    assert found[str(uuid.UUID(int=4))][1] == 0.7  # the best of its parents (2 before it, 5 after it)


def test_an_executor_reads_the_same_neighbours(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "s", 4)
    index.upsert([_linked(1, None), _linked(2, 1), _linked(3, 2), _linked(4, 3)])
    two, four = _get(index, 2, 4)
    parents = [(memory_id_of(two), two.payload, 0.7), (memory_id_of(four), four.payload, 0.3)]
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
    found = session_neighbours(index, flt, [(memory_id_of(parent), parent.payload, 0.7)], semantic=1.0)
    assert set(found) == {near}  # a merged restatement and another tenant's memory stay out
    assert found[near][1] == 0.7
