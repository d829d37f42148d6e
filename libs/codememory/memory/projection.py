"""The memory projection: a fold of LOG into the vector index, plus the position it reached.

Points carry the LOG sequence that last changed them, so applying an event twice changes nothing: an
event at or below a point's sequence is skipped. A point gets its sparse BM25 vector (over code-aware
terms) the moment its memory is stored, so it is recallable lexically at once; the dense vector follows
when ``MemoryEmbedded`` arrives, and only if it was computed from the text the point holds now.
Forgetting leaves a tombstone without text or vectors, so a redelivered ``MemoryStored`` cannot bring
the memory back.
"""

from __future__ import annotations

from collections.abc import Iterable

from codememory.events import (
    Envelope,
    MemoryDeprecated,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
)
from codememory.lexical import SparseEncoder, code_terms
from codememory.memory.draft import MemoryDraft, memory_from_envelope, text_digest
from codememory.memory.position import Position
from codememory.vectorstore import IndexFilter, IndexPoint, StoredPoint, VectorIndex

ACTIVE, DEPRECATED, FORGOTTEN = "active", "deprecated", "forgotten"


def draft_payload(draft: MemoryDraft, seq: int) -> dict[str, object]:
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
        "text_digest": text_digest(draft.text),
        "embedded_digest": "",
    }


class MemoryProjection:
    """Applies envelopes, in LOG order, to a ``VectorIndex``."""

    def __init__(self, index: VectorIndex, encoder: SparseEncoder, position: Position) -> None:
        self.index = index
        self._encoder = encoder
        self.position = position

    @property
    def last_seq(self) -> int:
        return self.position.seq

    def apply_batch(self, records: Iterable[tuple[int, Envelope]]) -> int:
        """Apply each (seq, envelope) not yet applied; flush, record the position; return the count."""
        applied = 0
        last = self.position.seq
        for seq, envelope in records:
            if seq <= self.position.seq:
                continue
            self.apply(seq, envelope)
            applied += 1
            last = max(last, seq)
        if last > self.position.seq:
            self.index.flush()
            self.position.save(last)
        return applied

    def apply(self, seq: int, envelope: Envelope) -> None:
        draft = memory_from_envelope(envelope)
        if draft is not None:
            self._store(seq, draft)
            return
        event = envelope.payload
        match event:
            case MemoryEmbedded():
                self._embedded(seq, envelope.tenant, event)
            case MemoryRefined():
                self._refined(seq, envelope.tenant, event)
            case MemoryDeprecated():
                self._change_state(seq, envelope.tenant, event.memory_id, DEPRECATED)
            case MemoryForgotten():
                self._forget(seq, envelope.tenant, event.memory_id)
            case _:
                pass

    def _current(self, tenant: str, memory_id: str, seq: int) -> StoredPoint | None:
        """The point if it belongs to the tenant and this event is newer than it; else None."""
        found = self.index.get([memory_id])
        if not found:
            return None
        point = found[0]
        if point.payload.get("tenant") != tenant or int(point.payload.get("seq", 0)) >= seq:
            return None
        return point

    def _store(self, seq: int, draft: MemoryDraft) -> None:
        existing = self.index.get([draft.memory_id])
        if existing and int(existing[0].payload.get("seq", 0)) >= seq:
            return
        if existing and existing[0].payload.get("tenant") != draft.tenant:
            return  # an id collision across tenants never overwrites another tenant's memory
        sparse = self._encoder.encode_document(code_terms(draft.text))
        self.index.upsert(
            [IndexPoint(id=draft.memory_id, payload=draft_payload(draft, seq), dense=None, sparse=sparse)]
        )

    def _embedded(self, seq: int, tenant: str, event: MemoryEmbedded) -> None:
        point = self._current(tenant, event.memory_id, seq)
        if point is None or point.payload.get("state") == FORGOTTEN:
            return
        if point.payload.get("text_digest") != event.text_digest:
            return  # computed from an older text; the newer text's embedding is on its way
        self.index.set_dense(event.memory_id, event.vector)
        self.index.set_payload(
            event.memory_id, {"seq": seq, "embedded_digest": event.text_digest, "model": event.model}
        )

    def _refined(self, seq: int, tenant: str, event: MemoryRefined) -> None:
        point = self._current(tenant, event.memory_id, seq)
        if point is None or point.payload.get("state") == FORGOTTEN:
            return
        changes: dict[str, object] = {"seq": seq}
        if event.text:
            changes["text"] = event.text
            changes["text_digest"] = text_digest(event.text)
            self.index.replace_sparse(event.memory_id, self._encoder.encode_document(code_terms(event.text)))
        if event.importance is not None:
            changes["importance"] = float(event.importance)
        if event.tags is not None:
            changes["tags"] = list(event.tags)
        if event.metadata is not None:
            changes["metadata"] = dict(event.metadata)
        self.index.set_payload(event.memory_id, changes)

    def _change_state(self, seq: int, tenant: str, memory_id: str, state: str) -> None:
        point = self._current(tenant, memory_id, seq)
        if point is None or point.payload.get("state") == FORGOTTEN:
            return
        self.index.set_payload(memory_id, {"seq": seq, "state": state})

    def _forget(self, seq: int, tenant: str, memory_id: str) -> None:
        point = self._current(tenant, memory_id, seq)
        if point is None:
            return
        tombstone = {"tenant": tenant, "memory_id": memory_id, "state": FORGOTTEN, "seq": seq}
        self.index.delete([memory_id])
        self.index.upsert([IndexPoint(id=memory_id, payload=tombstone, dense=None, sparse=None)])


def tenant_filter(tenant: str) -> IndexFilter:
    return IndexFilter(equals={"tenant": tenant})
