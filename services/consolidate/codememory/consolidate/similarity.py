"""Nearest memories by meaning: cosine similarities of unit vectors, in chunks, with numpy.

A cycle compares the memories new since the last cycle with every memory of the same tenant and
repository (not all pairs: the first cycle over a large store is the only one that sees them all as
new). Chunks bound the memory a similarity block takes (``chunk`` rows times the group size).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from codememory.consolidate.view import Remembered


@dataclass(frozen=True)
class Pair:
    new: Remembered
    other: Remembered
    similarity: float


def matrix(memories: Sequence[Remembered]) -> np.ndarray:
    """The memories' unit vectors as rows (every memory here has one)."""
    if not memories:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([m.vector for m in memories if m.vector is not None]).astype(np.float32, copy=False)


def similar_pairs(
    new: Sequence[Remembered],
    group: Sequence[Remembered],
    threshold: float,
    *,
    top: int = 20,
    chunk: int = 512,
) -> Iterator[Pair]:
    """For each of ``new``, up to ``top`` others of ``group`` with cosine >= ``threshold``, best first."""
    if not new or len(group) < 2:
        return
    others = matrix(group)
    for start in range(0, len(new), chunk):
        rows = new[start : start + chunk]
        sims = matrix(rows) @ others.T
        for i, memory in enumerate(rows):
            row = sims[i]
            count = min(top + 1, len(group))
            best = np.argpartition(-row, count - 1)[:count]
            for j in sorted(best, key=lambda k: -row[k]):
                other = group[int(j)]
                if other.memory_id != memory.memory_id and row[j] >= threshold:
                    yield Pair(memory, other, float(row[j]))
