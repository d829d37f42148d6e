"""The fusion: standardised evidence, weights decide, a flat signal says nothing, parts explain."""

from __future__ import annotations

import pytest

from codememory.codesearch import (
    FusionConfig,
    InvalidCodeInputError,
    RankedList,
    by_best_score,
    fuse,
    name_overlap,
)

PLAIN = FusionConfig(weights={"summary": 1.0, "code": 1.0, "lexical": 1.0, "name": 1.0})


def test_one_signal_keeps_its_order() -> None:
    out = fuse({"code": {"a": 0.9, "b": 0.5, "c": 0.7}}, PLAIN, 10)
    assert [f.key for f in out] == ["a", "c", "b"]


def test_units_do_not_matter_separation_does() -> None:
    # BM25 in the hundreds must not outvote cosines in tenths just by its units
    code = {"a": 0.9, "b": 0.5, "c": 0.45, "d": 0.4}
    lexical = {"a": 1.0, "b": 1.3, "c": 1.0, "d": 1.0}
    ranked = [f.key for f in fuse({"code": code, "lexical": lexical}, PLAIN, 4)]
    scaled = {k: 1000 * v for k, v in lexical.items()}
    assert [f.key for f in fuse({"code": code, "lexical": scaled}, PLAIN, 4)] == ranked
    assert ranked[0] == "b"  # b stands out in BM25 more clearly than a does in cosine


def test_agreement_beats_a_single_first_place() -> None:
    signals = {
        "code": {"a": 0.9, "b": 0.8, "c": 0.1},
        "summary": {"a": 0.1, "b": 0.8, "c": 0.9},
        "lexical": {"a": 0.0, "b": 5.0, "c": 0.0},
    }
    assert fuse(signals, PLAIN, 1)[0].key == "b"


def test_a_heavier_signal_decides_a_disagreement() -> None:
    signals = {"code": {"a": 0.9, "b": 0.2}, "lexical": {"a": 1.0, "b": 9.0}}
    assert fuse(signals, FusionConfig(weights={"code": 2.0, "lexical": 1.0}), 1)[0].key == "a"
    assert fuse(signals, FusionConfig(weights={"code": 1.0, "lexical": 2.0}), 1)[0].key == "b"
    assert fuse(signals, FusionConfig(weights={"code": 1.0, "lexical": 0.0}), 1)[0].key == "a"
    assert fuse(signals, FusionConfig(weights={"code": 0.0, "lexical": 1.0}), 1)[0].key == "b"


def test_a_flat_signal_says_nothing() -> None:
    flat = {"code": {"a": 0.9, "b": 0.5}, "lexical": {"a": 3.0, "b": 3.0}}
    assert [f.key for f in fuse(flat, PLAIN, 2)] == ["a", "b"]
    assert fuse({"code": {"a": 0.5, "b": 0.5}}, PLAIN, 2)[0].parts.fused == 0.0


def test_a_key_missing_from_a_signal_scores_zero_there() -> None:
    signals = {"code": {"a": 0.5, "b": 0.6}, "lexical": {"a": 4.0}}
    parts = {f.key: f.parts for f in fuse(signals, PLAIN, 10)}
    assert parts["b"].lexical == 0.0 and parts["b"].lexical_rank == 0
    assert parts["a"].lexical == 4.0 and parts["a"].lexical_rank == 1


def test_parts_report_the_best_dense_score_and_rank_and_the_name() -> None:
    signals = {
        "summary": {"a": 0.5, "b": 0.4},
        "code": {"a": 0.2, "b": 0.7},
        "name": {"a": 0.5, "b": 0.0},
    }
    parts = {f.key: f.parts for f in fuse(signals, PLAIN, 10)}
    assert parts["a"].dense == 0.5 and parts["a"].dense_rank == 2 and parts["a"].name == 0.5
    assert parts["b"].dense == 0.7 and parts["b"].dense_rank == 1
    assert parts["a"].lexical is None  # no lexical signal at all: unknown, not zero


def test_ties_break_by_key_and_limit_applies() -> None:
    signals = {"code": {"b": 0.5, "a": 0.5, "c": 0.1}}
    assert [f.key for f in fuse(signals, PLAIN, 2)] == ["a", "b"]
    assert fuse({}, PLAIN, 5) == []
    with pytest.raises(InvalidCodeInputError):
        fuse(signals, PLAIN, -1)


def test_name_overlap_is_the_share_of_terms_the_query_and_name_share() -> None:
    assert name_overlap({1, 2}, {1, 2}) == 1.0
    assert name_overlap({1, 2, 3}, {1}) == pytest.approx(1 / 3)
    assert name_overlap({1}, {2}) == 0.0
    assert name_overlap(set(), {1}) == 0.0


def test_single_method_ranks_by_its_best_raw_score() -> None:
    lists = [
        RankedList("summary", "dense", [("a", 0.5), ("b", 0.4)]),
        RankedList("code", "dense", [("b", 0.7), ("a", 0.2)]),
    ]
    out = by_best_score(lists, 10)
    assert [f.key for f in out] == ["b", "a"]
    assert out[0].parts.dense == 0.7 and out[0].parts.dense_rank == 1 and out[0].parts.lexical is None


def test_config_refuses_nonsense() -> None:
    with pytest.raises(InvalidCodeInputError):
        FusionConfig(weights={"code": -1.0})
    with pytest.raises(InvalidCodeInputError):
        FusionConfig(depth=0)
