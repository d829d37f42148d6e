"""The memory projection: LOG folded into the vector index, plus the position it reached.

Points carry the LOG sequence that last changed them, so applying an event twice changes nothing. A
batch loads every point it touches in one read, folds its events over them in memory
(``codememory.memory.fold``) and writes the changed points back in one upsert: replay and live
following share this path. A point gets its sparse BM25 vector (over code-aware terms) the moment its
memory is stored, so it is recallable lexically at once; the dense vector follows with
``memory.embedded``. Forgetting leaves a tombstone without text or vectors, so a redelivered store
cannot bring the memory back.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import structlog

from codememory.events import Envelope
from codememory.lexical import SparseEncoder, SparseVec, code_terms
from codememory.memory.fold import PointState, fold, target_of
from codememory.memory.position import Position
from codememory.vectorstore import IndexPoint, VectorIndex

log = structlog.get_logger(__name__)


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


class MemoryProjection:
    """Applies envelopes, in LOG order, to a ``VectorIndex``."""

    def __init__(self, index: VectorIndex, encoder: SparseEncoder, position: Position) -> None:
        self.index = index
        self._encoder = encoder
        self.position = position

    @property
    def last_seq(self) -> int:
        return self.position.seq

    def _encode(self, text: str) -> SparseVec:
        return self._encoder.encode_document(code_terms(text))

    def apply_batch(self, records: Iterable[tuple[int, Envelope]]) -> int:
        """Apply the events not yet applied; flush, record the position; return the count."""
        todo = [(seq, env) for seq, env in records if seq > self.position.seq]
        if not todo:
            return 0
        self.apply_events(todo)
        self.index.flush()
        self.position.save(max(seq for seq, _ in todo))
        return len(todo)

    def apply(self, seq: int, envelope: Envelope) -> None:
        """Apply one event regardless of the position (its per-point guard still holds)."""
        self.apply_events([(seq, envelope)])

    def apply_events(self, events: list[tuple[int, Envelope]]) -> None:
        targeted: list[tuple[int, Envelope, str]] = []
        for seq, envelope in events:
            target = target_of(envelope)
            if target is None:
                continue
            if not _is_uuid(target):
                log.warning("memory_id_not_a_uuid", seq=seq, memory_id=target[:80])
                continue
            targeted.append((seq, envelope, str(uuid.UUID(target))))
        if not targeted:
            return
        ids = list(dict.fromkeys(t for _, _, t in targeted))
        states: dict[str, PointState | None] = dict.fromkeys(ids)
        for stored in self.index.get(ids, with_vectors=True):
            states[stored.id] = PointState(dict(stored.payload), stored.dense, stored.sparse)
        changed: set[str] = set()
        for seq, envelope, target in targeted:
            before = states[target]
            after = fold(before, seq, envelope, self._encode)
            if after is not before:
                states[target] = after
                changed.add(target)
        points = [
            IndexPoint(id=t, payload=state.payload, dense=state.dense, sparse=state.sparse)
            for t in ids
            if t in changed and (state := states[t]) is not None
        ]
        if points:
            self.index.upsert(points)
