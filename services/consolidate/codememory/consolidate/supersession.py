"""Supersession: a later stated memory that changes what an earlier one stated about the same subject.

A pair qualifies when (all thresholds in ``ConsolidationPolicy``):

- both were stated (a prompt, note, decision ...), neither is a question, both are current;
- their vectors are at least ``supersede_similarity`` alike, and they share at least
  ``subject_overlap`` of the smaller one's subject words (the HTTP client's timeout and the database
  pool's timeout are alike in meaning but not the same subject);
- the later one changes something: it states a value the earlier did not (a number, a name, a quoted
  or dotted identifier) or says that it changes (``change_cues``: "instead", "from now on" ...).

An earlier memory claimed by several later ones is superseded by the latest (the rule as it stands);
a later one supersedes at most ``max_superseded`` earlier ones per cycle, the most alike first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.similarity import similar_pairs
from codememory.consolidate.terms import has_cue, is_question, new_values, subject_overlap
from codememory.consolidate.view import Remembered


@dataclass(frozen=True)
class Supersession:
    old: Remembered
    new: Remembered
    similarity: float
    reason: str


def _changes(earlier: Remembered, later: Remembered, policy: ConsolidationPolicy) -> str:
    """Why ``later`` changes ``earlier`` ("" when it does not)."""
    values = new_values(earlier.text, later.text)
    if values:
        return "states " + ", ".join(sorted(values)[:3])
    if has_cue(later.text, policy.change_cues):
        return "says it changes"
    return ""


def find_supersessions(
    new: Sequence[Remembered], group: Sequence[Remembered], policy: ConsolidationPolicy
) -> list[Supersession]:
    """Supersessions among ``group`` in which one of ``new`` takes part (as the old or the new)."""
    stated = [m for m in group if m.memory_type in policy.stated_types and not is_question(m.text)]
    fresh = [m for m in new if m.memory_type in policy.stated_types and not is_question(m.text)]
    best: dict[str, Supersession] = {}
    for pair in similar_pairs(fresh, stated, policy.supersede_similarity, top=10):
        earlier, later = sorted((pair.new, pair.other), key=lambda m: (m.created_at, m.seq))
        if earlier.created_at == later.created_at:
            continue
        if subject_overlap(earlier.text, later.text) < policy.subject_overlap:
            continue
        reason = _changes(earlier, later, policy)
        if not reason:
            continue
        found = Supersession(earlier, later, pair.similarity, f"a later {later.memory_type} {reason}")
        held = best.get(earlier.memory_id)
        if held is None or (later.created_at, pair.similarity) > (held.new.created_at, held.similarity):
            best[earlier.memory_id] = found
    per_new: dict[str, int] = {}
    out = []
    for found in sorted(best.values(), key=lambda s: -s.similarity):
        count = per_new.get(found.new.memory_id, 0)
        if count < policy.max_superseded:
            per_new[found.new.memory_id] = count + 1
            out.append(found)
    return out
