"""Change cues are found as words of prose: not inside a word or an identifier, and not inside a
phrase that only looks like a change ("for now")."""

from __future__ import annotations

from codememory.memory.cues import CHANGE_CUES, cues_of, has_cue


def test_cues_match_whole_words_only() -> None:
    assert has_cue("From now on we switch to uv", CHANGE_CUES)
    assert not has_cue("the switchboard handles calls", ("switch",))


def test_for_now_is_not_a_change() -> None:
    assert cues_of("for now keep floats", ("now",), ("for now",)) == frozenset()
    assert cues_of("the target is Snowflake now", ("now",), ("for now",)) == {"now"}


def test_a_cue_inside_code_is_not_a_cue() -> None:
    assert cues_of("store datetime.now(UTC) everywhere", ("now",)) == frozenset()
