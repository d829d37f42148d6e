"""How far apart an embedding model puts restatements of one claim, other claims, and similar memories.

The consolidation cycle merges two memories when their vectors are at least ``duplicate_similarity``
(0.7) alike and their texts state the same thing (``consolidate.duplicates``); restatements are then
grouped transitively. This asks how much of issue 11's duplicate set a threshold on the vectors can
reach at all. Over the annotated facts of every split (``consolidation_data``, ``consolidation_heldout7``):

- pairs of a fact's stated sentences that make the same claim (restatements: they should merge);
- pairs that make different claims under one fact (they must not: each says something the other lacks);
- each similar-but-unrelated memory against the closest sentence of the fact it resembles (it must not).

For each model, the quantiles of the three cosine distributions and the share of restatement pairs above
a threshold no similar memory and at most 5% of the other-claim pairs reach; the same with the texts'
BM25-term overlap (Jaccard) added at weight ``--lexical``, to see whether words separate what vectors
do not.

    .venv/bin/python benchmarks/bench_claim_similarity.py [--models minilm mpnet] [--lexical 0.5 1.0]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import consolidation_data
import consolidation_heldout7
from results import write_section

SECTION = "bench_claim_similarity"
OTHER_CLAIMS_ALLOWED = 0.05  # share of other-claim pairs a threshold may leave above it


def facts_and_similar() -> tuple[list[consolidation_data.Fact], list[consolidation_data.Similar]]:
    facts: list[consolidation_data.Fact] = []
    similar: list[consolidation_data.Similar] = []
    for module in (consolidation_data, consolidation_heldout7):
        for name in sorted(dir(module)):
            value = getattr(module, name)
            if name.startswith("FACTS") and isinstance(value, tuple):
                facts += value
            if name.startswith("SIMILAR") and isinstance(value, tuple):
                similar += value
    return facts, similar


def pairs(
    facts: list[consolidation_data.Fact], similar: list[consolidation_data.Similar]
) -> dict[str, list[tuple[str, str]]]:
    """The three kinds of pairs, as (text, text); a similar memory with each sentence of its fact."""
    found: dict[str, list[tuple[str, str]]] = {"restatement": [], "other claim": [], "similar": []}
    for fact in facts:
        if not fact.claims:
            continue
        for (a, ca), (b, cb) in itertools.combinations(zip(fact.stated, fact.claims, strict=True), 2):
            found["restatement" if ca == cb else "other claim"].append((a, b))
    for near in similar:
        fact = next(f for f in facts if f.repo == near.repo and f.subject == near.fact)
        found["similar"] += [(near.memory[1], sentence) for sentence in fact.stated]
    return found


def row(
    model_id: str,
    found: dict[str, list[tuple[str, str]]],
    score: Callable[[tuple[str, str]], float],
    weight: float,
) -> str:
    """One table row: the three distributions under ``score`` and what a safe threshold reaches."""
    same = np.array([score(p) for p in found["restatement"]])
    other = np.array([score(p) for p in found["other claim"]])
    closest: dict[str, float] = {}
    for pair in found["similar"]:
        closest[pair[0]] = max(closest.get(pair[0], -1.0), score(pair))
    near = np.array(list(closest.values()))
    threshold = max(float(near.max()), float(np.quantile(other, 1 - OTHER_CLAIMS_ALLOWED)))

    def q(xs: np.ndarray, *ps: float) -> str:
        return " / ".join(f"{np.quantile(xs, p):.2f}" for p in ps)

    above = float(np.mean(same > threshold))
    return (
        f"| {model_id} | {weight:g} | {q(same, 0.1, 0.5, 0.9)} | {q(other, 0.1, 0.5, 0.9)} "
        f"| {np.median(near):.2f} / {near.max():.2f} | {threshold:.2f} | {above:.1%} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", nargs="+", default=["minilm", "mpnet"])
    parser.add_argument("--lexical", type=float, nargs="+", default=[0.5, 1.0])
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    from codememory.embedding import load_embedder
    from codememory.lexical import SparseEncoder, code_terms

    facts, similar = facts_and_similar()
    found = pairs(facts, similar)
    texts = sorted({t for kind in found.values() for pair in kind for t in pair})
    encoder = SparseEncoder()
    terms = {t: set(encoder.encode_query(code_terms(t)).indices) for t in texts}

    def overlap(a: str, b: str) -> float:
        return len(terms[a] & terms[b]) / max(1, len(terms[a] | terms[b]))

    rows = [
        "| model | lexical weight | restatement pairs q10 / q50 / q90 | other claims q10 / q50 / q90 "
        "| similar (closest sentence) q50 / max | threshold | restatement pairs above it |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in args.models:
        model = load_embedder(name, cache_dir=Path.home() / ".codememory" / "models")
        vectors = dict(zip(texts, np.asarray(model.embed(texts)), strict=True))
        for weight in [0.0, *args.lexical]:
            score = partial(_score, vectors, overlap, weight)
            rows.append(row(model.model_id, found, score, weight))
            print(rows[-1], flush=True)
    body = "\n".join(rows) + (
        f"\n\n{len(facts)} facts ({len(found['restatement'])} restatement pairs, "
        f"{len(found['other claim'])} other-claim pairs), {len({p[0] for p in found['similar']})} similar "
        f"memories. The threshold is the lowest above every similar memory and "
        f"{1 - OTHER_CLAIMS_ALLOWED:.0%} of the other-claim pairs: what a merge rule on these scores could "
        "reach without merging what it must not. The cycle merges at 0.7 by vector, then groups "
        "restatements transitively."
    )
    if not args.no_write:
        title = "Claims by vector: restatements against other claims and similar memories"
        write_section(SECTION, title, body)


def _score(
    vectors: dict[str, np.ndarray], overlap: Callable[[str, str], float], weight: float, pair: tuple[str, str]
) -> float:
    return float(vectors[pair[0]] @ vectors[pair[1]]) + weight * overlap(*pair)


if __name__ == "__main__":
    main()
