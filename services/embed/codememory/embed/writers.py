"""The models the embed service writes vectors for: the configured one, plus each model requested in LOG.

A request (``EmbeddingModelRequested``, from ``codememory reembed``) seen at LOG sequence S loads the
model and adds it: every memory after S is embedded by the live handler with every model here, and a
backfill task embeds the memories of LOG 1..S with the new model, then appends
``EmbeddingBackfillCompleted``. Both write ``MemoryEmbedded`` events with ids derived from the source
event and the model, so the overlap (a memory in the request's own batch) appends nothing twice.

A model already written (the configured one, or one requested before) is not backfilled again: its
vectors are in LOG, which is why switching back is instant. On start the service reads its own model
events (``refresh``, one filtered read of a few events) to learn the models it writes and to restart a
backfill that a stop interrupted (from the start: re-embedding is idempotent, only slower).

Replicas split the durable consumer's messages, so only one of them receives a request (and runs the
whole-LOG backfill); the others learn of it by reading the model events again every ``REFRESH_S``
seconds, and then embed with the new model what they handled since the request (from ``seen_seq``) so
that no memory falls in between. A refresh can see a request before this replica's own delivery of it
arrives: the delivery still starts the backfill.
Symbols (code search) are embedded with the configured model only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import structlog

from codememory.embed.texts import embedded_events, jobs_for
from codememory.embedding import Embedder, EmbeddingError, ModelSpec, parse_model
from codememory.embedding.migration import backfill_completed
from codememory.events import (
    EmbeddingBackfillCompleted,
    EmbeddingModelRequested,
    Envelope,
    EventDecodeError,
    EventLog,
    decode_envelope,
)

log = structlog.get_logger(__name__)

BACKFILL_CHUNK = 128  # memories per model call and per append
READ_WINDOW = 2000  # LOG records read at once, then embedded
REFRESH_S = 5.0  # how often a replica looks for models requested through another replica


class ModelWriters:
    def __init__(self, default: Embedder, load: Callable[[ModelSpec], Embedder], event_log: EventLog) -> None:
        self.default = default
        self._load = load
        self._log = event_log
        self._extra: dict[str, Embedder] = {}
        self._backfills: dict[str, asyncio.Task[int]] = {}
        self.backfilled: dict[str, int] = {}  # model id -> memories embedded by its backfill so far
        self._refreshed: float | None = None  # monotonic time of the last read of the model events
        self._backfilled: set[str] = set()  # models whose whole-LOG backfill ran, runs, or completed
        self.seen_seq = 0  # the highest LOG sequence this replica has embedded

    @property
    def memory_models(self) -> list[Embedder]:
        return [self.default, *self._extra.values()]

    def writes(self, model_id: str) -> bool:
        return model_id == self.default.model_id or model_id in self._extra

    async def request(self, event: EmbeddingModelRequested, seq: int) -> None:
        """Start writing the requested model (``EmbeddingError``: it cannot be loaded here)."""
        spec = parse_model(event.model)
        if spec.model_id == self.default.model_id or spec.model_id in self._backfilled:
            log.info("model_already_written", model=spec.model_id)
            return
        embedder = self._extra.get(spec.model_id)  # a refresh may have added it before its request came
        if embedder is None:
            embedder = await asyncio.to_thread(self._load, spec)
            self._extra[spec.model_id] = embedder
        self._backfilled.add(spec.model_id)
        self._start_backfill(spec, embedder, 1, seq, complete=True)

    def _start_backfill(
        self, spec: ModelSpec, embedder: Embedder, from_seq: int, until_seq: int, *, complete: bool
    ) -> None:
        task = asyncio.create_task(
            self._backfill(spec, embedder, from_seq, until_seq, complete), name=f"backfill-{spec.model_id}"
        )
        self._backfills[f"{spec.model_id}:{from_seq}"] = task
        task.add_done_callback(lambda t: _report(spec, t))

    async def _backfill(
        self, spec: ModelSpec, embedder: Embedder, from_seq: int, until_seq: int, complete: bool
    ) -> int:
        """Embed the memories of LOG ``from_seq..until_seq``; ``complete``: record that it is done."""
        log.info("backfill_started", model=spec.model_id, from_seq=from_seq, until_seq=until_seq)
        done = 0
        for start in range(from_seq, until_seq + 1, READ_WINDOW):
            envelopes = await self._window(start, min(start + READ_WINDOW - 1, until_seq))
            for chunk in range(0, len(envelopes), BACKFILL_CHUNK):
                done += await self._embed(embedder, envelopes[chunk : chunk + BACKFILL_CHUNK])
        if complete:
            await self._log.append([backfill_completed(spec, until_seq, done)])
        log.info("backfill_completed", model=spec.model_id, memories=done)
        return done

    async def _window(self, first: int, last: int) -> list[Envelope]:
        """LOG ``first..last`` read whole before any of it is embedded: a reader left waiting while the
        model works (minutes for mpnet) would outlive its consumer on the server."""
        for attempt in range(5):
            try:
                records = [r async for r in self._log.read(first, until_seq=last)]
                break
            except Exception as exc:  # LOG unreachable for a moment: read the window again
                if attempt == 4:
                    raise
                log.warning("backfill_read_retry", first=first, error=repr(exc))
                await asyncio.sleep(2.0**attempt)
        envelopes = []
        for record in records:
            try:
                envelopes.append(decode_envelope(record.data))
            except EventDecodeError:
                continue  # dead-lettered by the live handler when it met it
        return envelopes

    async def _embed(self, embedder: Embedder, envelopes: list[Envelope]) -> int:
        jobs = jobs_for(envelopes)
        if not jobs:
            return 0
        for attempt in range(5):
            try:
                vectors = await asyncio.to_thread(embedder.embed, [job.text for job in jobs])
                await self._log.append(embedded_events(jobs, vectors, embedder.model_id))
                break
            except Exception as exc:  # a model or LOG hiccup: wait and try the chunk again
                if attempt == 4:
                    raise
                log.warning("backfill_retry", model=embedder.model_id, error=repr(exc))
                await asyncio.sleep(2.0**attempt)
        self.backfilled[embedder.model_id] = self.backfilled.get(embedder.model_id, 0) + len(jobs)
        return len(jobs)

    async def refresh(self, read_model_events: Callable[[], Any]) -> None:
        """The models requested through any replica (at most every ``REFRESH_S``; at once the first time).

        The first time (this process starting) a backfill that never completed starts again; later, a
        model another replica received is embedded for what this one handled since its request.
        """
        now = time.monotonic()
        if self._refreshed is not None and now - self._refreshed < REFRESH_S:
            return
        first, self._refreshed = self._refreshed is None, now
        requested: dict[str, tuple[ModelSpec, int]] = {}
        completed: set[str] = set()
        for seq, envelope in await read_model_events():
            event = envelope.payload
            if isinstance(event, EmbeddingModelRequested):
                try:
                    spec = parse_model(event.model)
                except EmbeddingError:
                    continue
                if not self.writes(spec.model_id) and spec.model_id not in requested:
                    requested[spec.model_id] = (spec, seq)
            elif isinstance(event, EmbeddingBackfillCompleted):
                completed.add(event.model_id)
                self._backfilled.add(event.model_id)
        for model_id, (spec, seq) in requested.items():
            try:
                embedder = await asyncio.to_thread(self._load, spec)
            except EmbeddingError as exc:
                log.error("requested_model_unavailable", model=model_id, error=str(exc))
                continue
            self._extra[model_id] = embedder
            if first and model_id not in completed:
                self._backfilled.add(model_id)
                self._start_backfill(spec, embedder, 1, seq, complete=True)
            elif self.seen_seq > seq:  # what this replica embedded without it since the request
                self._start_backfill(spec, embedder, seq + 1, self.seen_seq, complete=False)
        if requested:
            log.info("models_written", models=[m.model_id for m in self.memory_models])

    async def backfills_done(self) -> None:
        """Wait for the backfills started so far (tests, and a benchmark that times one)."""
        await asyncio.gather(*self._backfills.values())

    async def stop(self) -> None:
        for task in self._backfills.values():
            task.cancel()
        await asyncio.gather(*self._backfills.values(), return_exceptions=True)


def _report(spec: ModelSpec, task: asyncio.Task[int]) -> None:
    if task.cancelled() or task.exception() is None:
        return
    log.error("backfill_failed", model=spec.model_id, error=repr(task.exception()))
