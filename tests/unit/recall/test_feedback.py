"""Relevance feedback: the words the top hits share join the query, weighted by how many share them."""

from __future__ import annotations

import pytest

from codememory.lexical import SparseVec
from codememory.recall.feedback import feedback_query


def _doc(*indices: int) -> SparseVec:
    return SparseVec.from_dict({i: 1.0 for i in indices})


QUERY = SparseVec.from_dict({1: 1.0, 2: 1.0})


def test_a_term_shared_by_enough_top_hits_joins_at_weight_times_share() -> None:
    widened = feedback_query(QUERY, [_doc(1, 7, 8), _doc(7, 9), _doc(7, 8), _doc(3)], 0.4)
    weights = widened.as_dict()
    assert weights[1] == weights[2] == 1.0  # the query's own terms keep their weight
    assert weights[7] == pytest.approx(0.4 * 3 / 4)
    assert weights[8] == pytest.approx(0.4 * 2 / 4)
    assert 9 not in weights and 3 not in weights  # in one hit only: that hit's, not the topic's


def test_the_query_is_returned_unchanged_when_nothing_qualifies() -> None:
    assert feedback_query(QUERY, [_doc(1, 5), _doc(2, 6)], 0.4) == QUERY
    assert feedback_query(QUERY, [_doc(7), _doc(7)], 0.0) == QUERY
    assert feedback_query(QUERY, [], 0.4) == QUERY


def test_a_query_term_is_never_reweighted_by_feedback() -> None:
    widened = feedback_query(QUERY, [_doc(1, 2), _doc(1, 2)], 0.9)
    assert widened == QUERY


def test_min_shared_is_configurable() -> None:
    widened = feedback_query(QUERY, [_doc(7), _doc(8)], 0.5, min_shared=1)
    assert widened.as_dict() == {1: 1.0, 2: 1.0, 7: 0.25, 8: 0.25}
