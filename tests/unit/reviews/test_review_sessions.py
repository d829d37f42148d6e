"""A session's turns as of a LOG position: earlier turns, the current prompt, the current edits."""

from __future__ import annotations

from codememory.reviews.forgetting import Edit
from codememory.reviews.sessions import MAX_SESSIONS, MAX_TURNS, Sessions, SessionTurns


def test_before_a_position_sees_only_what_came_earlier() -> None:
    turns = SessionTurns()
    turns.prompt(1, "rename a to b")
    turns.edits(2, [Edit("m.py", "a", "b")])
    turns.prompt(3, "add logging")
    turns.edits(4, [Edit("m.py", "x", "y")])
    history, prompt, since = turns.before(5)
    assert [t.prompt for t in history] == ["rename a to b"] and history[0].edits == (Edit("m.py", "a", "b"),)
    assert prompt == "add logging" and since == [Edit("m.py", "x", "y")]
    history, prompt, since = turns.before(3)  # the second prompt not yet said
    assert history == [] and prompt == "rename a to b" and since == [Edit("m.py", "a", "b")]


def test_sessions_and_turns_are_bounded() -> None:
    turns = SessionTurns()
    for seq in range(1, MAX_TURNS + 10):
        turns.prompt(seq, f"p{seq}")
    assert len(turns.turns) == MAX_TURNS and turns.turns[-1].index == MAX_TURNS + 9
    sessions = Sessions()
    for n in range(MAX_SESSIONS + 5):
        sessions.touch(f"s{n}")
    assert sessions.get("s0") is None and sessions.get(f"s{MAX_SESSIONS + 4}") is not None
