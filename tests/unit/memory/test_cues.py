"""Change cues are found as words of prose: not inside a word or an identifier, and not inside a
phrase that only looks like a change ("for now")."""

from __future__ import annotations

from codememory.memory.cues import CHANGE_CUES, NOT_CHANGE_CUES, cues_of, has_cue, lead_in


def test_cues_match_whole_words_only() -> None:
    assert has_cue("From now on we switch to uv", CHANGE_CUES)
    assert not has_cue("the switchboard handles calls", ("switch",))


def test_for_now_is_not_a_change() -> None:
    assert cues_of("for now keep floats", ("now",), ("for now",)) == frozenset()
    assert cues_of("the target is Snowflake now", ("now",), ("for now",)) == {"now"}


def test_a_cue_inside_code_is_not_a_cue() -> None:
    assert cues_of("store datetime.now(UTC) everywhere", ("now",)) == frozenset()


def test_a_lead_in_is_an_address_cue_with_its_punctuation() -> None:
    assert lead_in("reminder: a new screen needs its strings") == "reminder: "
    assert lead_in("Again, no hard-coded strings") == "Again, "
    assert lead_in("just so you know, we pin node 20") == "just so you know, "
    assert lead_in("fyi the staging db is read-only") == "fyi "
    assert lead_in("heads up - deploys freeze on fridays") == "heads up - "


def test_a_cue_word_that_says_something_is_no_lead_in() -> None:
    assert lead_in("note the new port in compose.yaml") == ""  # "note" as a verb, no punctuation
    assert lead_in("remember gpu work is sbatch") == ""
    assert lead_in("lint with ruff") == ""
    assert lead_in("reminder:") == ""  # nothing after it: the whole text, not a lead-in
    assert lead_in("fyi: x", ("note",)) == ""  # the configured list decides


def test_new_after_a_word_that_ranges_over_a_kind_is_no_change() -> None:
    for text in ("a story for new components", "every new permission needs a line", "on new POST routes"):
        assert "new" not in cues_of(text, CHANGE_CUES, NOT_CHANGE_CUES), text
    assert "new" in cues_of("New components use Tailwind", CHANGE_CUES, NOT_CHANGE_CUES)


def test_a_negated_new_is_no_change() -> None:
    """It says which thing a rule keeps or means ("the oldest sample is dropped, not the new one"),
    not that the rule changed; a cue beside it still counts."""
    for text in ("when full the oldest sample is dropped, not the new one", "this is not a new rule"):
        assert "new" not in cues_of(text, CHANGE_CUES, NOT_CHANGE_CUES), text
    assert cues_of("the old key is gone, switch to the new one", CHANGE_CUES, NOT_CHANGE_CUES) == {
        "switch",
        "new",
    }
    assert "switch" in cues_of("switch to v2, not the new beta", CHANGE_CUES, NOT_CHANGE_CUES)
