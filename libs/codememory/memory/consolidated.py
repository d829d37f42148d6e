"""What the consolidate service's conclusions do to the memories they name.

A cycle's event names several memories (a merge names the canonical one and its restatements, a
supersession the old and the new), so the projection folds it once per memory it names, each time
with ``target`` saying which one this is. Like the rest of the fold: pure, no index, no I/O.

A merge can be taken back (``memories.unmerged``): the restatements are active again and leave the
canonical memory's sources. A merge takes only what still stands when it is folded (``merge_takes``):
a person's merge and a cycle's are both checked when they are made, and can race for one memory; the
first one LOG holds keeps it, the later one leaves it out of its sources, and a replay folds them the
same way. Each point keeps a short ``history`` of what changed it (``codememory
history ID`` shows it) and the links both ways: ``merged_into`` / ``sources``, ``superseded_by`` /
``supersedes``. A canonical memory keeps when it was last stated (``last_stated``, the latest of its
sources), so recall reads one number rather than walking its sources.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codememory.events import (
    Envelope,
    ImportanceDecayed,
    MemoriesArchived,
    MemoriesLinked,
    MemoriesMerged,
    MemoriesUnmerged,
    MemorySuperseded,
    event_tag,
)

MERGED, SUPERSEDED, ARCHIVED = "merged", "superseded", "archived"
GONE = ("forgotten", SUPERSEDED)  # a memory no merge takes, as a source or as the canonical one
Standing = tuple[str, str]  # a memory's state, and the memory it is merged into ("" when none)
HISTORY_LIMIT = 40  # the most recent changes a point keeps; LOG keeps them all

Consolidation = (
    MemoriesMerged
    | MemoriesUnmerged
    | MemorySuperseded
    | MemoriesArchived
    | ImportanceDecayed
    | MemoriesLinked
)
CONSOLIDATION_EVENTS = (
    MemoriesMerged,
    MemoriesUnmerged,
    MemorySuperseded,
    MemoriesArchived,
    ImportanceDecayed,
    MemoriesLinked,
)


def consolidation_targets(event: object) -> tuple[str, ...]:
    """The memories a consolidation event changes (empty for any other event)."""
    match event:
        case MemoriesMerged():
            return (event.canonical_id, *event.merged_ids)
        case MemoriesUnmerged():
            return (event.canonical_id, *event.memory_ids)
        case MemorySuperseded():
            return (event.memory_id, event.superseded_by)
        case MemoriesArchived():
            return event.memory_ids
        case ImportanceDecayed():
            return tuple(a.memory_id for a in event.adjustments)
        case MemoriesLinked():
            return tuple(link.memory_id for link in event.links)
        case _:
            return ()


def merge_takes(event: MemoriesMerged, standing: Callable[[str], Standing | None]) -> tuple[str, ...]:
    """The memories of ``event.merged_ids`` the merge takes, as ``standing`` says they stand when it is
    folded (None: unknown): none when the canonical memory left recall (merged, superseded, forgotten,
    unknown); of the others, each that is known, not superseded or forgotten, and not merged into
    another memory (merged into this one already: taken again, which changes nothing)."""
    canonical = standing(event.canonical_id)
    if canonical is None or canonical[0] in (*GONE, MERGED):
        return ()
    taken = []
    for memory_id in dict.fromkeys(event.merged_ids):
        now = standing(memory_id)
        if memory_id == event.canonical_id or now is None or now[0] in GONE:
            continue
        if now[0] != MERGED or now[1] == event.canonical_id:
            taken.append(memory_id)
    return tuple(taken)


def with_history(payload: dict[str, Any], seq: int, envelope: Envelope, **detail: object) -> None:
    """Append what ``envelope`` did to the point's history (in place; bounded)."""
    entry = {"seq": seq, "event": event_tag(type(envelope.payload)), "at": envelope.occurred_at.timestamp()}
    entry.update({k: v for k, v in detail.items() if v not in ("", None)})
    history = [*payload.get("history", ()), entry]
    payload["history"] = history[-HISTORY_LIMIT:]


def _last_stated(sources: list[Any]) -> float:
    """The latest time of the restatements merged into a memory (0: none): recall's recency counts
    from it (``recall.scoring.stated_at``), as the consolidate view's decay does."""
    times = (s.get("created_at") for s in sources if isinstance(s, dict))
    return max((float(t) for t in times if isinstance(t, int | float)), default=0.0)


def _takes(event: MemoriesMerged, target: str, taken: tuple[str, ...]) -> bool:
    """Whether a merge that takes ``taken`` changes ``target``: the canonical memory when it takes any."""
    return bool(taken) and (target == event.canonical_id or target in taken)


def fold_consolidation(
    payload: dict[str, Any],
    target: str,
    seq: int,
    envelope: Envelope,
    event: Consolidation,
    taken: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The payload after ``event`` for the memory ``target`` (a copy; the input is not changed);
    ``taken``: of a merge's memories, those it takes (``merge_takes``; None: all it names)."""
    out = dict(payload)
    if isinstance(event, MemoriesMerged) and taken is not None and not _takes(event, target, taken):
        return out  # merged elsewhere first, superseded or forgotten: this merge leaves it as it is
    match event:
        case MemoriesMerged() if target == event.canonical_id:
            known = {s["memory_id"] for s in out.get("sources", ()) if isinstance(s, dict)}
            known |= {m for m in event.merged_ids if taken is not None and m not in taken}
            added = [
                {"memory_id": s.memory_id, "session_id": s.session_id, "created_at": s.created_at}
                for s in event.sources
                if s.memory_id not in known and s.memory_id != target
            ]
            out["sources"] = [*out.get("sources", ()), *added]
            out["restated"] = 1 + len(out["sources"])
            if added:
                out["last_stated"] = _last_stated(out["sources"])
            if event.importance is not None:
                out["importance"] = max(float(out.get("importance", 0.5)), float(event.importance))
            with_history(out, seq, envelope, merged=len(added), reason=event.reason)
        case MemoriesMerged():
            out.update(state=MERGED, merged_into=event.canonical_id)
            with_history(out, seq, envelope, into=event.canonical_id, reason=event.reason)
        case MemoriesUnmerged() if target == event.canonical_id:
            gone = set(event.memory_ids)
            sources = [
                s for s in out.get("sources", ()) if not (isinstance(s, dict) and s.get("memory_id") in gone)
            ]
            out["sources"] = sources
            out["restated"] = 1 + len(sources)
            out["last_stated"] = _last_stated(sources)
            with_history(out, seq, envelope, unmerged=len(gone), reason=event.reason)
        case MemoriesUnmerged() if out.get("merged_into") == event.canonical_id:
            out.pop("merged_into", None)
            if out.get("state") == MERGED:
                out["state"] = "active"
            with_history(out, seq, envelope, out_of=event.canonical_id, reason=event.reason)
        case MemorySuperseded() if target == event.memory_id:
            at = event.superseded_at or envelope.occurred_at.timestamp()
            out.update(state=SUPERSEDED, superseded_by=event.superseded_by, superseded_at=at)
            with_history(out, seq, envelope, by=event.superseded_by, reason=event.reason)
        case MemorySuperseded():
            out["supersedes"] = list(dict.fromkeys([*out.get("supersedes", ()), event.memory_id]))
            with_history(out, seq, envelope, old=event.memory_id, reason=event.reason)
        case MemoriesArchived():
            out["state"] = ARCHIVED
            with_history(out, seq, envelope, reason=event.reason)
        case ImportanceDecayed():
            for adjustment in event.adjustments:
                if adjustment.memory_id == target:
                    out["importance"] = float(adjustment.importance)
        case MemoriesLinked():
            for link in event.links:
                if link.memory_id == target:
                    out["links"] = list(link.neighbours)
                    out["code_links"] = list(link.code)
    return out


__all__ = [
    "ARCHIVED",
    "CONSOLIDATION_EVENTS",
    "GONE",
    "MERGED",
    "SUPERSEDED",
    "Consolidation",
    "Standing",
    "consolidation_targets",
    "fold_consolidation",
    "merge_takes",
    "with_history",
]
