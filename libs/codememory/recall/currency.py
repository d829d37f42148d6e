"""The rule as it stands: the current statement of an answer ranks above the one it replaced.

Similarity ranks an amended decision below the original whenever the original says more of the
query's words ("keep minSdkVersion at 23" against "minSdk goes to 26 so we can use java.time"). Two
steps on a ranked list put the current statement first, both general and configurable in ``Weights``:

- ``pull_current``: a superseded candidate lends its relevance to the memory that superseded it
  (followed through merges to the canonical memory): when the old rule matches the query well,
  the rule that replaced it ranks just above where the old one would have stood. The old one keeps
  its ``superseded`` multiplier, so it follows as history.
- ``latest_first``: the query names the subject, so two statements that answer it about equally well
  (the later one's relevance at least ``latest_margin`` of the earlier one's) are about the same
  thing, and the one stated later, in another session, ranks first. Only what someone stated
  (``STATED_TYPES``: prompts, notes, decisions ...), only active memories, only within the top
  ``window``: observations and conversation turns keep their order.

Pure functions over scored candidates: no index, no model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec

from codememory.memory.kinds import STATED_TYPES
from codememory.recall.scoring import Candidate, ScoreParts, Weights, relevance

Ranked = list[tuple[Candidate, ScoreParts]]
_STATED = frozenset(STATED_TYPES)


def _created(payload: Mapping[str, object]) -> float:
    value = payload.get("created_at")
    return float(value) if isinstance(value, int | float) else 0.0


def current_of(memory_id: str, payloads: Mapping[str, Mapping[str, object]]) -> str:
    """The memory a superseded one now stands for: its superseder, followed through merges and
    later supersessions (at most a few hops; a cycle stops where it started)."""
    seen = {memory_id}
    current = memory_id
    for _ in range(8):
        payload = payloads.get(current)
        if payload is None:
            return current
        nxt = payload.get("merged_into") or payload.get("superseded_by")
        if not isinstance(nxt, str) or not nxt or nxt in seen:
            return current
        seen.add(nxt)
        current = nxt
    return current


def _lenders(ranked: Ranked, weights: Weights, window: int) -> list[tuple[Candidate, ScoreParts, float]]:
    """Superseded candidates that would rank within the top ``window`` without the ``superseded``
    multiplier, with their parts and the total they would have."""
    if weights.superseded <= 0 or not ranked:
        return []
    cutoff = ranked[min(window, len(ranked)) - 1][1].total
    out = []
    for candidate, parts in ranked:
        if candidate.payload.get("state") == "superseded" and parts.total / weights.superseded >= cutoff:
            out.append((candidate, parts, parts.total / weights.superseded))
    return out


def superseders(ranked: Ranked, weights: Weights, window: int) -> list[str]:
    """The ids that superseded memories that would rank within the top ``window`` point to (to read
    when the ranking lacks them)."""
    out = []
    for candidate, _, _ in _lenders(ranked, weights, window):
        target = candidate.payload.get("superseded_by")
        if isinstance(target, str) and target:
            out.append(target)
    return list(dict.fromkeys(out))


def pull_current(
    ranked: Ranked,
    chain: Mapping[str, Mapping[str, object]],
    fetched: Mapping[str, Candidate],
    weights: Weights,
    window: int,
    score_one: Callable[[Candidate], ScoreParts],
) -> tuple[Ranked, dict[str, float]]:
    """``ranked`` with the current replacement of each superseded memory that would rank within the
    top ``window`` without the ``superseded`` multiplier at least as high as the old one would.
    ``chain``: payloads of the memories the ranking lacks that a chain passes through (superseders,
    canonical memories); ``fetched``: the current memories the ranking lacks that match the query's
    filter; ``score_one`` scores one of them. Also the relevance each pulled memory inherited (what
    ``latest_first`` compares it by: it answers the query as well as the rule it replaced)."""
    payloads = {**chain, **{c.memory_id: c.payload for c, _ in ranked}}
    lent: dict[str, float] = {}
    inherited: dict[str, float] = {}
    for candidate, parts, total in _lenders(ranked, weights, window):
        current = current_of(candidate.memory_id, payloads)
        if current != candidate.memory_id and payloads.get(current, {}).get("state") == "active":
            lent[current] = max(lent.get(current, 0.0), total)
            inherited[current] = max(inherited.get(current, 0.0), relevance(parts, weights))
    if not lent:
        return ranked, {}
    by_id = {c.memory_id: (c, p) for c, p in ranked}
    for mid in lent:
        if mid not in by_id and mid in fetched:
            by_id[mid] = (fetched[mid], score_one(fetched[mid]))
    out = []
    for mid, (candidate, parts) in by_id.items():
        total = max(parts.total, lent.get(mid, 0.0))
        out.append(
            (candidate, parts if total == parts.total else msgspec.structs.replace(parts, total=total))
        )
    out.sort(key=lambda pair: (-pair[1].total, pair[0].memory_id))
    return out, inherited


def _answers_later(
    later: tuple[Candidate, ScoreParts],
    earlier: tuple[Candidate, ScoreParts],
    weights: Weights,
    inherited: Mapping[str, float],
) -> bool:
    (new, new_parts), (old, old_parts) = later, earlier
    if old.payload.get("type") not in _STATED or old.payload.get("state") != "active":
        return False
    if old.payload.get("session_id") == new.payload.get("session_id"):
        return False
    if _created(new.payload) <= _created(old.payload):
        return False
    new_relevance = max(relevance(new_parts, weights), inherited.get(new.memory_id, 0.0))
    old_relevance = max(relevance(old_parts, weights), inherited.get(old.memory_id, 0.0))
    return new_relevance >= weights.latest_margin * old_relevance


def latest_first(
    ranked: Sequence[tuple[Candidate, ScoreParts]],
    weights: Weights,
    window: int,
    inherited: Mapping[str, float] | None = None,
) -> Ranked:
    """The top ``window`` with each active stated memory moved above the highest-ranked earlier
    statement (another session, stated before it) that it answers the query about as well as;
    a moved memory takes that one's total (plus a hair), so totals stay in rank order.
    ``inherited``: relevance a memory has from the rule it replaced (``pull_current``)."""
    inherited = inherited or {}
    if not 0 < weights.latest_margin <= 1:
        return list(ranked)
    head: Ranked = []
    for item in ranked[:window]:
        candidate, parts = item
        place = len(head)
        if candidate.payload.get("type") in _STATED and candidate.payload.get("state") == "active":
            place = next(
                (i for i, other in enumerate(head) if _answers_later(item, other, weights, inherited)), place
            )
        if place < len(head):
            above = head[place][1].total
            item = (candidate, msgspec.structs.replace(parts, total=max(parts.total, above + 1e-9)))
        head.insert(place, item)
    for i in range(len(head) - 2, -1, -1):  # totals in rank order again below a moved memory
        if head[i][1].total < head[i + 1][1].total:
            head[i] = (head[i][0], msgspec.structs.replace(head[i][1], total=head[i + 1][1].total + 1e-9))
    return head + list(ranked[window:])


__all__ = ["current_of", "latest_first", "pull_current", "relevance", "superseders"]
