"""Bulk import: many memories through the event path in batches, with one wait at the end.

Why not ``Store`` per memory: each Store appends one event and waits for the projection to apply it,
so an import of 1,700 memories took minutes. Here a batch is validated and redacted in a worker
thread, checked against the index in one read, sealed there too when the log takes encoded envelopes
(JetStream's ``append_encoded``: the next batch is sealed while this one is published), and appended
to LOG in one call; the caller waits once, after the last batch, for the projection (and, if asked,
for every new memory's dense vector: ``embedwait``). Past ``WORKERS_AFTER`` memories (the gateway's
``import_workers_after``) a batch's texts are redacted in the intake's worker processes instead
(``importwork``), off the GIL the fold of the same import needs; a smaller import is over before they
would have started. While it runs, the import counts as a bulk writer of the projection, and the
gateway optimizes the shard less often (``optimizing``).

Ids are derived, so importing the same memories twice stores each once: a memory keeps the id it was
exported with, or gets one derived from what it says (tenant, text, time, type, scope; keyed by the
tenant's id key when sealing is on, ``codememory.sealing.ids``); the event id
is the one ``Store`` gives the same memory (LOG dedupes a retried batch); a memory already in the
index, or earlier in the same stream, is skipped and counted as existing.

A memory comes in in the state it was exported in (``importlinks``, which says when and why), and so
does one found unchanged since it was stored: an import cut short before its states can be run again.
"""

from __future__ import annotations

import asyncio
import pickle
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from codememory.events import Appended, Envelope, EventLog, MemoryStored, deterministic_id, new_envelope
from codememory.events.codec import encode_envelopes
from codememory.gateway.codeintake import CodeIntake
from codememory.gateway.embedwait import wait_embedded_vectors
from codememory.gateway.errors import InvalidArgument, NotReady
from codememory.gateway.importlinks import ImportLinks, check_state, untouched
from codememory.gateway.importwork import Cleaned, clean_chunk
from codememory.gateway.shortids import canonical_memory_id
from codememory.gateway.writes import MAX_TEXT, NewMemory
from codememory.memory import LIVE_STATES, MemoryProjection, memory_id_of, point_ids
from codememory.memorylines import StateOf
from codememory.projection import LiveProjection
from codememory.sealing import text_id

CLEAN_CHUNK = 250  # memories per intake worker job: a batch of 1,000 spread over both workers
WORKERS_AFTER = 5000  # an import this large starts the intake's workers (a smaller one is done first)


AppendEncoded = Callable[[Sequence[Envelope], Sequence[bytes]], Awaitable[list[Appended]]]


@dataclass(frozen=True)
class Prepared:
    envelopes: list[Envelope]
    encoded: list[bytes] | None  # sealed and encoded already (None: ``append`` encodes them)


@dataclass(frozen=True, kw_only=True)
class ImportedMemory:
    memory: NewMemory
    state: StateOf = field(default_factory=StateOf)


@dataclass
class ImportTally:
    received: int = 0
    stored: int = 0
    existing: int = 0
    last_seq: int = 0
    embedded: bool = False
    append_s: float = 0.0
    states: int = 0  # memories put in their exported state (``importlinks``)


def imported_id(tenant: str, memory: NewMemory) -> str:
    """The memory's own id (canonical form), or one derived from what it says."""
    if memory.memory_id:
        return canonical_memory_id(memory.memory_id)
    s = memory.scope
    # keyed (the tenant's id key): an id made from the text must not confirm a guess of an erased text
    return text_id(
        tenant, "imported", memory.text, memory.created_at, memory.memory_type, s.repo, s.session_id
    )


class ImportRun:
    """One import stream: ``add`` each batch in order, then ``finish`` once."""

    def __init__(
        self,
        tenant: str,
        live: LiveProjection[MemoryProjection],
        event_log: EventLog,
        clean_text: Callable[[str], str],
        *,
        intake: CodeIntake | None = None,
        workers_after: int = WORKERS_AFTER,
    ) -> None:
        self.tenant = tenant
        self._live = live
        self._log = event_log
        self._clean = clean_text
        self._seen: set[str] = set()
        self._links = ImportLinks(tenant)
        self._new: list[str] = []  # the ids of what this run stored, in order
        self.tally = ImportTally()
        self._appending: asyncio.Future[None] | None = None
        self._writing = False  # counted in ``live.bulk_writers`` (the gateway optimizes less meanwhile)
        # a log that takes encoded envelopes (JetStream's): each batch is sealed while preparing it
        self._encoded: AppendEncoded | None = getattr(event_log, "append_encoded", None)
        # redaction in the intake's worker processes: only a function they can import by name
        self._intake = intake if intake is not None and _by_name(clean_text) else None
        self._workers_after = workers_after

    def _event(
        self, number: int, item: ImportedMemory, cleaned: Cleaned | None
    ) -> tuple[MemoryStored, StateOf]:
        memory, clean = item.memory, self._clean
        if cleaned is None:
            text = clean(memory.text).strip()
        else:  # redacted by a worker already, metadata too
            text, metadata = cleaned
            memory, clean = replace(memory, metadata=metadata), _kept
        if not text:
            raise InvalidArgument(
                f"memory {number}: text is empty (after removing secrets and private parts)"
            )
        if len(text) > MAX_TEXT:
            raise InvalidArgument(f"memory {number}: text is longer than {MAX_TEXT} characters")
        if not 0.0 <= memory.importance <= 1.0:
            raise InvalidArgument(f"memory {number}: importance must be between 0 and 1")
        try:
            memory_id = imported_id(self.tenant, memory)
        except InvalidArgument as exc:
            raise InvalidArgument(f"memory {number}: {exc}") from exc
        state = check_state(number, memory_id, item.state)
        return memory.stored(memory_id, text, clean, source="import"), state

    def _prepare(self, batch: Sequence[ImportedMemory], cleaned: Sequence[Cleaned] | None) -> Prepared:
        """Validate, redact (unless ``cleaned`` by the intake's workers), drop what exists, and seal when
        the log takes encoded envelopes: what to append (runs in a worker thread, while the batch
        before is being published)."""
        first = self.tally.received + 1
        events = [
            self._event(first + i, item, None if cleaned is None else cleaned[i])
            for i, item in enumerate(batch)
        ]
        existing = self._found([e.memory_id for e, _ in events])
        envelopes: list[Envelope] = []
        for event, state in events:
            if event.memory_id in existing or event.memory_id in self._seen:
                self.tally.existing += 1
                if untouched(existing.get(event.memory_id)):  # an import cut short before its states
                    envelopes += self._links.now(event, state)
                continue
            self._seen.add(event.memory_id)
            event_id = deterministic_id(self.tenant, "stored", event.memory_id)  # not the text: see core
            envelopes.append(new_envelope(event, event_id=event_id, tenant=self.tenant))
            envelopes += self._links.now(event, state)
            self._new.append(event.memory_id)
        self.tally.received += len(batch)
        # sealed here (keys made and durable) rather than in ``append``: off the publishing's path
        encoded = encode_envelopes(envelopes) if envelopes and self._encoded is not None else None
        return Prepared(envelopes, encoded)

    async def add(self, batch: Sequence[ImportedMemory]) -> None:
        """Prepare ``batch`` while the previous one is appended; appends stay in stream order."""
        if not self._writing:
            self._writing = True
            self._live.bulk_writers += 1
        cleaned = await self._cleaned(batch)
        prepared = await asyncio.to_thread(self._prepare, batch, cleaned)
        await self._appended()
        if prepared.envelopes:
            self._appending = asyncio.ensure_future(self._append(prepared))

    async def _cleaned(self, batch: Sequence[ImportedMemory]) -> list[Cleaned] | None:
        """``batch`` redacted in the intake's worker processes, in chunks at once; None while they have
        not started (``_prepare`` redacts it in its thread then). They are started once the import is
        past ``WORKERS_AFTER`` memories: a small import is done before they would be ready."""
        intake = self._intake
        if intake is None:
            return None
        if self.tally.received >= self._workers_after:
            intake.warm()
        if not intake.ready():
            return None
        chunks = [batch[start : start + CLEAN_CHUNK] for start in range(0, len(batch), CLEAN_CHUNK)]
        jobs = [
            intake.call(clean_chunk, self._clean, [m.memory.text for m in c], [m.memory.metadata for m in c])
            for c in chunks
        ]
        return [memory for chunk in await asyncio.gather(*jobs) for memory in chunk]

    async def _appended(self) -> None:
        appending, self._appending = self._appending, None
        if appending is not None:
            await appending

    async def _append(self, prepared: Prepared) -> None:
        started = time.perf_counter()
        envelopes = prepared.envelopes
        if prepared.encoded is not None and self._encoded is not None:
            appended = await self._encoded(envelopes, prepared.encoded)
        else:
            appended = await self._log.append(envelopes)
        self.tally.append_s += time.perf_counter() - started
        self.tally.stored += sum(1 for e in envelopes if isinstance(e.payload, MemoryStored))
        self.tally.last_seq = max([self.tally.last_seq, *(a.seq for a in appended)])

    async def finish(self, *, wait_embedded: bool, timeout_s: float) -> ImportTally:
        """The links between what this run stored, then one wait for the projection; then, if asked,
        for the vectors of what it stored."""
        await self._appended()
        links = self._links.at_end(await self._present(self._links.canonical_ids()))
        if links:
            await self._append(Prepared(links, None))
        self.tally.states = self._links.made
        if self.tally.last_seq and not await self._live.wait_for(self.tally.last_seq, timeout_s):
            raise NotReady(f"imported up to {self.tally.last_seq} but it is not yet applied")
        self.release()
        self.tally.last_seq = max(self.tally.last_seq, self._live.seq)
        if wait_embedded:
            self.tally.embedded = await wait_embedded_vectors(
                self._live, self._log, self.tenant, self._new, timeout_s
            )
        return self.tally

    async def _present(self, memory_ids: Sequence[str]) -> set[str]:
        """Of ``memory_ids``, those this run stored or the tenant has and has not forgotten."""
        missing = [m for m in memory_ids if m not in self._seen]
        found = await asyncio.to_thread(self._found, missing) if missing else {}
        live = {m for m, payload in found.items() if payload.get("state") in LIVE_STATES}
        return {m for m in memory_ids if m in self._seen} | live

    def _found(self, memory_ids: Sequence[str]) -> dict[str, Mapping[str, Any]]:
        """The payloads of those of ``memory_ids`` the tenant has, by memory id (this tenant's points
        only: another tenant's memory of the same id is another point)."""
        found = self._live.projection.index.get(point_ids(self.tenant, memory_ids))
        return {memory_id_of(p): p.payload for p in found if p.payload.get("tenant") == self.tenant}

    def release(self) -> None:
        """No longer a bulk writer of the projection (``finish`` does it; call it when a run fails)."""
        if self._writing:
            self._writing = False
            self._live.bulk_writers -= 1


def _kept(value: str) -> str:
    return value


def _by_name(fn: Callable[[str], str]) -> bool:
    """Whether ``fn`` pickles as a reference (a module's function), as a worker process needs it."""
    try:
        return len(pickle.dumps(fn)) < 512
    except Exception:  # a lambda, a bound method of something that does not pickle
        return False
