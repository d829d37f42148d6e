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

CROWDED = 8  # passing pairs per place in a block past which its rows' best are selected first
SLACK = 1e-6  # how far below the threshold a block product may put a pair whose exact sum passes
PAIRS_PER_SUM = 8192  # pairs summed at once (each side copied as float64: about 25 MB at 384 dimensions)


@dataclass(frozen=True)
class Pair:
    new: Remembered
    other: Remembered
    similarity: float


def matrix(memories: Sequence[Remembered]) -> np.ndarray:
    """The memories' unit vectors as rows, row i for memory i (a memory without one is a bug upstream:
    cycles only compare embedded memories)."""
    if not memories:
        return np.zeros((0, 0), dtype=np.float32)
    vectors = [m.vector for m in memories]
    if any(v is None for v in vectors):
        raise ValueError("every memory compared must have a vector")
    return np.stack(vectors).astype(np.float32, copy=False)  # type: ignore[arg-type]


def pair_similarities(a: np.ndarray, at: np.ndarray, b: np.ndarray, of: np.ndarray) -> np.ndarray:
    """Row ``at[k]`` of ``a`` with row ``of[k]`` of ``b`` for each k, each pair summed the same way
    wherever its rows lie. A block product does not: BLAS takes a column at the block's edge along
    another path, so one vector stored twice came out 4e-8 apart from itself (on one machine and not
    another), and the order of equal neighbours, which two replicas must agree on, changed with the
    hardware. In slices of ``PAIRS_PER_SUM`` pairs, so a crowded block copies little at a time."""
    out = np.empty(len(at), dtype=np.float64)
    for start in range(0, len(at), PAIRS_PER_SUM):
        end = start + PAIRS_PER_SUM
        left, right = a[at[start:end]].astype(np.float64), b[of[start:end]].astype(np.float64)
        out[start:end] = np.einsum("ij,ij->i", left, right)
    return out


def similar_pairs(
    new: Sequence[Remembered],
    group: Sequence[Remembered],
    threshold: float,
    *,
    top: int = 20,
    chunk: int = 512,
) -> Iterator[Pair]:
    """For each of ``new``, up to ``top`` others of ``group`` with cosine >= ``threshold``, best first
    (equal ones by their place in ``group``); ``top + 1`` places in all, the memory itself taking one
    when it is in ``group``.

    Only the pairs over the threshold are looked at: in a first cycle over 100,000 memories a block
    is 512 x 100,000 similarities of which a few dozen per row pass, so they are found by one
    comparison of the block and ordered among themselves (selecting the best of every whole row took
    a third of the cycle). When more than ``CROWDED`` times the places pass (a threshold set low), each
    row's best places are selected first, as before."""
    if not new or len(group) < 2:
        return
    others = matrix(group)
    count = min(top + 1, len(group))
    for start in range(0, len(new), chunk):
        rows = new[start : start + chunk]
        mine = matrix(rows)
        sims = mine @ others.T
        over = sims >= threshold - SLACK  # the exact sums below decide
        if np.count_nonzero(over) > CROWDED * count * len(rows):  # a low threshold: rows pass whole
            best = np.argpartition(-sims, count - 1, axis=1)[:, :count]  # (equal ones at the cut: any)
            kept_best = np.zeros_like(over)
            np.put_along_axis(kept_best, best, True, axis=1)
            over &= kept_best
        at, of = np.nonzero(over)
        if not len(at):
            continue
        values = pair_similarities(mine, at, others, of)
        passing = values >= threshold
        at, of, values = at[passing], of[passing], values[passing]
        order = np.lexsort((of, -values, at))  # by row, then best first, then by place in the group
        at, of, values = at[order], of[order], values[order]
        place = np.arange(len(at)) - np.searchsorted(at, at)  # rank within its row
        kept = place < count
        for i, j, similarity in zip(at[kept].tolist(), of[kept].tolist(), values[kept].tolist(), strict=True):
            memory, other = rows[i], group[j]
            if other.memory_id != memory.memory_id:
                yield Pair(memory, other, similarity)


def nearest_earlier(
    memories: Sequence[Remembered], positions: Sequence[int], rank: int, *, chunk: int = 512
) -> Iterator[tuple[int, list[tuple[int, float]]]]:
    """For each position (into ``memories``, sorted by creation time), its ``rank`` most similar memories
    created strictly before it, best first, as (position, similarity) pairs."""
    if not positions:
        return
    vectors = matrix(memories)
    created = np.asarray([m.created_at for m in memories])
    for start in range(0, len(positions), chunk):
        rows = np.asarray(positions[start : start + chunk])
        sims = vectors[rows] @ vectors.T
        sims[created[None, :] >= created[rows][:, None]] = -np.inf  # only what came before
        count = min(rank, len(memories))
        best = np.argpartition(-sims, count - 1, axis=1)[:, :count]
        for i, position in enumerate(rows):
            found = sorted(
                ((int(j), float(sims[i, j])) for j in best[i] if sims[i, j] > -np.inf), key=lambda p: -p[1]
            )
            yield int(position), found
