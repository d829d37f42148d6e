"""The live code projection: LOG folded into the code graphs (one per tenant) and the code-search index.

It follows LOG from the start on every boot: the graph lives in memory (the design's "rebuilt from the
log on start") and the code-search shard is rebuilt beside it, so both always reflect the same prefix
of LOG. Writers of code facts wait here for their sequence (read-your-writes, like memories). A
centrality refresher runs off the query path in a worker thread and swaps in a new snapshot.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterable

import structlog

from codememory.codegraph import TenantGraphs
from codememory.codegraph.digest import graph_digest
from codememory.codesearch import CodeIndex, CodeSearchError
from codememory.events import (
    Envelope,
    EventDecodeError,
    EventLog,
    FileDeleted,
    LogRecord,
    SymbolsEmbedded,
    SymbolsExtracted,
    decode_envelope,
)
from codememory.vectorstore import VectorIndex

log = structlog.get_logger(__name__)


class CodeProjection:
    """The fold of one batch into both code projections; pure of NATS and gRPC."""

    def __init__(
        self, graphs: TenantGraphs, code_index: CodeIndex, *, shard: VectorIndex, generation: int = 0
    ) -> None:
        self.graphs = graphs
        self.code_index = code_index
        self.shard = shard  # the index under code_index: closed when a replay swaps this projection out
        self.generation = generation
        self.last_seq = 0
        self.skipped = 0

    def apply_batch(self, decoded: list[tuple[int, Envelope]]) -> int:
        applied = 0
        for seq, envelope in decoded:
            if seq <= self.last_seq:
                continue
            try:
                self.graphs.apply(envelope, seq)
                self._index(envelope)
            except Exception as exc:  # one bad event must never stop the projection (or readiness)
                self.skipped += 1
                log.warning("code_event_skipped", seq=seq, reason=f"{type(exc).__name__}: {exc}")
            self.last_seq = seq
            applied += 1
        return applied

    def _index(self, envelope: Envelope) -> None:
        event, tenant = envelope.payload, envelope.tenant
        try:
            if isinstance(event, SymbolsExtracted):
                self.code_index.upsert_file(tenant, event.repo, event.path, event.symbols)
            elif isinstance(event, SymbolsEmbedded):
                self.code_index.set_vectors(tenant, event.repo, event.path, event.qualnames, event.vectors)
            elif isinstance(event, FileDeleted):
                self.code_index.remove_file(tenant, event.repo, event.path)
        except CodeSearchError as exc:  # one bad fact must not stop the projection
            # e.g. an event recorded before codefacts refused repeated qualnames: the graph folded it,
            # code search keeps what it had for the file
            log.warning("code_index_skipped", repo=getattr(event, "repo", ""), reason=str(exc))


class CodeLive:
    def __init__(self, projection: CodeProjection) -> None:
        self.projection = projection
        self.lock = asyncio.Lock()
        self._advanced = asyncio.Condition()
        self.undecodable = 0

    @property
    def seq(self) -> int:
        return self.projection.last_seq

    def _decode(self, records: Iterable[LogRecord]) -> list[tuple[int, Envelope]]:
        decoded = []
        for record in records:
            try:
                decoded.append((record.seq, decode_envelope(record.data)))
            except EventDecodeError:
                self.undecodable += 1
        return decoded

    async def apply(self, records: list[LogRecord]) -> None:
        decoded = self._decode(records)
        async with self.lock:
            await asyncio.to_thread(self.projection.apply_batch, decoded)
            if records and records[-1].seq > self.projection.last_seq:
                self.projection.last_seq = records[-1].seq
        async with self._advanced:
            self._advanced.notify_all()

    async def rebuild(self, event_log: EventLog, fresh: CodeProjection) -> CodeProjection:
        """Fold LOG from the start into ``fresh``, catch up under the lock, swap; returns the old one."""
        batch: list[LogRecord] = []
        async for record in event_log.read(1):
            batch.append(record)
            if len(batch) >= 2000:
                await asyncio.to_thread(fresh.apply_batch, self._decode(batch))
                batch = []
        await asyncio.to_thread(fresh.apply_batch, self._decode(batch))
        async with self.lock:
            until = max(self.seq, fresh.last_seq)
            tail = [r async for r in event_log.read(fresh.last_seq + 1, until_seq=until)]
            await asyncio.to_thread(fresh.apply_batch, self._decode(tail))
            fresh.last_seq = max(fresh.last_seq, self.seq)
            old, self.projection = self.projection, fresh
        return old

    def digest(self) -> str:
        """One digest over every tenant's graph (replay compares the rebuilt graphs to the live ones)."""
        parts = sorted(f"{g.tenant}:{graph_digest(g)}" for g in self.projection.graphs)
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    async def wait_for(self, seq: int, timeout: float) -> bool:
        async def reached() -> None:
            async with self._advanced:
                await self._advanced.wait_for(lambda: self.seq >= seq)

        try:
            await asyncio.wait_for(reached(), timeout)
        except TimeoutError:
            return False
        return True
