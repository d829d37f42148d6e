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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from codememory.embedding import Embedder
from codememory.events import (
    Event,
    EventLog,
    MemoryDeprecated,
    MemoryForgotten,
    MemoryRefined,
    MemoryScope,
    MemoryStored,
    deterministic_id,
    new_envelope,
)
from codememory.gateway.errors import InvalidArgument, NotFound, NotReady
from codememory.lexical import SparseEncoder
from codememory.memory import ACTIVE, DEPRECATED, MemoryProjection
from codememory.projection import LiveProjection
from codememory.recall import Recaller, RecallHit, RecallQuery, SessionContext, Weights, build_context
from codememory.vectorstore import IndexFilter, StoredPoint

T = TypeVar("T")

MAX_TEXT = 16_000


@dataclass(frozen=True, kw_only=True)
class NewMemory:
    text: str
    memory_type: str = "note"
    scope: MemoryScope = field(default_factory=MemoryScope)
    tags: tuple[str, ...] = ()
    importance: float = 0.5
    metadata: Mapping[str, str] = field(default_factory=dict)
    memory_id: str = ""
    created_at: str = ""


@dataclass(frozen=True)
class Written:
    memory_id: str
    seq: int


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
    ) -> None:
        self.live = live
        self._log = event_log
        self.embedder = embedder
        self.encoder = encoder
        self.weights = weights or Weights()
        self._write_wait_s = write_wait_s
        self._clean = clean_text

    def _recaller(self) -> Recaller:
        return Recaller(self.live.projection.index, self.embedder, self.encoder, self.weights)

    async def recall(self, query: RecallQuery) -> list[RecallHit]:
        return await self.recall_then(query, list)

    async def recall_then(self, query: RecallQuery, then: Callable[[list[RecallHit]], T]) -> T:
        """The hits, passed through ``then`` in the same worker thread (one hop off the event loop)."""
        if query.limit <= 0 or query.limit > 500:
            raise InvalidArgument("limit must be between 1 and 500")
        recaller = self._recaller()

        def work() -> T:
            hits = recaller.recall(query)
            return then([h for h in hits if h.payload.get("tenant") == query.tenant])

        return await asyncio.to_thread(work)

    async def context(self, tenant: str, **scope: str | int) -> SessionContext:
        recaller = self._recaller()
        return await asyncio.to_thread(lambda: build_context(recaller, tenant=tenant, **scope))  # type: ignore[arg-type]

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
        memory_id = memory.memory_id or str(uuid.uuid4())
        existing = await self._point(memory_id)
        if existing is not None and existing.payload.get("tenant") != tenant:
            raise InvalidArgument("memory_id is taken")
        if existing is not None and existing.payload.get("state") in (ACTIVE, DEPRECATED):
            return Written(
                memory_id, int(str(existing.payload.get("seq", 0)))
            )  # storing an id twice stores once
        event = MemoryStored(
            memory_id=memory_id,
            text=text,
            memory_type=memory.memory_type or "note",
            scope=memory.scope,
            tags=memory.tags,
            importance=memory.importance,
            metadata={k: self._clean(v) for k, v in memory.metadata.items()},
            created_at=memory.created_at,
        )
        seq = await self._write(tenant, event, deterministic_id(tenant, "stored", memory_id, text))
        return Written(memory_id, seq)

    async def _point(self, memory_id: str) -> StoredPoint | None:
        """The memory's point; every id a caller sends passes through here, so it is checked here."""
        try:
            uuid.UUID(memory_id)
        except ValueError as exc:
            raise InvalidArgument("memory_id must be a UUID") from exc
        found = await asyncio.to_thread(self.live.projection.index.get, [memory_id])
        return found[0] if found else None

    async def _owned(self, tenant: str, memory_id: str) -> StoredPoint:
        point = await self._point(memory_id)
        if (
            point is None
            or point.payload.get("tenant") != tenant
            or point.payload.get("state") not in (ACTIVE, DEPRECATED)
        ):
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
        await self._owned(tenant, memory_id)
        seq = await self._write(
            tenant, MemoryDeprecated(memory_id=memory_id, reason=self._clean(reason)), str(uuid.uuid4())
        )
        return Written(memory_id, seq)

    async def forget(self, tenant: str, memory_id: str, reason: str) -> Written:
        await self._owned(tenant, memory_id)
        seq = await self._write(
            tenant, MemoryForgotten(memory_id=memory_id, reason=self._clean(reason)), str(uuid.uuid4())
        )
        return Written(memory_id, seq)

    async def export(self, tenant: str, repo: str = "") -> list[dict[str, object]]:
        equals: dict[str, str | int | bool] = {"tenant": tenant}
        if repo:
            equals["repo"] = repo
        flt = IndexFilter(equals=equals, any_of={"state": [ACTIVE, DEPRECATED]})
        index = self.live.projection.index
        points = await asyncio.to_thread(lambda: list(index.scroll(flt)))
        rows = [dict(p.payload) for p in points if p.payload.get("tenant") == tenant]
        rows.sort(key=lambda row: (float(str(row.get("created_at", 0.0))), str(row.get("memory_id"))))
        return rows

    async def count(self) -> int:
        flt = IndexFilter(any_of={"state": [ACTIVE, DEPRECATED]})
        return await asyncio.to_thread(self.live.projection.index.count, flt)
