"""The gateway's domain: recall, session context, and explicit memory changes, for one tenant at a time.

No gRPC and no NATS here: the event log and the vector index come in through their ports. Reads
take no lock (the index is safe across threads); only the live projection writes to the index.
Every change is an event appended to LOG; the call returns once the live projection has applied it,
so the
caller's next recall already honours it. Every record read is checked against the caller's tenant.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Protocol, TypeVar

from codememory.cycles import CycleReport
from codememory.embedding import Embedder
from codememory.events import (
    Event,
    EventLog,
    MemoryDeprecated,
    MemoryForgotten,
    MemoryRefined,
    deterministic_id,
    new_envelope,
)
from codememory.gateway.accesses import AccessRecorder
from codememory.gateway.corrections import distinct, merge_event, supersede_event, unmerge_event
from codememory.gateway.errors import InvalidArgument, NotFound, NotReady
from codememory.gateway.exporting import exported
from codememory.gateway.givencontext import GivenContext
from codememory.gateway.histories import MemoryHistory, history_of
from codememory.gateway.shortids import canonical_memory_id, memory_id_named
from codememory.gateway.writes import MAX_TEXT, NewMemory, Written
from codememory.lexical import SparseEncoder
from codememory.memory import ACTIVE, DEPRECATED, LIVE_STATES, MERGED, MemoryProjection, point_id
from codememory.projection import LiveProjection
from codememory.recall import (
    ContextRequest,
    Recaller,
    RecallHit,
    RecallQuery,
    SessionContext,
    Weights,
    build_context,
)
from codememory.vectorstore import IndexFilter, StoredPoint

T = TypeVar("T")


class Consolidation(Protocol):
    """Asks the consolidate service to run a cycle for a tenant now (``consolidation.py``: over NATS)."""

    async def run(self, tenant: str) -> CycleReport: ...


class GatewayCore:
    def __init__(
        self,
        live: LiveProjection[MemoryProjection],
        event_log: EventLog,
        embedder: Embedder,
        encoder: SparseEncoder,
        *,
        weights: Weights | None = None,
        write_wait_s: float = 5.0,
        clean_text: Callable[[str], str] = lambda text: text,
        consolidation: Consolidation | None = None,
        accesses: AccessRecorder | None = None,
    ) -> None:
        self.live = live
        self._log = event_log
        self.embedder = embedder
        self.encoder = encoder
        self.weights = weights or Weights()
        self._write_wait_s = write_wait_s
        self._clean = clean_text
        self._consolidation = consolidation
        self.accesses = accesses
        self.sessions_given = GivenContext()

    @property
    def event_log(self) -> EventLog:
        return self._log

    def clean(self, text: str) -> str:
        """``text`` without secrets and private parts."""
        return self._clean(text)

    @property
    def clean_text(self) -> Callable[[str], str]:
        """What ``clean`` calls: a worker process can import it by name (a bulk import's redaction)."""
        return self._clean

    def _recaller(self, projection: MemoryProjection) -> Recaller:
        return Recaller(projection.index, self.embedder, self.encoder, self.weights)

    async def recall(self, query: RecallQuery) -> list[RecallHit]:
        return await self.recall_then(query, list)

    async def recall_then(self, query: RecallQuery, then: Callable[[list[RecallHit]], T]) -> T:
        """The hits, passed through ``then`` in the same worker thread (one hop off the event loop)."""
        if query.limit <= 0 or query.limit > 500:
            raise InvalidArgument("limit must be between 1 and 500")

        def work(projection: MemoryProjection) -> T:
            recaller = self._recaller(projection)
            hits = [h for h in recaller.recall(query) if h.payload.get("tenant") == query.tenant]
            if self.accesses is not None:
                self.accesses.note(query.tenant, (h.memory_id for h in hits), session_id=query.session_id)
            return then(hits)

        return await self.live.read_held(work)  # a swap closes the projection only after this read

    async def context(self, request: ContextRequest, *, resumed: bool = False) -> SessionContext:
        """Session context; at a prompt or a resumed start, without what the session had (givencontext)."""
        tenant, session_id = request.tenant, request.session_id
        kept = bool(request.prompt.strip()) or resumed
        given = self.sessions_given.given(tenant, session_id) if kept else frozenset()

        def build(projection: MemoryProjection) -> SessionContext:
            return build_context(self._recaller(projection), request, leave_out=given)

        found = await self.live.read_held(build)
        at = self.sessions_given.stamp(tenant, session_id)  # one time for every replica's record
        self.sessions_given.note(tenant, session_id, found.memory_ids, restart=not kept, at=at)
        if self.accesses is not None:
            # a start that gave nothing is still one access, without a memory (``MemoryAccess.starts``)
            ids = found.memory_ids or (("",) if not kept and session_id else ())
            self.accesses.note(tenant, ids, session_id=session_id, purpose="context", starts=not kept, at=at)
            self.accesses.wake()  # into LOG at once, for the other replicas
        return found

    async def _write(self, tenant: str, event: Event, event_id: str) -> int:
        envelope = new_envelope(event, event_id=event_id, tenant=tenant)
        appended = await self._log.append([envelope])
        seq = appended[0].seq
        if not await self.live.wait_for(seq, self._write_wait_s):
            raise NotReady(f"event {seq} appended but not yet applied")
        return seq

    async def store(self, tenant: str, memory: NewMemory) -> Written:
        text = self._clean(memory.text).strip()
        if not text:
            raise InvalidArgument("text is empty (after removing secrets and private parts)")
        if len(text) > MAX_TEXT:
            raise InvalidArgument(f"text is longer than {MAX_TEXT} characters")
        if not 0.0 <= memory.importance <= 1.0:
            raise InvalidArgument("importance must be between 0 and 1")
        memory_id = canonical_memory_id(memory.memory_id) if memory.memory_id else str(uuid.uuid4())
        # the tenant's own point only: another tenant's memory of this id is another point, unseen here
        existing = await self._point(tenant, memory_id)
        if existing is not None and existing.payload.get("state") in (ACTIVE, DEPRECATED):
            return Written(
                memory_id, int(str(existing.payload.get("seq", 0)))
            )  # storing an id twice stores once
        event = memory.stored(memory_id, text, self._clean)
        # not from the text: ids stay clear in LOG, and one made from an erased text would confirm a guess
        seq = await self._write(tenant, event, deterministic_id(tenant, "stored", memory_id))
        return Written(memory_id, seq)

    async def _point(self, tenant: str, memory_id: str) -> StoredPoint | None:
        """The tenant's memory's point; every id a caller sends passes through here, so it is checked here."""
        pid = point_id(tenant, canonical_memory_id(memory_id))
        found = await asyncio.to_thread(self.live.projection.index.get, [pid])
        return found[0] if found and found[0].payload.get("tenant") == tenant else None

    async def _named(self, tenant: str, given: str) -> str:
        """The whole id of the caller's memory ``given`` names: its id, or the start of one (``shortids``)."""
        return await asyncio.to_thread(memory_id_named, self.live.projection.index, tenant, given)

    async def _all_named(self, tenant: str, given: Sequence[str]) -> list[str]:
        return [await self._named(tenant, one) for one in given]

    async def _owned(
        self, tenant: str, memory_id: str, states: Sequence[str] = (ACTIVE, DEPRECATED)
    ) -> StoredPoint:
        point = await self._point(tenant, memory_id)
        if point is None or point.payload.get("state") not in states:
            raise NotFound(f"no memory {memory_id}")
        return point

    async def refine(
        self,
        tenant: str,
        memory_id: str,
        *,
        text: str = "",
        importance: float | None = None,
        tags: Sequence[str] | None = None,
    ) -> Written:
        memory_id = await self._named(tenant, memory_id)
        await self._owned(tenant, memory_id)
        cleaned = self._clean(text).strip() if text else ""
        if text and not cleaned:
            raise InvalidArgument("text is empty after removing secrets and private parts")
        if importance is not None and not 0.0 <= importance <= 1.0:
            raise InvalidArgument("importance must be between 0 and 1")
        event = MemoryRefined(
            memory_id=memory_id,
            text=cleaned,
            importance=importance,
            tags=tuple(tags) if tags is not None else None,
        )
        seq = await self._write(tenant, event, str(uuid.uuid4()))
        return Written(memory_id, seq)

    async def deprecate(self, tenant: str, memory_id: str, reason: str) -> Written:
        memory_id = await self._named(tenant, memory_id)
        await self._owned(tenant, memory_id)
        seq = await self._write(
            tenant, MemoryDeprecated(memory_id=memory_id, reason=self._clean(reason)), str(uuid.uuid4())
        )
        return Written(memory_id, seq)

    async def forget(self, tenant: str, memory_id: str, reason: str) -> Written:
        memory_id = await self._named(tenant, memory_id)
        await self._owned(tenant, memory_id)
        seq = await self._write(
            tenant, MemoryForgotten(memory_id=memory_id, reason=self._clean(reason)), str(uuid.uuid4())
        )
        return Written(memory_id, seq)

    def export(self, tenant: str, repo: str = "") -> AsyncIterator[dict[str, Any]]:
        """Every memory of ``tenant`` not forgotten, in its state, oldest first (``exporting``): a backup
        keeps the history consolidation made."""
        return exported(lambda: self.live.projection.index, tenant, repo)

    async def count(self) -> int:
        flt = IndexFilter(any_of={"state": [ACTIVE, DEPRECATED]})
        return await asyncio.to_thread(self.live.projection.index.count, flt)

    async def supersede(self, tenant: str, memory_id: str, superseded_by: str, reason: str) -> Written:
        """Mark ``memory_id`` as replaced by the later ``superseded_by`` (both the caller's, both current)."""
        memory_id = await self._named(tenant, memory_id)
        superseded_by = await self._named(tenant, superseded_by)
        if memory_id == superseded_by:
            raise InvalidArgument("a memory cannot supersede itself")
        old, later = await self._owned(tenant, memory_id), await self._owned(tenant, superseded_by)
        event, event_id = supersede_event(tenant, old, later, self._clean(reason))
        return Written(memory_id, await self._write(tenant, event, event_id))

    async def merge(self, tenant: str, canonical_id: str, memory_ids: Sequence[str], reason: str) -> Written:
        """Restatements a cycle missed: each of ``memory_ids`` merged into ``canonical_id``."""
        canonical_id, memory_ids = (
            await self._named(tenant, canonical_id),
            await self._all_named(tenant, memory_ids),
        )
        ids = distinct(memory_ids, canonical_id)
        canonical = await self._owned(tenant, canonical_id, LIVE_STATES)
        members = [await self._owned(tenant, memory_id, LIVE_STATES) for memory_id in ids]
        event, event_id = merge_event(tenant, canonical, members, self._clean(reason))
        return Written(canonical_id, await self._write(tenant, event, event_id), tuple(ids))

    async def unmerge(
        self, tenant: str, canonical_id: str, memory_ids: Sequence[str], reason: str
    ) -> Written:
        """Take a merge back: each of ``memory_ids`` (merged into ``canonical_id``) is its own again."""
        canonical_id, memory_ids = (
            await self._named(tenant, canonical_id),
            await self._all_named(tenant, memory_ids),
        )
        ids = distinct(memory_ids, canonical_id)
        canonical = await self._owned(tenant, canonical_id, LIVE_STATES)
        members = [await self._owned(tenant, memory_id, (MERGED,)) for memory_id in ids]
        event, event_id = unmerge_event(tenant, canonical, members, self._clean(reason))
        return Written(canonical_id, await self._write(tenant, event, event_id), tuple(ids))

    async def history(self, tenant: str, memory_id: str) -> MemoryHistory:
        """The memory in any state but forgotten, what changed it, and the memories it names."""
        point = await self._owned(tenant, await self._named(tenant, memory_id), LIVE_STATES)
        return await asyncio.to_thread(history_of, self.live.projection.index, tenant, point)

    async def consolidate(self, tenant: str) -> CycleReport:
        """Run a cycle now and return once the projection has applied its events. What recall
        returned and is not yet in LOG is appended first, so the cycle sees it (``accesses``)."""
        if self._consolidation is None:
            raise NotReady("no consolidate service is configured")
        if self.accesses is not None:
            await self.accesses.flush()
        report = await self._consolidation.run(tenant)
        if report.error:
            raise NotReady(f"consolidation failed: {report.error}")
        if not await self.live.wait_for(report.last_seq, max(self._write_wait_s, 30.0)):
            raise NotReady(f"consolidation wrote up to {report.last_seq} but it is not yet applied")
        return report
