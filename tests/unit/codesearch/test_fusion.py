"""The fusion's properties: agreement wins, weights and depth matter, adaptivity follows peakedness."""

from __future__ import annotations

import math

import pytest

from codememory.codesearch import FusionConfig, InvalidCodeInputError, RankedList, by_best_score, fuse
from codememory.codesearch.fusion import peakedness


def ranked(name: str, keys: str, scores: list[float] | None = None, kind: str = "dense") -> RankedList:
    values = scores or [1.0 - 0.01 * i for i in range(len(keys))]
    return RankedList(name, kind, list(zip(keys, values, strict=True)))  # type: ignore[arg-type]


PLAIN = FusionConfig(weights={"summary": 1.0, "code": 1.0, "lexical": 1.0}, adaptive=False)


def test_one_list_keeps_its_order() -> None:
    out = fuse([ranked("summary", "abcde")], PLAIN, 10)
    assert [f.key for f in out] == list("abcde")


def test_agreement_beats_a_single_first_place() -> None:
    lists = [ranked("summary", "abc"), ranked("code", "bca"), ranked("lexical", "bxy", kind="lexical")]
    assert fuse(lists, PLAIN, 1)[0].key == "b"


def test_a_heavier_list_decides_a_disagreement() -> None:
    lists = [ranked("summary", "ab"), ranked("lexical", "ba", kind="lexical")]
    heavy_dense = FusionConfig(weights={"summary": 2.0, "lexical": 1.0}, adaptive=False)
    heavy_lexical = FusionConfig(weights={"summary": 1.0, "lexical": 2.0}, adaptive=False)
    assert fuse(lists, heavy_dense, 1)[0].key == "a"
    assert fuse(lists, heavy_lexical, 1)[0].key == "b"


def test_a_list_without_weight_adds_no_candidates_but_still_explains() -> None:
    config = FusionConfig(weights={"summary": 1.0}, adaptive=False)
    lists = [ranked("summary", "ab", [0.9, 0.8]), ranked("lexical", "zb", [7.0, 3.0], kind="lexical")]
    out = fuse(lists, config, 10)
    assert [f.key for f in out] == ["a", "b"]
    assert out[1].parts.lexical == 3.0 and out[1].parts.lexical_rank == 2
    assert out[0].parts.lexical is None and out[0].parts.lexical_rank == 0


def test_parts_report_the_best_dense_score_and_rank_over_representations() -> None:
    lists = [ranked("summary", "ab", [0.5, 0.4]), ranked("code", "ba", [0.7, 0.2])]
    parts = {f.key: f.parts for f in fuse(lists, PLAIN, 10)}
    assert parts["a"].dense == 0.5 and parts["a"].dense_rank == 1
    assert parts["b"].dense == 0.7 and parts["b"].dense_rank == 1


def test_depth_limits_what_each_list_contributes() -> None:
    config = FusionConfig(weights={"summary": 1.0}, adaptive=False, depth=2)
    assert [f.key for f in fuse([ranked("summary", "abcd")], config, 10)] == ["a", "b"]


def test_peakedness_is_zero_for_a_flat_list_and_large_for_a_standout() -> None:
    assert peakedness([1.0] * 12, 10) == 0.0
    assert peakedness([5.0, 1.0, 1.1, 0.9, 1.0], 10) > 10
    assert peakedness([1.0, 0.9], 10) == 0.0  # too short to tell
    assert math.isinf(peakedness([2.0, 1.0, 1.0, 1.0], 10))


def test_adaptive_weights_trust_a_peaked_lexical_list_more_than_a_flat_one() -> None:
    config = FusionConfig(weights={"summary": 1.0, "lexical": 1.0}, adaptive=True, peak_floor=0.0)
    dense = ranked("summary", "abcdefghijkl")
    flat = ranked("lexical", "lkjihgfedcba", [1.0 - 0.001 * i for i in range(12)], kind="lexical")
    peaked = ranked("lexical", "lkjihgfedcba", [9.0] + [1.0 - 0.01 * i for i in range(11)], kind="lexical")
    assert fuse([dense, flat], config, 1)[0].key == "a"
    assert fuse([dense, peaked], config, 1)[0].key == "l"


def test_ties_break_by_key_so_results_are_stable() -> None:
    lists = [ranked("summary", "ba"), ranked("code", "ab")]
    assert [f.key for f in fuse(lists, PLAIN, 2)] == ["a", "b"]


def test_by_best_score_is_max_sim_over_lists() -> None:
    lists = [ranked("summary", "ab", [0.5, 0.4]), ranked("code", "ba", [0.9, 0.1])]
    out = by_best_score(lists, 10)
    assert [(f.key, f.parts.dense) for f in out] == [("b", 0.9), ("a", 0.5)]


@pytest.mark.parametrize(
    "kwargs",
    [{"rrf_k": 0.0}, {"depth": 0}, {"peak_floor": 1.5}, {"peak_scale": 0.0}, {"weights": {"summary": -1.0}}],
)
def test_bad_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidCodeInputError):
        FusionConfig(**kwargs)  # type: ignore[arg-type]


def test_negative_limit_is_refused() -> None:
    with pytest.raises(InvalidCodeInputError):
        fuse([], PLAIN, -1)
