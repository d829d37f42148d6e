"""The duplicate facts are annotated by claim (which of a fact's sentences state the same thing), and the
benchmark's by-claim count groups a top 10 by those claims: a canonical memory for the claims it took in,
an insight for those of its evidence, each once. Without the annotation the cap of 2 would count distinct
statements of one topic as duplicates."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from benchmodules import load  # type: ignore[import-not-found]

SPLITS = (
    "FACTS",
    "FACTS_HELDOUT",
    "FACTS_HELDOUT2",
    "FACTS_HELDOUT3",
    "FACTS_HELDOUT4",
    "FACTS_HELDOUT5",
    "FACTS_HELDOUT6",
    "FACTS_HELDOUT7",
)


cd = load("consolidation_data")
bench = load("bench_consolidation")
heldout7 = load("consolidation_heldout7")  # a split in a module of its own (it imports cd's dataclasses)


def facts_of(split: str) -> tuple[Any, ...]:
    return tuple(getattr(heldout7 if split == "FACTS_HELDOUT7" else cd, split))


# ------------------------------------------------------------------------------------------ grouping


def test_restatements_count_for_their_own_claim() -> None:
    claims = {"a1": 0, "a2": 0, "a3": 0, "b1": 1}
    counts = bench.claims_in_top(["a1", "b1", "a2", "a3"], claims, {}, {})
    assert counts == Counter({0: 3, 1: 1})


def test_canonical_counts_for_the_claims_merged_into_it_once_each() -> None:
    claims = {"a1": 0, "a2": 0, "b1": 1, "c1": 2}
    merged = {"canon": {"a1", "a2", "b1"}}  # took in two restatements of claim 0 and one of claim 1
    counts = bench.claims_in_top(["canon", "c1"], claims, merged, {})
    assert counts == Counter({0: 1, 1: 1, 2: 1})


def test_a_restatement_that_is_canonical_adds_what_it_took_in() -> None:
    claims = {"a1": 0, "b1": 1, "b2": 1}
    counts = bench.claims_in_top(["b1", "a1"], claims, {"b1": {"b2"}}, {})
    assert counts == Counter({0: 1, 1: 1})


def test_insight_counts_for_the_claims_of_its_evidence() -> None:
    claims = {"a1": 0, "a2": 0, "b1": 1}
    merged = {"canon": {"a2"}}
    evidence = {"lesson": {"canon", "b1", "unrelated"}}  # a merge target and a restatement
    counts = bench.claims_in_top(["lesson", "a1"], claims, merged, evidence)
    assert counts == Counter({0: 2, 1: 1})


def test_cap_is_per_claim() -> None:
    claims = {"a1": 0, "a2": 0, "b1": 1, "b2": 1, "b3": 1}
    ok = bench.claims_in_top(["a1", "a2", "b1", "b2"], claims, {}, {})
    over = bench.claims_in_top(["a1", "b1", "b2", "b3"], claims, {}, {})
    assert max(ok.values()) <= bench.TARGET_RESTATED < max(over.values())
    assert bench.claims_in_top([], claims, {}, {}) == Counter()


# ------------------------------------------------------------------------------------------ annotation


@pytest.mark.parametrize("split", SPLITS)
def test_every_sentence_and_output_has_a_claim(split: str) -> None:
    for fact in facts_of(split):
        assert len(fact.claims) == len(fact.stated), fact.subject
        assert len(fact.observed_claims) == len(fact.observed), fact.subject
        numbers = set(fact.claims) | set(fact.observed_claims)
        assert numbers == set(range(len(numbers))), fact.subject  # 0, 1, ... without gaps


def test_every_fact_has_a_claim_restated_at_least_twice() -> None:
    data = cd.build_duplicates()
    for fact in data["facts"]:
        assert set(fact["claims"]) == set(fact["restatements"]), fact["id"]
        restated = Counter(fact["claims"].values())
        assert max(restated.values()) >= 2, fact["id"]  # duplicates exist to collapse


def test_the_claims_follow_the_wordings() -> None:
    """A restatement's claim is the one its sentence (without the address) or its observation makes."""
    data = cd.build_duplicates()
    memories = {m["id"]: m for m in data["memories"]}
    facts = [f for split in SPLITS for f in facts_of(split)]
    for fact, out in zip(facts, data["facts"], strict=True):
        assert fact.subject == out["subject"]
        said = dict(zip(fact.stated, fact.claims, strict=True))
        said.update(zip(fact.observed, fact.observed_claims, strict=True))
        for memory_id, claim in out["claims"].items():
            text = memories[memory_id]["text"]
            bare = [text[len(p) :] for p in cd.PREFIXES if text.startswith(p) and text[len(p) :] in said]
            assert bare and {said[b] for b in bare} == {claim}, text  # "reminder: ..." may be a sentence
