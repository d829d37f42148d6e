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


def test_an_erased_prompt_or_edit_or_session_leaves_the_view_at_once() -> None:
    from datetime import UTC, datetime

    from reviewskit import edit, envelope, prompt  # type: ignore[import-not-found]

    from codememory.events import DataErased, MemoryForgotten, new_envelope
    from codememory.reviews.view import ReviewsView

    view = ReviewsView()
    events = [
        envelope(prompt("rename a to b"), "p1"),
        envelope(edit("m.py", "a", "b"), "x1"),
        envelope(prompt("my password is hunter2, use it"), "p2"),
        envelope(prompt("another session's secret plan", session="s-2"), "p3"),
    ]
    view.apply_batch(list(enumerate(events, 1)))
    turns = view.tenant("acme").sessions.get("s-1")
    assert turns is not None and [t.prompt for t in turns.turns] == [
        "rename a to b",
        "my password is hunter2, use it",
    ]
    now = datetime.now(UTC)
    erasures = [
        new_envelope(
            MemoryForgotten(memory_id="p2", reason="erased"), event_id="f1", tenant="acme", occurred_at=now
        ),
        new_envelope(
            MemoryForgotten(memory_id="x1", reason="erased"), event_id="f2", tenant="acme", occurred_at=now
        ),
        new_envelope(
            DataErased(scope="session", subject_digest="d", session_ids=("s-2",)),
            event_id="f3",
            tenant="acme",
        ),
    ]
    view.apply_batch(list(enumerate(erasures, 5)))
    assert [t.prompt for t in turns.turns] == ["rename a to b", ""]  # the turn stays, its text goes
    assert not [e for t in turns.turns for e in t.edits]
    assert view.tenant("acme").sessions.get("s-2") is None
    history, current, since = turns.before(10)
    assert [h.prompt for h in history] == ["rename a to b"] and current == "" and since == []
