"""Nearest memories by meaning: ``similar_pairs`` gives, for each new memory, the others over the threshold,
best first and at most ``top`` of them, as its definition over every pair does; equal similarities in
the order of the group (two replicas running one cycle must write the same events)."""

from __future__ import annotations

import math

import numpy as np
from consolidatekit import memory  # type: ignore[import-not-found]

from codememory.consolidate.similarity import similar_pairs
from codememory.consolidate.view import Remembered


def definition(
    new: list[Remembered], group: list[Remembered], threshold: float, top: int
) -> list[tuple[str, str, float]]:
    """Each new memory's ``top + 1`` best places in the group (its own included, ties by place), those over
    the threshold, itself left out."""
    out = []
    for m in new:  # exactly rounded sums: the same vector twice gives the same similarity twice
        sims = [math.fsum(float(x) * float(y) for x, y in zip(_v(m), _v(o), strict=True)) for o in group]
        ranked = sorted(range(len(group)), key=lambda j: (-sims[j], j))[: top + 1]
        out += [
            (m.memory_id, group[j].memory_id, float(sims[j]))
            for j in ranked
            if sims[j] >= threshold and group[j].memory_id != m.memory_id
        ]
    return out


def _v(m: Remembered) -> np.ndarray:
    assert m.vector is not None
    return m.vector


def _group(rng: np.random.Generator, n: int, dim: int = 8) -> list[Remembered]:
    centres = rng.normal(size=(4, dim))
    vectors = [centres[i % 4] + rng.normal(scale=0.4, size=dim) for i in range(n)]
    vectors += [vectors[0].copy(), vectors[0].copy(), vectors[5].copy()]  # exact ties
    return [memory(f"m{i}", (v / np.linalg.norm(v)).astype(np.float32)) for i, v in enumerate(vectors)]


def test_pairs_are_their_definition_over_every_pair_across_blocks() -> None:
    rng = np.random.default_rng(3)
    group = _group(rng, 40)
    new = [*group[::3], memory("outside", group[7].vector)]  # one not in the group: top + 1 others
    for threshold, top in ((0.5, 3), (0.8, 20), (0.95, 1), (-1.0, 5), (-1.0, 3)):  # the last: CROWDED
        found = list(similar_pairs(new, group, threshold, top=top, chunk=4))
        expected = definition(new, group, threshold, top)
        assert [(p.new.memory_id, p.other.memory_id) for p in found] == [e[:2] for e in expected], (
            threshold,
            top,
        )
        assert np.allclose([p.similarity for p in found], [e[2] for e in expected], atol=1e-6)
    assert len([p for p in similar_pairs(new, group, -1.0, top=5) if p.new is new[-1]]) == 6


def test_nothing_over_the_threshold_and_groups_too_small_give_nothing() -> None:
    group = _group(np.random.default_rng(5), 8)
    assert list(similar_pairs(group, group, 1.5)) == []
    assert list(similar_pairs(group[:1], group[:1], 0.0)) == []
    assert list(similar_pairs([], group, 0.0)) == []
