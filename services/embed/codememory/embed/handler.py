"""The embed handler: a batch of LOG events in, one model call, ``MemoryEmbedded`` and
``SymbolsEmbedded`` events appended.

Undecodable events are dead-lettered with the reason; the model runs off the event loop; a failed
model call or append retries the batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from codememory.bus import ACK, Delivery, Outcome, Retryable, dead
from codememory.embed.symbols import symbol_jobs, symbols_embedded_events
from codememory.embed.texts import embedded_events, jobs_for
from codememory.embedding import Embedder, EmbeddingError
from codememory.events import Envelope, EventDecodeError, EventLog, decode_envelope


class EmbedHandler:
    def __init__(self, event_log: EventLog, embedder: Embedder) -> None:
        self._log = event_log
        self._embedder = embedder
        self.embedded = 0

    async def __call__(self, deliveries: Sequence[Delivery]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        envelopes: list[Envelope] = []
        for delivery in deliveries:
            try:
                envelopes.append(decode_envelope(delivery.data))
                outcomes.append(ACK)
            except EventDecodeError as exc:
                outcomes.append(dead(f"{type(exc).__name__}: {exc}"))
        jobs = jobs_for(envelopes)
        code_jobs = symbol_jobs(envelopes)
        texts = [job.text for job in jobs] + [text for job in code_jobs for text in job.texts]
        if texts:
            try:
                vectors = await asyncio.to_thread(self._embedder.embed, texts)
            except EmbeddingError as exc:
                raise Retryable(str(exc)) from exc
            model = self._embedder.model_id
            events = embedded_events(jobs, vectors[: len(jobs)], model)
            events += symbols_embedded_events(code_jobs, vectors[len(jobs) :], model)
            try:
                await self._log.append(events)
            except Exception as exc:
                raise Retryable(f"append to LOG failed: {exc}") from exc
            self.embedded += len(texts)
        return outcomes
