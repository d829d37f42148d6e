"""What recall and session context returned, recorded as ``memories.recalled`` events in batches.

Importance decays unless a memory keeps being used (the consolidate service reads these), so every
hit a caller received is noted here: from the recall worker threads (a deque append is thread-safe)
and appended to LOG by ``flush`` every few seconds, one event per tenant, never on the query path.
A session context wakes the flush at once (``wake``): the other replicas read from LOG what each
session was given (``givencontext``), and a prompt can follow its start within a second. A failed
append keeps the accesses for the next flush (bounded: the oldest go first).

A cycle asked for through the gateway flushes first (``GatewayCore.consolidate``): what was returned
in the last two seconds is then in LOG before the consolidate service reads up to its end, so a
memory recalled just before ``codememory consolidate`` counts as used (through this replica; another
replica's accesses reach LOG within its own two seconds, maybe after the cycle). One flush at a
time: a second waits for the one in flight, so when ``flush`` returns, everything noted before it
was called is in LOG (or kept, after a failed append).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque
from collections.abc import Iterable
from typing import Literal

import structlog

from codememory.events import EventLog, MemoriesRecalled, MemoryAccess, new_envelope

log = structlog.get_logger(__name__)

MAX_PENDING = 100_000
PER_EVENT = 1000


class AccessRecorder:
    def __init__(self, event_log: EventLog) -> None:
        self._log = event_log
        self._pending: deque[tuple[str, MemoryAccess]] = deque(maxlen=MAX_PENDING)
        self._flushing = asyncio.Lock()
        self._woken = asyncio.Event()

    def wake(self) -> None:
        """Flush at once rather than at the next tick (``due``): a session context was noted, and the
        other replicas leave out what it gave only once its accesses are in LOG (``givencontext``).
        Call it on the event loop."""
        self._woken.set()

    async def due(self, seconds: float) -> None:
        """Until ``seconds`` have passed, or sooner when ``wake`` was called."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), seconds)
        self._woken.clear()

    def note(
        self,
        tenant: str,
        memory_ids: Iterable[str],
        *,
        session_id: str = "",
        purpose: str = "recall",
        starts: bool = False,
        at: float | None = None,
    ) -> None:
        """``starts``: a session context that started its session's record again (``givencontext``)."""
        at = time.time() if at is None else at
        kind: Literal["recall", "context"] = "context" if purpose == "context" else "recall"
        for memory_id in memory_ids:
            access = MemoryAccess(
                memory_id=memory_id, session_id=session_id, purpose=kind, at=at, starts=starts
            )
            self._pending.append((tenant, access))

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def flush(self) -> int:
        """Append what was noted; returns how many accesses were recorded."""
        async with self._flushing:
            return await self._flush()

    async def _flush(self) -> int:
        taken: list[tuple[str, MemoryAccess]] = []
        while self._pending:
            taken.append(self._pending.popleft())
        if not taken:
            return 0
        by_tenant: dict[str, list[MemoryAccess]] = {}
        for tenant, access in taken:
            by_tenant.setdefault(tenant, []).append(access)
        envelopes = [
            new_envelope(
                MemoriesRecalled(accesses=tuple(accesses[i : i + PER_EVENT])),
                event_id=str(uuid.uuid4()),
                tenant=tenant,
            )
            for tenant, accesses in by_tenant.items()
            for i in range(0, len(accesses), PER_EVENT)
        ]
        try:
            await self._log.append(envelopes)
        except Exception as exc:
            self._pending.extendleft(reversed(taken))
            log.warning("accesses_not_recorded", pending=len(self._pending), error=repr(exc))
            return 0
        return len(taken)
