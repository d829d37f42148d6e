"""The embed handler: a batch of LOG events in, one model call, ``MemoryEmbedded`` events appended.

Undecodable events are dead-lettered with the reason; the model runs off the event loop; a failed
model call or append retries the batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from codememory.bus import ACK, Delivery, Outcome, Retryable, dead
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
        if jobs:
            try:
                vectors = await asyncio.to_thread(self._embedder.embed, [job.text for job in jobs])
            except EmbeddingError as exc:
                raise Retryable(str(exc)) from exc
            try:
                await self._log.append(embedded_events(jobs, vectors, self._embedder.model_id))
            except Exception as exc:
                raise Retryable(f"append to LOG failed: {exc}") from exc
            self.embedded += len(jobs)
        return outcomes
