"""A session's last memory: remembered per session (least recently used out), followed through a
refinement and a forgetting, and found in the index for a session no longer remembered."""

from __future__ import annotations

import uuid
from pathlib import Path

from codememory.events import MemoryForgotten, MemoryRefined, new_envelope
from codememory.memory.fold import PointState
from codememory.memory.tails import SessionTails, canonical_uuid
from codememory.vectorstore import EdgeVectorIndex, IndexPoint

A, B = str(uuid.UUID(int=1)), str(uuid.UUID(int=2))


def _state(session: str) -> PointState:
    return PointState({"tenant": "t", "session_id": session})


def test_the_latest_memory_before_a_sequence_is_remembered_least_recently_used_out() -> None:
    tails = SessionTails(limit=1)
    tails.remember(("t", "s1"), 5, A, "first")
    assert tails.previous(None, ("t", "s1"), 6, {}) == (A, "first")  # type: ignore[arg-type]
    tails.remember(("t", "s2"), 7, B, "second")  # s1 goes: only one session is kept
    assert tails._tails.keys() == {("t", "s2")}


def test_a_refinement_and_a_forgetting_of_the_remembered_memory_are_followed() -> None:
    tails = SessionTails()
    tails.remember(("t", "s1"), 5, A, "first")
    tails.track(
        new_envelope(MemoryRefined(memory_id=A, text="refined"), event_id="e1", tenant="t"), A, _state("s1")
    )
    assert tails._tails[("t", "s1")] == (5, A, "refined")
    tails.track(new_envelope(MemoryForgotten(memory_id=A), event_id="e2", tenant="t"), A, _state("s1"))
    assert ("t", "s1") not in tails._tails


def test_a_session_not_remembered_is_found_in_the_index(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "shard", 4)
    stored = [
        (A, 3, "older", "active"),
        (B, 8, "newer", "active"),
        (str(uuid.UUID(int=3)), 9, "later than the new memory", "active"),
        (str(uuid.UUID(int=4)), 7, "forgotten", "forgotten"),
    ]
    index.upsert(
        [
            IndexPoint(
                id=mid,
                payload={
                    "tenant": "t",
                    "session_id": "s1",
                    "memory_id": mid,
                    "created_seq": seq,
                    "text": text,
                    "state": state,
                    "type": "note",
                },
            )
            for mid, seq, text, state in stored
        ]
    )
    assert SessionTails().previous(index, ("t", "s1"), 9, {}) == (B, "newer")
    assert SessionTails().previous(index, ("t", "other"), 9, {}) == ("", "")
    index.close()


def test_canonical_uuid() -> None:
    assert canonical_uuid(A) == A and canonical_uuid(A.replace("-", "")) == A
    assert canonical_uuid("not an id") is None
