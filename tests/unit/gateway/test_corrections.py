"""The corrections by hand as events: what each refuses and what it records (pure; no index, no LOG)."""

from __future__ import annotations

import uuid

import pytest

from codememory.gateway.corrections import BY_HAND, distinct, merge_event, supersede_event, unmerge_event
from codememory.gateway.errors import InvalidArgument, NotFound
from codememory.vectorstore import StoredPoint

A, B, C = (str(uuid.UUID(int=n)) for n in (1, 2, 3))


def _point(memory_id: str, **payload: object) -> StoredPoint:
    fields = {"memory_id": memory_id, "tenant": "t", "state": "active", "importance": 0.5, **payload}
    return StoredPoint(id=str(uuid.uuid4()), payload=fields)


def test_a_merge_records_its_sources_oldest_first_and_the_group_importance() -> None:
    later = _point(B, created_at=200.0, session_id="s2", type="prompt", importance=0.9)
    earlier = _point(C, created_at=100.0, session_id="s1", type="note", state="archived")
    event, event_id = merge_event("t", _point(A), [later, earlier], "")
    assert event.canonical_id == A and event.merged_ids == (C, B)
    assert [(s.memory_id, s.session_id, s.created_at, s.memory_type) for s in event.sources] == [
        (C, "s1", 100.0, "note"),
        (B, "s2", 200.0, "prompt"),
    ]
    assert event.importance == 0.9 and event.reason == BY_HAND and event.cycle_id == ""
    again, again_id = merge_event("t", _point(A), [earlier, later], "")  # the same merge, named otherwise
    assert again_id == event_id and again == event
    assert merge_event("u", _point(A), [later, earlier], "")[1] != event_id  # ids are per tenant


@pytest.mark.parametrize(
    ("canonical", "member", "refusal"),
    [
        (_point(A, state="merged", merged_into=C), _point(B), "already merged into " + C),
        (_point(A, state="superseded", superseded_by=C), _point(B), "superseded by " + C),
        (_point(A, state="archived"), _point(B), "is archived, not active or deprecated"),
        (_point(A), _point(B, state="merged", merged_into=C), "already merged into " + C),
        (_point(A), _point(B, sources=[{"memory_id": C}]), "make it the canonical memory"),
        (_point(A), _point(A), "not the canonical one"),
    ],
)
def test_a_merge_that_would_lose_a_memory_or_its_sources_is_refused_with_why(
    canonical: StoredPoint, member: StoredPoint, refusal: str
) -> None:
    with pytest.raises(InvalidArgument, match=refusal):
        merge_event("t", canonical, [member], "")


def test_a_retried_merge_accepts_the_members_it_already_merged() -> None:
    event, _ = merge_event("t", _point(A), [_point(B, state="merged", merged_into=A)], "same rule")
    assert event.merged_ids == (B,) and event.reason == "same rule"


def test_unmerge_takes_back_only_what_is_merged_into_that_memory() -> None:
    event, _ = unmerge_event("t", _point(A), [_point(B, state="merged", merged_into=A)], "")
    assert event.memory_ids == (B,) and event.reason == BY_HAND
    with pytest.raises(NotFound, match="not merged into"):
        unmerge_event("t", _point(A), [_point(B, state="merged", merged_into=C)], "")


def test_supersede_names_when_the_later_memory_was_stated() -> None:
    event, _ = supersede_event("t", _point(A), _point(B, created_at=300.0), "policy changed")
    assert (event.memory_id, event.superseded_by, event.superseded_at) == (A, B, 300.0)
    with pytest.raises(InvalidArgument, match="itself"):
        supersede_event("t", _point(A), _point(A), "")


def test_the_memories_named_are_each_taken_once_and_never_the_canonical_one() -> None:
    assert distinct([B, C, B], A) == [B, C]
    for bad in ([], [A, B]):
        with pytest.raises(InvalidArgument):
            distinct(bad, A)
