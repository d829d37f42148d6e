"""RecordCode's intake: decode, validate and redact a stream of code facts off the event loop, in parallel.

Why: redaction runs every regex of ``codememory.redaction`` over each symbol's signature, docstring
and excerpt; on the event loop a large stream held every other call (recall, status) for seconds, and
one core did it all (4,040 files: 2.3 s of redaction alone). Here the stream is cut into chunks as it
arrives, each chunk is decoded, checked and redacted in a worker process (``INTAKE_WORKERS``), and
the envelopes come back ready to append. RecordCode stays all or nothing: every chunk is checked
before anything is appended, so one bad fact, even the last, records nothing; the error names the
fact's place in the stream. Without worker processes (``workers=0``, or a pool that broke) the same
work runs in a thread, still off the loop. Given BM25 settings, the workers also make each file ready
for code search (``codesearch.prepared``), which the fold then takes instead of doing it under the GIL.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime
from typing import Any, TypeVar

from codememory.codesearch.prepared import EncoderSettings, PreparedFiles
from codememory.events import Envelope, SymbolsExtracted
from codememory.gateway.codecore import CodeCore
from codememory.gateway.errors import InvalidArgument, NotReady
from codememory.gateway.intakework import FactRefused, Prepared, prepare_chunk, worker_started

CHUNK_FACTS = 64  # facts per worker job: small enough to spread a stream over the workers
INTAKE_WORKERS = 2
MAX_STREAM_BYTES = 512 * 1024 * 1024  # one RecordCode stream, held until all of it is valid

T = TypeVar("T")


class CodeIntake:
    """Turns a RecordCode stream into envelopes; one per gateway, its worker pool started on first use
    (or by ``warm``)."""

    def __init__(self, *, workers: int = INTAKE_WORKERS) -> None:
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._started: list[Future[bool]] = []

    def warm(self) -> None:
        """Start the worker processes now, in the background: ``codememory index`` asks IndexedFiles
        before its first RecordCode, and a spawned worker takes about half a second to import."""
        executor = self._executor()
        if executor is not None and not self._started:
            self._started = [executor.submit(worker_started) for _ in range(self._workers)]

    def ready(self) -> bool:
        """Whether the workers have started (``warm``): until then ``call`` runs in a thread."""
        started = self._started
        return (
            self._pool is not None and bool(started) and all(s.done() and not s.exception() for s in started)
        )

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process once they have started, else (or if a worker died) in a
        thread: another stream's work (a bulk import's redaction) that need not wait for them to start."""
        if self.ready():
            try:
                return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)
            except BrokenProcessPool:
                self._pool, self._workers = None, 0
        return await asyncio.to_thread(fn, *args)

    def _executor(self) -> Executor | None:
        if self._workers <= 0:
            return None
        if self._pool is None:
            context = multiprocessing.get_context("spawn")  # never fork a process that runs gRPC
            self._pool = ProcessPoolExecutor(self._workers, mp_context=context)
        return self._pool

    async def _run(
        self, datas: list[bytes], tenant: str, observed_at: datetime, settings: EncoderSettings | None
    ) -> list[tuple[Envelope, Prepared]]:
        loop = asyncio.get_running_loop()
        executor = self._executor()
        args = (datas, tenant, observed_at, settings)
        if executor is not None:
            try:
                return await loop.run_in_executor(executor, prepare_chunk, *args)
            except BrokenProcessPool:
                self._pool, self._workers = None, 0  # a worker died: go on in a thread
        return await asyncio.to_thread(prepare_chunk, *args)

    async def envelopes(
        self, tenant: str, facts: AsyncIterator[bytes], prepared: PreparedFiles | None = None
    ) -> list[Envelope]:
        """Every fact of the stream as an envelope, in stream order; ``InvalidArgument`` if any is bad.

        With ``prepared``, each file's symbols made ready for code search are put there by event id."""
        observed_at = datetime.now(UTC)
        settings = prepared.settings if prepared is not None else None
        jobs: list[asyncio.Future[list[tuple[Envelope, Prepared]]]] = []
        chunk: list[bytes] = []
        size = 0
        try:
            async for data in facts:
                size += len(data)
                if size > MAX_STREAM_BYTES:
                    raise InvalidArgument(
                        f"over {MAX_STREAM_BYTES} bytes of facts in one stream: send them in several streams"
                    )
                chunk.append(data)
                if len(chunk) >= CHUNK_FACTS:
                    jobs.append(asyncio.ensure_future(self._run(chunk, tenant, observed_at, settings)))
                    chunk = []
            if chunk:
                jobs.append(asyncio.ensure_future(self._run(chunk, tenant, observed_at, settings)))
            done: list[tuple[Envelope, Prepared]] = []
            for number, job in enumerate(jobs):
                try:
                    done += await job
                except FactRefused as exc:
                    place = number * CHUNK_FACTS + exc.index + 1
                    raise InvalidArgument(f"fact {place}: {exc.reason} (nothing was recorded)") from None
            if prepared is not None:  # only once the whole stream is valid: a refused one appends nothing
                for envelope, ready in done:
                    if ready is not None and isinstance(envelope.payload, SymbolsExtracted):
                        prepared.put(envelope.event_id, envelope.payload.path, ready)
            return [envelope for envelope, _ in done]
        finally:
            for job in jobs:
                job.cancel()  # a refused stream: what is still queued need not run

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            self._started = []


APPEND_BATCH = 256


class AppendOrder:
    """Concurrent RecordCode streams of a tenant append in the order they arrived.

    Why: a client keeps two streams in flight (one is applied while the next is checked and appended),
    and LOG must hold a repository's facts in the order the client sent them, whatever chunk of which
    stream its workers finish first. A stream takes its turn when it arrives and appends once every
    earlier stream of its tenant appended or failed; waiting for the projection is not part of a turn.
    """

    def __init__(self) -> None:
        self._tails: dict[str, asyncio.Future[None]] = {}

    def turn(self, tenant: str) -> tuple[asyncio.Future[None] | None, asyncio.Future[None]]:
        """(the previous stream's turn or None, this stream's: set it done once appended or failed)."""
        loop = asyncio.get_running_loop()
        before = self._tails.get(tenant)
        if before is not None and (before.done() or before.get_loop() is not loop):
            before = None  # appended already, or left by an event loop that is gone
        mine: asyncio.Future[None] = loop.create_future()
        self._tails[tenant] = mine
        mine.add_done_callback(lambda done: self._forget(tenant, done))
        return before, mine

    def _forget(self, tenant: str, done: asyncio.Future[None]) -> None:
        if self._tails.get(tenant) is done:
            del self._tails[tenant]


_order = AppendOrder()
_shared: CodeIntake | None = None


def shared_intake() -> CodeIntake:
    """The gateway's intake (one worker pool per process)."""
    global _shared
    if _shared is None:
        _shared = CodeIntake()
    return _shared


async def record(core: CodeCore, tenant: str, facts: AsyncIterator[bytes]) -> tuple[int, int]:
    """RecordCode: every fact of the stream appended; (how many, last LOG sequence) once all are applied.

    Streams of a tenant append in the order they arrived (``AppendOrder``), each after the last."""
    before, mine = _order.turn(tenant)  # before any await: the order streams reached the gateway
    try:
        envelopes = await shared_intake().envelopes(tenant, facts, core.prepared)
        if before is not None:
            await asyncio.wait([before])  # its outcome is its own caller's
        last_seq = 0
        for start in range(0, len(envelopes), APPEND_BATCH):
            last_seq = max(last_seq, await core._append(envelopes[start : start + APPEND_BATCH]))
    finally:
        if not mine.done():
            mine.set_result(None)
    if last_seq and not await core.live.wait_for(last_seq, core._write_wait_s):
        raise NotReady(f"facts appended up to {last_seq} but not yet applied")
    return len(envelopes), last_seq
