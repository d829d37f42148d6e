"""The claim-similarity benchmark reads every split once and pairs sentences by their annotated claims."""

from __future__ import annotations

from benchmodules import load  # type: ignore[import-not-found]

bench = load("bench_claim_similarity")
cd = load("consolidation_data")


def test_every_split_is_read_once() -> None:
    facts, similar = bench.facts_and_similar()
    splits = [name for name in dir(cd) if name.startswith("FACTS")]
    expected = sum(len(getattr(cd, name)) for name in splits) + len(
        load("consolidation_heldout7").FACTS_HELDOUT7
    )
    assert len(facts) == expected and len({(f.repo, f.subject) for f in facts}) == len(facts)
    assert similar and all(any(f.repo == s.repo and f.subject == s.fact for f in facts) for s in similar)


def test_sentences_pair_by_their_claims() -> None:
    fact = cd.Fact("r", "s", 5, ("a1", "a2", "b1"), (), ("q",), claims=(0, 0, 1))
    near = cd.Similar("r", "s", ("note", "near"), "q?")
    found = bench.pairs([fact], [near])
    assert found["restatement"] == [("a1", "a2")]
    assert sorted(found["other claim"]) == [("a1", "b1"), ("a2", "b1")]
    assert found["similar"] == [("near", "a1"), ("near", "a2"), ("near", "b1")]
    unannotated = cd.Fact("r", "t", 5, ("x", "y"), (), ("q",))
    assert bench.pairs([unannotated], []) == {"restatement": [], "other claim": [], "similar": []}
