"""The claim-similarity benchmark reads every split once and pairs sentences by their annotated claims."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(_BENCH))
    spec = importlib.util.spec_from_file_location(name, _BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


bench = _load("bench_claim_similarity")
cd = _load("consolidation_data")


def test_every_split_is_read_once() -> None:
    facts, similar = bench.facts_and_similar()
    splits = [name for name in dir(cd) if name.startswith("FACTS")]
    expected = sum(len(getattr(cd, name)) for name in splits) + len(
        _load("consolidation_heldout7").FACTS_HELDOUT7
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
