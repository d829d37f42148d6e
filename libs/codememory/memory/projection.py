"""The memory projection: LOG folded into the vector index, plus the position it reached.

Points carry the LOG sequence that last changed them, so applying an event twice changes nothing. A
batch loads every point it touches in one read, folds its events over them in memory
(``codememory.memory.fold``) and writes the changed points back, the new ones with the values they
share converted once (``upsert_new``), a changed vector alone when little else changed (``parts``):
replay and live following share this path. The index is
flushed, and the position saved, at most once a second. A point gets its sparse BM25 vector (over
code-aware terms) the moment its memory is stored, so it is recallable lexically at once; the dense
vector follows with ``memory.embedded``. Forgetting leaves a tombstone without text or vectors, so a
redelivered store cannot bring the memory back.

A new memory's lexical text carries the previous memory of its session (``codememory.memory.enrich``),
found by ``memory.tails.SessionTails``. When a memory is forgotten, the memory that
took it as context loses that context (``_drop_context``): an erased text must not live on in its
successor's payload and lexical vector, and replay (where it reads ``[erased]``) ends the same.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import structlog

from codememory.events import Envelope, MemoriesMerged, MemoryForgotten
from codememory.lexical import SparseEncoder, SparseVec, code_terms
from codememory.lexical.pool import DeferredTerms, TermsPool
from codememory.memory.consolidated import Standing, merge_takes
from codememory.memory.draft import MemoryDraft, memory_from_envelope
from codememory.memory.enrich import Enrichment, indexed_text
from codememory.memory.fold import FORGOTTEN, Encode, PointState, fold, targets_of
from codememory.memory.kinds import DERIVED_TYPES
from codememory.memory.parts import split_parts, write_parts
from codememory.memory.points import point_id
from codememory.memory.position import Position
from codememory.memory.tails import SessionTails, canonical_uuid
from codememory.vectorstore import IndexFilter, IndexPoint, VectorIndex

# a flush holds the GIL 20-90 ms on a small shard and grows with it (0.4 s at 20,000 memories before
# an optimize): after every batch of a bulk import it was a fifth of the fold, then most of it. So at
# most every FLUSH_EVERY_S, and after one that took d seconds not before FLUSH_GAPS * d; a crash
# folds again what came after the last one
FLUSH_EVERY_S = 1.0
FLUSH_GAPS = 9  # flushing takes at most a tenth of a busy fold's time

log = structlog.get_logger(__name__)


def _whole(payload: Mapping[str, Any]) -> bool:
    """Whether a stored point is whole: ``upsert_new`` writes a new point's own values, then the
    values it shares with its batch, the tenant among them, so a crash between the two leaves a point
    without a tenant, which is taken for absent (its creation is folded again)."""
    return "tenant" in payload


class MemoryProjection:
    """Applies envelopes, in LOG order, to a ``VectorIndex``."""

    def __init__(
        self,
        index: VectorIndex,
        encoder: SparseEncoder,
        position: Position,
        enrichment: Enrichment | None = None,
        *,
        model: str = "",
        flush_every_s: float = FLUSH_EVERY_S,
    ) -> None:
        if flush_every_s < 0:
            raise ValueError(f"flush_every_s must be 0 (every batch) or more, got {flush_every_s}")
        self.index = index
        self.model = model  # whose vectors this index holds (empty: whichever MemoryEmbedded names)
        self._encoder = encoder
        self.position = position
        self.enrichment = enrichment or Enrichment()
        self._tails = SessionTails()  # the last memory of recently active sessions
        self.terms: TermsPool | None = None  # a batch's lexical vectors computed there (replay)
        self.deferred_sync = False  # a rebuild: flushed and its position saved once, by ``sync``
        self.flush_every_s = flush_every_s
        self._flushed_at = -math.inf  # the first batch is flushed
        self._unflushed = False  # batches applied since the last flush
        self._flush_s = 0.0  # what the last flush took (see FLUSH_GAPS)

    def _drop_context(
        self,
        forgotten: list[tuple[str, str]],
        states: dict[str, PointState | None],
        changed: set[str],
        encode: Encode,
    ) -> list[str]:
        """The memories whose context was a forgotten memory's text (``forgotten``: its memory id and
        point id), without it; the point ids newly loaded."""
        loaded = []
        flt = IndexFilter(any_of={"previous_id": [memory_id for memory_id, _ in forgotten]})
        for stored in self.index.scroll(flt, with_vectors=True):
            if stored.id not in states and _whole(stored.payload):
                states[stored.id] = PointState(dict(stored.payload), stored.dense, stored.sparse)
                loaded.append(stored.id)
        gone = {m: (states[p] or PointState({})).payload.get("tenant") for m, p in forgotten}
        for pid, state in list(states.items()):
            if state is None or not state.payload.get("context") or state.payload.get("state") == FORGOTTEN:
                continue
            previous = state.payload.get("previous_id")
            if previous in gone and gone[previous] == state.payload.get("tenant"):
                payload = {**state.payload, "context": ""}
                states[pid] = PointState(payload, state.dense, encode(indexed_text(payload, self.enrichment)))
                changed.add(pid)
        return loaded

    @property
    def encoder(self) -> SparseEncoder:
        return self._encoder

    @property
    def last_seq(self) -> int:
        return self.position.seq

    @property
    def poisoned(self) -> int:
        return self.position.poisoned

    def save_position(self, seq: int) -> None:
        """Record that everything up to ``seq`` is applied (never moves back)."""
        if seq > self.position.seq:
            self._flush_pending()
            self.position.save(seq)

    def skip(self, seq: int) -> None:
        """Move past an event that can never be applied (a poison event), and count it."""
        self._flush_pending()
        self.position.save(max(self.position.seq, seq), poisoned=self.position.poisoned + 1)

    def _flush_pending(self) -> None:
        """Flush what was applied since the last flush before a position past it is saved."""
        if self._unflushed and not self.deferred_sync:
            self._flush()

    def _flush(self) -> None:
        started = time.monotonic()
        self.index.flush()
        self._flushed_at = time.monotonic()
        self._unflushed = False
        self._flush_s = self._flushed_at - started

    def _flush_due(self) -> bool:
        if not self.flush_every_s:
            return True  # every batch
        gap = max(self.flush_every_s, FLUSH_GAPS * self._flush_s)
        return time.monotonic() - self._flushed_at >= gap

    @staticmethod
    def _standing(tenant: str, states: dict[str, PointState | None]) -> Callable[[str], Standing | None]:
        """How a memory of ``tenant`` stands in this batch's fold so far (None: not read, or not one)."""

        def standing(memory_id: str) -> Standing | None:
            canonical = canonical_uuid(memory_id)
            state = states.get(point_id(tenant, canonical)) if canonical else None
            if state is None:
                return None
            return str(state.payload.get("state", "")), str(state.payload.get("merged_into") or "")

        return standing

    def _encode(self, text: str) -> SparseVec:
        return self._encoder.encode_document(code_terms(text))

    def apply_batch(self, records: Iterable[tuple[int, Envelope]]) -> int:
        """Apply the events not yet applied and move the position past them; return the count. The
        index is flushed and the position saved when ``flush_every_s`` has passed since the last
        flush (every batch at 0), and ``FLUSH_GAPS`` times what that flush took: until then both
        stay in memory, readable, and a crash folds them again from the saved position (the
        per-point guard makes that harmless)."""
        todo = [(seq, env) for seq, env in records if seq > self.position.seq]
        if not todo:
            return 0
        self.apply_events(todo)
        last = max(seq for seq, _ in todo)
        if self.deferred_sync:  # nobody reads a projection being rebuilt: durable once, at the end
            self.position.seq = last
        elif self._flush_due():
            self._flush()
            self.position.save(last)
        else:
            self._unflushed = True
            self.position.seq = last
        return len(todo)

    def sync(self) -> None:
        """Flush and save the position; from now on after batches (ends ``deferred_sync``)."""
        self.deferred_sync = False
        self._flush()
        self.position.save(self.position.seq)

    def apply(self, seq: int, envelope: Envelope) -> None:
        """Apply one event regardless of the position (its per-point guard still holds)."""
        self.apply_events([(seq, envelope)])

    def apply_events(self, events: list[tuple[int, Envelope]]) -> None:
        targeted: list[tuple[int, Envelope, str, str]] = []  # seq, envelope, memory id, point id
        drafts: dict[int, MemoryDraft | None] = {}  # read once per event (by id of its envelope)
        for seq, envelope in events:
            draft = drafts[id(envelope)] = memory_from_envelope(envelope)
            for target in targets_of(envelope, draft):
                canonical = canonical_uuid(target)
                if canonical is None:
                    log.warning("memory_id_not_a_uuid", seq=seq, memory_id=target[:80])
                    continue
                targeted.append((seq, envelope, canonical, point_id(envelope.tenant, canonical)))
        if not targeted:
            return
        ids = list(dict.fromkeys(p for _, _, _, p in targeted))
        states: dict[str, PointState | None] = dict.fromkeys(ids)
        for stored in self.index.get(ids, with_vectors=True):
            if _whole(stored.payload):
                states[stored.id] = PointState(dict(stored.payload), stored.dense, stored.sparse)
        absent = {pid for pid in ids if states[pid] is None}  # written with ``upsert_new``
        read = {pid: state for pid, state in states.items() if state is not None}
        changed: set[str] = set()
        enrich = self.enrichment
        # with a pool, the texts a batch needs encoded are collected and encoded together at its end
        pooled = self.terms is not None and len(targeted) >= self.terms.min_batch
        deferred = DeferredTerms() if pooled else None
        encode = deferred or self._encode
        takes: dict[int, tuple[str, ...]] = {}  # a merge's memories it takes (by id of its envelope)
        for seq, envelope, target, pid in targeted:
            before = states[pid]
            if isinstance(envelope.payload, MemoriesMerged) and id(envelope) not in takes:
                takes[id(envelope)] = merge_takes(envelope.payload, self._standing(envelope.tenant, states))
            created = drafts[id(envelope)]
            draft = created if before is None else None
            # a derived memory (insight, summary) is not a turn of its session: no predecessor, no tail
            turn = draft is not None and draft.memory_type not in DERIVED_TYPES
            session = (envelope.tenant, draft.session_id) if draft is not None and turn else None
            previous = ("", "")
            if session is not None and session[1]:
                previous = self._tails.previous(self.index, session, seq, states)
            after = fold(
                before,
                seq,
                envelope,
                encode,
                target=target,
                previous=previous[1],
                previous_id=previous[0],
                enrichment=enrich,
                model=self.model,
                draft=created,
                taken=takes.get(id(envelope)),
            )
            if after is not before:
                states[pid] = after
                changed.add(pid)
                if session is not None and session[1] and after is not None:
                    self._tails.remember(session, seq, target, str(after.payload.get("text") or ""))
                elif after is not None:
                    self._tails.track(envelope, target, before)
        forgotten = [
            (t, p) for _, e, t, p in targeted if isinstance(e.payload, MemoryForgotten) and p in changed
        ]
        if forgotten:
            ids += self._drop_context(forgotten, states, changed, encode)
        final = [(t, state) for t in ids if t in changed and (state := states[t]) is not None]
        final, parts = split_parts(final, read)  # a vector (and a few values) alone: ``parts``
        sparse = [s.sparse for _, s in final]
        if deferred is not None and self.terms is not None:
            sparse = deferred.resolve(sparse, self.terms.encode_documents)
        points = [
            IndexPoint(id=t, payload=state.payload, dense=state.dense, sparse=vector)
            for (t, state), vector in zip(final, sparse, strict=True)
        ]
        changed_points = [p for p in points if p.id not in absent]
        if changed_points:
            self.index.upsert(changed_points)
        new_points = [p for p in points if p.id in absent]
        if new_points:
            upsert_new: Callable[[list[IndexPoint]], None] = getattr(
                self.index, "upsert_new", self.index.upsert
            )
            upsert_new(new_points)
        write_parts(self.index, parts, read)
