"""The projection's fold: one event applied to one point's state, as a pure function.

A point's state is its payload and its two vectors. Each event names the memory it changes; the fold
returns the new state, or the same object when the event changes nothing (older than the point,
another tenant's, or an embedding of a text the point no longer holds). No index, no I/O: the
projection loads the points a batch touches, folds every event over them, and writes them back once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from codememory.events import Envelope, MemoryDeprecated, MemoryEmbedded, MemoryForgotten, MemoryRefined
from codememory.lexical import SparseVec
from codememory.memory.consolidated import (
    ARCHIVED,
    CONSOLIDATION_EVENTS,
    MERGED,
    SUPERSEDED,
    consolidation_targets,
    fold_consolidation,
    with_history,
)
from codememory.memory.draft import MemoryDraft, memory_from_envelope, text_digest
from codememory.memory.enrich import DEFAULT_ENRICHMENT, Enrichment, indexed_text

ACTIVE, DEPRECATED, FORGOTTEN = "active", "deprecated", "forgotten"
# every state but forgotten: the memory still exists (its text, its history, its links)
LIVE_STATES = (ACTIVE, DEPRECATED, SUPERSEDED, MERGED, ARCHIVED)
Encode = Callable[[str], SparseVec]


@dataclass(frozen=True)
class PointState:
    payload: dict[str, Any]
    dense: tuple[float, ...] | None = None
    sparse: SparseVec | None = None


def draft_payload(draft: MemoryDraft, seq: int, context: str = "", previous_id: str = "") -> dict[str, Any]:
    """The payload of a new memory; ``context`` and ``previous_id``: the previous memory of its session."""
    return {
        "tenant": draft.tenant,
        "memory_id": draft.memory_id,
        "text": draft.text,
        "type": draft.memory_type,
        "repo": draft.repo,
        "branch": draft.branch,
        "user": draft.user,
        "session_id": draft.session_id,
        "agent": draft.agent,
        "paths": list(draft.paths),
        "tags": list(draft.tags),
        "importance": float(draft.importance),
        "metadata": dict(draft.metadata),
        "created_at": float(draft.created_at),
        "state": ACTIVE,
        "seq": seq,
        "created_seq": seq,  # never changes: orders a session's memories for neighbour links
        "text_digest": text_digest(draft.text),
        "embedded_digest": "",
        "context": context,  # its text, for the lexical index (see enrich)
        "previous_id": previous_id,  # a link: recall expands a hit to its session neighbours
    }


_UNREAD: Any = object()  # ``draft`` not given: read it from the envelope


def targets_of(envelope: Envelope, draft: MemoryDraft | None = _UNREAD) -> tuple[str, ...]:
    """The memory ids an event changes (empty when it changes no memory); ``draft``: the memory
    ``envelope`` creates when the caller has already read it (``memory_from_envelope``)."""
    draft = memory_from_envelope(envelope) if draft is _UNREAD else draft
    if draft is not None:
        return (draft.memory_id,)
    event = envelope.payload
    if isinstance(event, MemoryEmbedded | MemoryRefined | MemoryDeprecated | MemoryForgotten):
        return (event.memory_id,)
    return consolidation_targets(event)


def _newer(point: PointState | None, tenant: str, seq: int) -> bool:
    return (
        point is not None
        and point.payload.get("tenant") == tenant
        and int(point.payload.get("seq", 0)) < seq
        and point.payload.get("state") != FORGOTTEN
    )


def fold(
    point: PointState | None,
    seq: int,
    envelope: Envelope,
    encode: Encode,
    *,
    target: str = "",
    previous: str = "",
    previous_id: str = "",
    enrichment: Enrichment = DEFAULT_ENRICHMENT,
    model: str = "",
    draft: MemoryDraft | None = _UNREAD,
    taken: tuple[str, ...] | None = None,
) -> PointState | None:
    """``target``: which of the memories the event names this is (see ``targets_of``);
    ``previous``, ``previous_id``: the session's memory before the one ``envelope`` creates, if any;
    ``model``: only that model's vectors are taken (another model's are another index's; empty: any);
    ``draft``: as in ``targets_of``; ``taken``: of a merge's memories, those it takes
    (``consolidated.merge_takes``; None: every one it names)."""
    draft = memory_from_envelope(envelope) if draft is _UNREAD else draft
    tenant = envelope.tenant
    if draft is not None:
        if point is not None:
            return point  # a memory is created once: a redelivered (or colliding) creation changes nothing
        context = previous[: enrichment.context_chars] if enrichment.previous else ""
        payload = draft_payload(draft, seq, context, previous_id)
        return PointState(payload, None, encode(indexed_text(payload, enrichment)))
    if point is None or not _newer(point, tenant, seq):
        return point
    event = envelope.payload
    payload = {**point.payload, "seq": seq}
    match event:
        case MemoryEmbedded():
            if model and event.model != model:
                return point  # a vector of another model: the projection of that model takes it
            if point.payload.get("text_digest") != event.text_digest:
                return point  # computed from an older text; the newer text's embedding is on its way
            payload.update(embedded_digest=event.text_digest, model=event.model)
            return PointState(payload, tuple(event.vector), point.sparse)
        case MemoryRefined():
            sparse = point.sparse
            if event.text:
                payload.update(text=event.text, text_digest=text_digest(event.text))
                sparse = encode(indexed_text(payload, enrichment))
            if event.importance is not None:
                payload["importance"] = float(event.importance)
            if event.tags is not None:
                payload["tags"] = list(event.tags)
            if event.metadata is not None:
                payload["metadata"] = dict(event.metadata)
            with_history(payload, seq, envelope, text=bool(event.text) or None)
            return PointState(payload, point.dense, sparse)
        case MemoryDeprecated():
            payload["state"] = DEPRECATED
            with_history(payload, seq, envelope, reason=event.reason)
            return replace(point, payload=payload)
        case MemoryForgotten():
            tombstone = {
                "tenant": tenant,
                "memory_id": point.payload.get("memory_id"),
                "state": FORGOTTEN,
                "seq": seq,
            }
            return PointState(tombstone)
        case _:
            if isinstance(event, CONSOLIDATION_EVENTS):
                folded = fold_consolidation(payload, target, seq, envelope, event, taken)
                return replace(point, payload=folded)
            return point
