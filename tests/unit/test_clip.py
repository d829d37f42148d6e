"""``clip``: the one way a line is shortened for a reader."""

from __future__ import annotations

import pytest

from codememory.clip import ELLIPSIS, clip


def test_text_that_fits_is_unchanged() -> None:
    assert clip("ruff is the linter", 18) == "ruff is the linter"
    assert clip("", 0) == ""


def test_a_cut_ends_in_the_ellipsis_within_the_limit() -> None:
    cut = clip("ruff is the linter, not flake8", 12)
    assert cut == "ruff is the" + ELLIPSIS
    assert len(cut) <= 12


def test_whitespace_before_the_cut_is_dropped() -> None:
    assert clip("use ruff   for lint", 9) == "use ruff" + ELLIPSIS


@pytest.mark.parametrize("limit", [1, 0, -3])
def test_a_limit_too_small_for_text_leaves_the_ellipsis(limit: int) -> None:
    assert clip("anything", limit) == ELLIPSIS
