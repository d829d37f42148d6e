"""The memory projection: LOG folded into the vector index, plus the position it reached.

Points carry the LOG sequence that last changed them, so applying an event twice changes nothing. A
batch loads every point it touches in one read, folds its events over them in memory
(``codememory.memory.fold``) and writes the changed points back in one upsert: replay and live
following share this path. A point gets its sparse BM25 vector (over code-aware terms) the moment its
memory is stored, so it is recallable lexically at once; the dense vector follows with
``memory.embedded``. Forgetting leaves a tombstone without text or vectors, so a redelivered store
cannot bring the memory back.

A new memory's lexical text carries the previous memory of its session (``codememory.memory.enrich``).
The projection remembers the last memory of recently active sessions; after a restart it finds it in
the index (the session's memory with the highest ``created_seq`` below the new one), which is the same
answer, so live following and replay index the same text. When a memory is forgotten, the memory that
took it as context loses that context (``_drop_context``): an erased text must not live on in its
successor's payload and lexical vector, and replay (where it reads ``[erased]``) ends the same.
"""

from __future__ import annotations

import re
import uuid
from collections import OrderedDict
from collections.abc import Iterable

import structlog

from codememory.events import Envelope, MemoryForgotten, MemoryRefined
from codememory.lexical import SparseEncoder, SparseVec, code_terms
from codememory.lexical.pool import DeferredTerms, TermsPool
from codememory.memory.draft import MemoryDraft, memory_from_envelope
from codememory.memory.enrich import Enrichment, indexed_text
from codememory.memory.fold import FORGOTTEN, LIVE_STATES, Encode, PointState, fold, targets_of
from codememory.memory.kinds import DERIVED_TYPES
from codememory.memory.points import point_id
from codememory.memory.position import Position
from codememory.vectorstore import IndexFilter, IndexPoint, VectorIndex

_TAILS = 4096  # sessions whose last memory is kept in memory

_Session = tuple[str, str]  # (tenant, session id)

log = structlog.get_logger(__name__)


_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _canonical(value: str) -> str | None:
    """The canonical form of a UUID string (``None`` if it is not one); most already are."""
    if _CANONICAL.fullmatch(value):
        return value
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


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
    ) -> None:
        self.index = index
        self.model = model  # whose vectors this index holds (empty: whichever MemoryEmbedded names)
        self._encoder = encoder
        self.position = position
        self.enrichment = enrichment or Enrichment()
        self._tails: OrderedDict[_Session, tuple[int, str, str]] = OrderedDict()  # seq, memory id, text
        self.terms: TermsPool | None = None  # a batch's lexical vectors computed there (replay)
        self.deferred_sync = False  # a rebuild: flushed and its position saved once, by ``sync``

    def _previous(self, session: _Session, seq: int, batch: dict[str, PointState | None]) -> tuple[str, str]:
        """Id and text of the session's latest memory created before ``seq`` (empty when none).

        ``batch``: the points of the batch being folded, newer than their copies in the index.
        """
        tail = self._tails.get(session)
        if tail is not None and tail[0] < seq:
            return tail[1], tail[2]
        flt = IndexFilter(
            equals={"tenant": session[0], "session_id": session[1]},
            ranges={"created_seq": (None, float(seq - 1))},
            any_of={"state": list(LIVE_STATES)},
        )
        best: tuple[int, str, str] | None = None
        in_index = (
            (p.id, p.payload) for p in self.index.scroll(flt) if p.id not in batch
        )  # a batch point's index copy is stale
        in_batch = ((i, s.payload) for i, s in batch.items() if s is not None)
        for pid, payload in (*in_index, *in_batch):
            created = payload.get("created_seq")
            if (
                payload.get("tenant") == session[0]
                and payload.get("session_id") == session[1]
                and payload.get("state") in LIVE_STATES
                and payload.get("type") not in DERIVED_TYPES
                and isinstance(created, int | float)
                and created < seq
                and (best is None or int(created) > best[0])
            ):
                mid = _canonical(str(payload.get("memory_id") or "")) or pid  # as the tails keep it
                best = (int(created), mid, str(payload.get("text") or ""))
        return (best[1], best[2]) if best is not None else ("", "")

    def _remember(self, session: _Session, seq: int, memory_id: str, text: str) -> None:
        self._tails[session] = (seq, memory_id, text)
        self._tails.move_to_end(session)
        while len(self._tails) > _TAILS:
            self._tails.popitem(last=False)

    def _track(self, envelope: Envelope, target: str, before: PointState | None) -> None:
        """Keep the remembered tails equal to what the index says after a refinement or forgetting."""
        session_id = before.payload.get("session_id") if before is not None else None
        if not isinstance(session_id, str) or not session_id:
            return
        session = (envelope.tenant, session_id)
        tail = self._tails.get(session)
        if tail is None or tail[1] != target:
            return
        event = envelope.payload
        if isinstance(event, MemoryForgotten):
            del self._tails[session]  # the next lookup finds the memory before it in the index
        elif isinstance(event, MemoryRefined) and event.text:
            self._tails[session] = (tail[0], target, event.text)

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
            if stored.id not in states:
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
            self.position.save(seq)

    def skip(self, seq: int) -> None:
        """Move past an event that can never be applied (a poison event), and count it."""
        self.position.save(max(self.position.seq, seq), poisoned=self.position.poisoned + 1)

    def _encode(self, text: str) -> SparseVec:
        return self._encoder.encode_document(code_terms(text))

    def apply_batch(self, records: Iterable[tuple[int, Envelope]]) -> int:
        """Apply the events not yet applied; flush, record the position; return the count."""
        todo = [(seq, env) for seq, env in records if seq > self.position.seq]
        if not todo:
            return 0
        self.apply_events(todo)
        if self.deferred_sync:  # nobody reads a projection being rebuilt: durable once, at the end
            self.position.seq = max(seq for seq, _ in todo)
        else:
            self.index.flush()
            self.position.save(max(seq for seq, _ in todo))
        return len(todo)

    def sync(self) -> None:
        """Flush and save the position; from now on after every batch (ends ``deferred_sync``)."""
        self.deferred_sync = False
        self.index.flush()
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
                canonical = _canonical(target)
                if canonical is None:
                    log.warning("memory_id_not_a_uuid", seq=seq, memory_id=target[:80])
                    continue
                targeted.append((seq, envelope, canonical, point_id(envelope.tenant, canonical)))
        if not targeted:
            return
        ids = list(dict.fromkeys(p for _, _, _, p in targeted))
        states: dict[str, PointState | None] = dict.fromkeys(ids)
        for stored in self.index.get(ids, with_vectors=True):
            states[stored.id] = PointState(dict(stored.payload), stored.dense, stored.sparse)
        changed: set[str] = set()
        enrich = self.enrichment
        # with a pool, the texts a batch needs encoded are collected and encoded together at its end
        pooled = self.terms is not None and len(targeted) >= self.terms.min_batch
        deferred = DeferredTerms() if pooled else None
        encode = deferred or self._encode
        for seq, envelope, target, pid in targeted:
            before = states[pid]
            created = drafts[id(envelope)]
            draft = created if before is None else None
            # a derived memory (insight, summary) is not a turn of its session: no predecessor, no tail
            turn = draft is not None and draft.memory_type not in DERIVED_TYPES
            session = (envelope.tenant, draft.session_id) if draft is not None and turn else None
            previous = ("", "")
            if session is not None and session[1]:
                previous = self._previous(session, seq, states)
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
            )
            if after is not before:
                states[pid] = after
                changed.add(pid)
                if session is not None and session[1] and after is not None:
                    self._remember(session, seq, target, str(after.payload.get("text") or ""))
                elif after is not None:
                    self._track(envelope, target, before)
        forgotten = [
            (t, p) for _, e, t, p in targeted if isinstance(e.payload, MemoryForgotten) and p in changed
        ]
        if forgotten:
            ids += self._drop_context(forgotten, states, changed, encode)
        final = [(t, state) for t in ids if t in changed and (state := states[t]) is not None]
        sparse = [s.sparse for _, s in final]
        if deferred is not None and self.terms is not None:
            sparse = deferred.resolve(sparse, self.terms.encode_documents)
        points = [
            IndexPoint(id=t, payload=state.payload, dense=state.dense, sparse=vector)
            for (t, state), vector in zip(final, sparse, strict=True)
        ]
        if points:
            self.index.upsert(points)
