"""What a person corrects in the consolidation: merge, take a merge back, supersede, by hand.

A cycle merges restatements only when their vectors say so, and paraphrases of one rule can lie as far
apart as two different rules ("no raw fetch in components, use the shared api client" and "remember to
use apiClient from src/api/client.ts": cosine 0.47). So each of its conclusions has a hand-made
counterpart, written as the same event the cycle writes (an empty ``cycle_id`` says a person did it):
``memories.merged``, ``memories.unmerged``, ``memory.superseded``. Replay, ``history``, recall and later
cycles treat them as they treat the cycle's.

Here each correction is checked against the memories' points as the projection holds them and turned
into its event and a deterministic event id (a retried call appends once). Pure: the gateway core reads
the points (the caller's own only) and appends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from codememory.events import (
    MemoriesMerged,
    MemoriesUnmerged,
    MemorySource,
    MemorySuperseded,
    deterministic_id,
)
from codememory.gateway.errors import InvalidArgument, NotFound
from codememory.memory import ACTIVE, ARCHIVED, DEPRECATED, MERGED, SUPERSEDED, memory_id_of
from codememory.vectorstore import StoredPoint

BY_HAND = "a person said so"  # the reason recorded when the caller gives none
MERGE_INTO = (ACTIVE, DEPRECATED)  # a canonical memory stays in recall
MERGEABLE = (ACTIVE, DEPRECATED, ARCHIVED)  # archived ones never recalled may still restate a rule

Payload = Mapping[str, object]


def distinct(memory_ids: Sequence[str], canonical_id: str) -> list[str]:
    """The memories named besides the canonical one, each once, in the caller's order."""
    ids = list(dict.fromkeys(memory_ids))
    if not ids or canonical_id in ids:
        raise InvalidArgument("name the memories besides the canonical one (and not the canonical one)")
    return ids


def _number(payload: Payload, key: str, default: float) -> float:
    value = payload.get(key, default)
    return float(value) if isinstance(value, int | float) else default


def _why_not_merged(memory_id: str, payload: Payload, states: Sequence[str]) -> str:
    state = payload.get("state")
    if state == MERGED:
        return f"memory {memory_id} is already merged into {payload.get('merged_into')}"
    if state == SUPERSEDED:
        return f"memory {memory_id} was superseded by {payload.get('superseded_by')}: it is history"
    return f"memory {memory_id} is {state}, not {' or '.join(map(str, states))}"


def merge_event(
    tenant: str, canonical_point: StoredPoint, member_points: Sequence[StoredPoint], reason: str
) -> tuple[MemoriesMerged, str]:
    """The memories ``member_points`` merged into ``canonical_point`` (all the caller's points), and
    the event's id.

    A memory that others are merged into cannot itself be merged (its sources would point to a memory
    that left recall): the caller makes it the canonical one, or takes its merges back first.
    """
    canonical_id, canonical = memory_id_of(canonical_point), canonical_point.payload
    by_id = {memory_id_of(p): p.payload for p in member_points}
    if canonical_id in by_id or not by_id:
        raise InvalidArgument("name the memories besides the canonical one (and not the canonical one)")
    if canonical.get("state") not in MERGE_INTO:
        raise InvalidArgument(_why_not_merged(canonical_id, canonical, MERGE_INTO))
    for member_id, member in by_id.items():
        if member.get("state") == MERGED and member.get("merged_into") == canonical_id:
            continue  # merged into it already (a retried call): the same event, appended once
        if member.get("state") not in MERGEABLE:
            raise InvalidArgument(_why_not_merged(member_id, member, MERGEABLE))
        if member.get("sources"):
            raise InvalidArgument(
                f"memories are merged into {member_id}: make it the canonical memory, or unmerge them first"
            )
    ordered = sorted(by_id.items(), key=lambda item: (_number(item[1], "created_at", 0.0), item[0]))
    sources = tuple(
        MemorySource(
            memory_id=member_id,
            session_id=str(m.get("session_id") or ""),
            created_at=_number(m, "created_at", 0.0),
            memory_type=str(m.get("type") or ""),
        )
        for member_id, m in ordered
    )
    merged_ids = tuple(s.memory_id for s in sources)
    event = MemoriesMerged(
        canonical_id=canonical_id,
        merged_ids=merged_ids,
        sources=sources,
        importance=max(_number(p, "importance", 0.5) for p in (canonical, *by_id.values())),
        reason=reason or BY_HAND,
    )
    return event, deterministic_id(tenant, "merged", canonical_id, *sorted(merged_ids))


def unmerge_event(
    tenant: str, canonical_point: StoredPoint, member_points: Sequence[StoredPoint], reason: str
) -> tuple[MemoriesUnmerged, str]:
    """The caller's merged ``member_points`` taken back out of ``canonical_point``, and the event's id."""
    canonical_id = memory_id_of(canonical_point)
    ids = [memory_id_of(p) for p in member_points]
    for memory_id, point in zip(ids, member_points, strict=True):
        if point.payload.get("merged_into") != canonical_id:
            raise NotFound(f"memory {memory_id} is not merged into {canonical_id}")
    event = MemoriesUnmerged(canonical_id=canonical_id, memory_ids=tuple(ids), reason=reason or BY_HAND)
    return event, deterministic_id(tenant, "unmerged", canonical_id, *sorted(ids))


def supersede_event(
    tenant: str, old_point: StoredPoint, later_point: StoredPoint, reason: str
) -> tuple[MemorySuperseded, str]:
    """The memory ``old_point`` replaced by ``later_point`` (both the caller's, both current), and the
    event's id."""
    old_id, new_id, later = memory_id_of(old_point), memory_id_of(later_point), later_point.payload
    if old_id == new_id:
        raise InvalidArgument("a memory cannot supersede itself")
    event = MemorySuperseded(
        memory_id=old_id,
        superseded_by=new_id,
        superseded_at=_number(later, "created_at", 0.0),
        reason=reason or BY_HAND,
    )
    return event, deterministic_id(tenant, "superseded", old_id, new_id)


__all__ = [
    "BY_HAND",
    "MERGEABLE",
    "MERGE_INTO",
    "distinct",
    "merge_event",
    "supersede_event",
    "unmerge_event",
]
