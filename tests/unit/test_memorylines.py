"""The rules of an export line's state, shared by the CLI (before sending) and the gateway (importing)."""

from __future__ import annotations

import pytest

from codememory.memory import LIVE_STATES
from codememory.memorylines import LINE_STATES, LineStateError, StateOf, checked_state, iso_seconds

OWN, OTHER = "3f1c9a52-7a0e-4a44-9d7f-0d0e7e0f1a11", "9b2e4c1d-0f3a-4e5b-8c6d-7a8b9c0d1e2f"


def test_a_line_may_carry_every_state_a_memory_can_have_but_forgotten() -> None:
    assert set(LINE_STATES) == set(LIVE_STATES)


def test_times_with_a_zone_without_one_and_not_a_time() -> None:
    assert iso_seconds("2024-02-01T00:00:00Z") == iso_seconds("2024-02-01T00:00:00") == 1706745600.0
    assert iso_seconds("2024-02-01T01:00:00+01:00") == 1706745600.0
    with pytest.raises(ValueError):
        iso_seconds("May 3")


def test_a_state_keeps_only_its_own_link_in_canonical_form() -> None:
    superseded = StateOf(state="superseded", superseded_by=OTHER.upper(), merged_into=OTHER, superseded_at=-5)
    assert checked_state(OWN, superseded) == StateOf(state="superseded", superseded_by=OTHER)
    assert checked_state("", StateOf(state="merged", merged_into=OTHER)).merged_into == OTHER
    assert checked_state(OWN, StateOf(merged_into=OTHER)) == StateOf()


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (StateOf(state="forgotten"), "state must be one of active, deprecated, archived, superseded, merged"),
        (StateOf(state="superseded"), "needs superseded_by"),
        (StateOf(state="merged", merged_into="nope"), "merged_into must be a memory id"),
        (StateOf(state="merged", merged_into=OWN.upper()), "merged_into names the memory itself"),
    ],
)
def test_what_breaks_the_rules_is_named(state: StateOf, message: str) -> None:
    with pytest.raises(LineStateError, match=message):
        checked_state(OWN, state)
