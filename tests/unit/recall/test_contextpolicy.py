"""``ContextPolicy``: a bad setting is a clear error; the legacy policy switches every rule off."""

from __future__ import annotations

import pytest

from codememory.recall.contextpolicy import ContextPolicy


@pytest.mark.parametrize(
    "kwargs",
    [
        {"candidates": 0},
        {"candidates": 501},
        {"max_line_tokens": -1},
        {"per_session": -2},
        {"type_weights": {"x": -1.0}},
        {"question_weight": -0.5},
        {"flagged_weight": -1.0},
    ],
)
def test_a_bad_policy_is_a_clear_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        ContextPolicy(**kwargs)  # type: ignore[arg-type]


def test_the_legacy_policy_weighs_nothing_and_filters_nothing() -> None:
    legacy = ContextPolicy.legacy()
    assert (legacy.question_weight, legacy.flagged_weight, dict(legacy.type_weights)) == (1.0, 1.0, {})
    assert (legacy.min_importance, legacy.min_chars, legacy.stated_types) == (0.0, 0, ())
