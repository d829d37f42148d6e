"""Restatements: memories that say the same thing become one canonical memory with its sources.

Two memories are restatements when their vectors are at least ``duplicate_similarity`` alike
(``cross_kind_similarity`` between one someone stated and one a tool observed) and
they do not state conflicting values (``4 spaces`` and ``2 spaces`` are alike in meaning but say
different things: that is supersession's business).
Restatements are grouped transitively. The canonical memory of a group is, in order: one that is
already canonical (it keeps its place), one someone stated rather than one observed, a statement
rather than a question, the one closest to all the others (the medoid: the best wording of what the
group has in common), the earliest.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

import numpy as np

from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.similarity import matrix, similar_pairs
from codememory.consolidate.view import Remembered
from codememory.memory.cues import cues_of
from codememory.memory.statements import is_question, same_statement


@dataclass(frozen=True)
class Merge:
    canonical: Remembered
    merged: tuple[Remembered, ...]
    similarity: float  # the lowest similarity that joined the group
    why_canonical: str = ""  # what set the canonical memory apart (see ``_canonical``)


def restatement(a: Remembered, b: Remembered, policy: ConsolidationPolicy) -> bool:
    """Whether two memories alike enough in meaning also say the same thing (``same_statement``) and
    the later one does not say that it changes something (supersession's business)."""
    earlier, later = (a, b) if (a.created_at, a.seq) <= (b.created_at, b.seq) else (b, a)
    cues, ignore = policy.change_cues, policy.not_change_cues
    if cues_of(later.text, cues, ignore) - cues_of(earlier.text, cues, ignore):
        return False  # the later one says it changes something: supersession's business
    return same_statement(a.text, b.text, policy.parallel_ratio)


# why the canonical memory won, by the first part of its order (``_canonical``) that set it apart
_WHY_CANONICAL = (
    "already canonical",
    "stated, not observed",
    "a statement, not a question",
    "the medoid wording",
    "the earliest",
    "the first by id",
)


def _canonical(group: list[Remembered], policy: ConsolidationPolicy) -> tuple[Remembered, str]:
    """The canonical memory of a group and why it was chosen (one of ``_WHY_CANONICAL``)."""
    sims = matrix(group) @ matrix(group).T
    centrality = {m.memory_id: float(np.mean(sims[i])) for i, m in enumerate(group)}

    def order(m: Remembered) -> tuple[float | bool | str, ...]:
        return (
            -m.restated,
            m.memory_type not in policy.stated_types,
            is_question(m.text),
            -round(centrality[m.memory_id], 3),
            m.created_at,
            m.memory_id,
        )

    first, second = sorted(group, key=order)[:2]
    deciding = next(i for i, (a, b) in enumerate(zip(order(first), order(second), strict=True)) if a != b)
    return first, _WHY_CANONICAL[deciding]


def merge_reason(merge: Merge, policy: ConsolidationPolicy) -> str:
    """The evidence a merge rests on, recorded with it (``history`` shows it)."""
    members = (merge.canonical, *merge.merged)
    sessions = len({m.session_id for m in members if m.session_id})
    return (
        f"{len(members)} memories at least {merge.similarity:.2f} alike by vector (threshold "
        f"{policy.duplicate_similarity:g}, {policy.cross_kind_similarity:g} between stated and observed), "
        f"no conflicting values or change cues, from {sessions} session(s); canonical: {merge.why_canonical}"
    )


def _root(parent: dict[str, str], key: str) -> str:
    while parent.get(key, key) != key:
        key = parent[key]
    return key


def _kept_apart(a: str, b: str, parent: dict[str, str], apart: Set[frozenset[str]]) -> bool:
    """Whether joining the groups rooted at ``a`` and ``b`` would put a pair that was unmerged together
    (a group's members: the ids whose root is its root, and the root itself)."""
    left = {a} | {key for key in parent if _root(parent, key) == a}
    right = {b} | {key for key in parent if _root(parent, key) == b}
    return any(frozenset((x, y)) in apart for x in left for y in right)


def find_merges(
    new: Sequence[Remembered],
    group: Sequence[Remembered],
    policy: ConsolidationPolicy,
    apart: Set[frozenset[str]] = frozenset(),
) -> list[Merge]:
    """Groups of restatements among ``group`` that include at least one of ``new``; ``apart``: pairs of
    ids a merge was taken back for (``memories.unmerged``), never joined again."""
    parent: dict[str, str] = {}
    weakest: dict[str, float] = {}

    by_id = {m.memory_id: m for m in group}
    for pair in similar_pairs(new, group, policy.duplicate_similarity):
        stated = (pair.new.memory_type in policy.stated_types, pair.other.memory_type in policy.stated_types)
        if stated[0] != stated[1] and pair.similarity < policy.cross_kind_similarity:
            continue  # a request and what a tool showed share words, rarely a meaning
        if not restatement(pair.new, pair.other, policy):
            continue
        a, b = _root(parent, pair.new.memory_id), _root(parent, pair.other.memory_id)
        if a == b or (apart and _kept_apart(a, b, parent, apart)):
            continue
        parent[b] = a
        weakest[a] = min(weakest.get(a, 1.0), weakest.get(b, 1.0), pair.similarity)
    groups: dict[str, list[Remembered]] = {}
    for key in parent:
        groups.setdefault(_root(parent, key), []).append(by_id[key])
    merges = []
    for top, members in groups.items():
        everyone = list({m.memory_id: m for m in [by_id[top], *members]}.values())
        canonical, why = _canonical(everyone, policy)
        merged = tuple(sorted((m for m in everyone if m is not canonical), key=lambda m: m.created_at))
        merges.append(Merge(canonical, merged, weakest.get(top, policy.duplicate_similarity), why))
    return merges
