"""Supersession: a later stated memory that changes what an earlier one stated about the same subject.

A pair qualifies when (all thresholds in ``ConsolidationPolicy``):

- both were stated (a prompt, note, decision ...), neither is a question, both are current;
- their vectors are at least ``supersede_similarity`` alike, and they share at least
  ``subject_overlap`` of the smaller one's subject words (the HTTP client's timeout and the database
  pool's timeout are alike in meaning but not the same subject);
- the later one changes something: it states a value the earlier did not (a number, a name, a quoted
  or dotted identifier) or says that it changes (``change_cues``: "instead", "from now on" ...).

Which earlier memory: the later one's nearest earlier stated memory, or, among its
``supersede_rank`` nearest, one whose value it names and replaces with a new number
(``statements.replaced_value``: "bump the line length to 110, at 88 ..." changes the memory that
set 88, even when a memory about the queries it mentions lies nearer). Such a replacement is a
change on its own, alike at least ``named_similarity`` (naming the old value ties the two). A change
cue alone needs ``cue_similarity``, as alike as a new value: "bump uvicorn to the latest patch
release" says that something changes, not that it is the request about another file it happens to
lie nearest to; beside ``cue_shared_words`` subject words of the earlier one ("drop Sidekiq, ...
Solid Queue" after "put the mailers on Sidekiq, redis is already there"), ``named_similarity`` will do.
A later memory supersedes one earlier memory; an earlier memory claimed by several later ones is
superseded by the latest (the rule as it stands).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.similarity import nearest_earlier, similar_pairs
from codememory.consolidate.view import Remembered
from codememory.memory.cues import address_words, cues_of
from codememory.memory.statements import (
    contrasted,
    is_question,
    only_numbers_differ,
    parallel,
    replaced_value,
)
from codememory.memory.terms import new_values, subject_overlap, subject_words


@dataclass(frozen=True)
class Supersession:
    old: Remembered
    new: Remembered
    similarity: float
    reason: str


def _changes(earlier: Remembered, later: Remembered, similarity: float, policy: ConsolidationPolicy) -> str:
    """Why ``later`` changes ``earlier`` ("" when it does not): it says so with a change cue the
    earlier did not use (alike at least ``cue_similarity``, or ``named_similarity`` when they share
    ``cue_shared_words`` subject words, words addressing the listener aside), or it states a new value
    about the same subject (alike at least ``supersede_similarity``, most subject words shared). Without
    a cue, the same sentence about another thing (``parallel``, unless only numbers differ) changes
    nothing."""
    cues, ignore = policy.change_cues, policy.not_change_cues
    added = cues_of(later.text, cues, ignore) - cues_of(earlier.text, cues, ignore)
    if added and (similarity >= policy.cue_similarity or _names_subject(earlier, later, similarity, policy)):
        return f"says {sorted(added)[0]!r}"
    if contrasted(earlier.text, later.text):
        return ""  # values of two kinds of one thing ("audit logs" / "debug logs")
    if parallel(earlier.text, later.text, policy.parallel_ratio):
        if not only_numbers_differ(earlier.text, later.text):
            return ""
        if similarity >= policy.supersede_similarity:
            return "states " + ", ".join(sorted(new_values(earlier.text, later.text))[:3])
    values = new_values(earlier.text, later.text)
    if (
        values
        and similarity >= policy.supersede_similarity
        and subject_overlap(earlier.text, later.text) >= policy.subject_overlap
    ):
        return "states " + ", ".join(sorted(values)[:3])
    return ""


def _names_subject(
    earlier: Remembered, later: Remembered, similarity: float, policy: ConsolidationPolicy
) -> bool:
    """Whether ``later`` names ``cue_shared_words`` of ``earlier``'s subject words (identifiers' words
    included; "reminder" and the like are no subject) at ``named_similarity`` or more."""
    if similarity < policy.named_similarity:
        return False
    shared = subject_words(earlier.text) & subject_words(later.text)
    return len(shared - address_words(policy.address_cues)) >= policy.cue_shared_words


def _replaced(
    earlier: Remembered, later: Remembered, similarity: float, policy: ConsolidationPolicy
) -> tuple[str, str] | None:
    """The value ``later`` replaces in ``earlier`` (``statements.replaced_value``), alike at least
    ``named_similarity``; the same sentence about another thing (``parallel``) replaces nothing."""
    if similarity < policy.named_similarity or contrasted(earlier.text, later.text):
        return None
    if parallel(earlier.text, later.text, policy.parallel_ratio) and not only_numbers_differ(
        earlier.text, later.text
    ):
        return None
    return replaced_value(earlier.text, later.text)


def _rule(memory: Remembered, policy: ConsolidationPolicy) -> bool:
    return memory.memory_type in policy.stated_types and not is_question(memory.text)


def find_supersessions(
    new: Sequence[Remembered], group: Sequence[Remembered], policy: ConsolidationPolicy
) -> list[Supersession]:
    """Which earlier stated memory of ``group`` each later one supersedes (the rule it changes, see
    module), for the pairs in which one of ``new`` takes part, as the earlier or the later memory."""
    stated = sorted((m for m in group if _rule(m, policy)), key=lambda m: (m.created_at, m.seq))
    if len(stated) < 2:
        return []
    fresh = {m.memory_id for m in new if _rule(m, policy)}
    later_than_fresh = {
        pair.other.memory_id
        for pair in similar_pairs(
            [m for m in stated if m.memory_id in fresh], stated, policy.supersede_similarity
        )
        if pair.other.created_at > pair.new.created_at
    }
    positions = [i for i, m in enumerate(stated) if m.memory_id in fresh or m.memory_id in later_than_fresh]
    best: dict[str, Supersession] = {}
    lowest = min(policy.cue_similarity, policy.supersede_similarity, policy.named_similarity)
    for position, nearest in nearest_earlier(stated, positions, policy.supersede_rank):
        later = stated[position]
        chosen: tuple[bool, Remembered, float, str] | None = None
        for rank, (index, similarity) in enumerate(nearest):
            old = stated[index]
            if similarity < lowest:
                break
            if old.memory_id not in fresh and later.memory_id not in fresh:
                continue
            replaced = _replaced(old, later, similarity, policy)
            reason = f"replaces {replaced[0]} with {replaced[1]}" if replaced else ""
            if not replaced and rank == 0:
                reason = _changes(old, later, similarity, policy)
            if reason and (chosen is None or (replaced is not None and not chosen[0])):
                chosen = (replaced is not None, old, similarity, reason)
        if chosen is not None:
            _, old, similarity, reason = chosen
            found = Supersession(old, later, similarity, f"a later {later.memory_type} {reason}")
            held = best.get(old.memory_id)
            if held is None or (later.created_at, similarity) > (held.new.created_at, held.similarity):
                best[old.memory_id] = found
    return sorted(best.values(), key=lambda s: (s.new.created_at, -s.similarity))
