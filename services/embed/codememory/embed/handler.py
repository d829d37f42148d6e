"""The embed handler: a batch of LOG events in, one model call per model for the memories' texts (and
one per forward pass for the symbols', shortest first, in their own thread below the event path's
priority: ``priority.py``),
``MemoryEmbedded`` and ``SymbolsEmbedded`` events appended. The service's two durable consumers
(``embed`` for memories, ``embed-symbols`` for files' symbols) each run one, so the memories stored
while a repository's symbols are embedded do not queue behind them.

Undecodable events are dead-lettered with the reason; the model runs off the event loop; a failed
model call or append retries the batch. Memories are embedded with every model the service writes
(``writers.py``: the configured one, and each model a ``codememory reembed`` requested); symbols with
the configured one. A model request that cannot be loaded here is dead-lettered with the reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor
from typing import Any

from codememory.bus import ACK, Delivery, Outcome, Retryable, dead
from codememory.embed.symbols import symbol_jobs, symbols_embedded_events
from codememory.embed.texts import embedded_events, jobs_for
from codememory.embed.writers import ModelWriters
from codememory.embedding import Embedder, EmbeddingError
from codememory.embedding.local import FORWARD_BATCH
from codememory.events import (
    EmbeddingModelRequested,
    Envelope,
    EventDecodeError,
    EventLog,
    SymbolsExtracted,
    decode_envelope,
)

# symbol texts per model call, the batch's texts taken shortest first: a memory stored meanwhile waits
# for the call under way, one forward pass (``embedding.local.FORWARD_BATCH``), and the passes pad as
# little as one call of every text would (the model sorts a call's texts by length the same way)
SYMBOLS_PER_CALL = FORWARD_BATCH


class EmbedHandler:
    def __init__(
        self,
        event_log: EventLog,
        embedder: Embedder,
        writers: ModelWriters | None = None,
        model_events: Callable[[], Awaitable[Any]] | None = None,
        symbols: Executor | None = None,
        memories: Executor | None = None,
        symbols_per_call: int = SYMBOLS_PER_CALL,
    ) -> None:
        self._log = event_log
        self._symbols = symbols  # where symbol texts are embedded (None: with the memories' texts)
        self._memories = memories  # where memory texts are embedded (None: the default executor)
        self._symbols_per_call = symbols_per_call
        self._embedder = embedder
        self._writers = writers
        self._model_events = model_events
        self.embedded = 0

    async def __call__(self, deliveries: Sequence[Delivery]) -> list[Outcome]:
        if self._writers is not None and self._model_events is not None:
            await self._writers.refresh(self._model_events)
        outcomes: list[Outcome] = []
        envelopes: list[Envelope] = []
        seen = 0  # the last memory-side event: symbols come through their own consumer (topology.EMBED)
        for delivery in deliveries:
            try:
                envelope = decode_envelope(delivery.data)
            except EventDecodeError as exc:
                outcomes.append(dead(f"{type(exc).__name__}: {exc}"))
                continue
            outcomes.append(await self._request(envelope, delivery.seq))
            envelopes.append(envelope)
            if not isinstance(envelope.payload, SymbolsExtracted):
                seen = max(seen, delivery.seq)
        jobs = jobs_for(envelopes)
        code_jobs = symbol_jobs(envelopes)
        models = self._writers.memory_models if self._writers is not None else [self._embedder]
        events: list[Envelope] = []
        for index, model in enumerate(models):
            if jobs:
                vectors = await self._embed(model, [job.text for job in jobs], self._memories)
                events += embedded_events(jobs, vectors, model.model_id)
            code_texts = [text for job in code_jobs for text in job.texts] if index == 0 else []
            if code_texts:  # in the symbols' own thread, below the event path's priority (priority.py)
                vectors = await self._embed_in_turns(model, code_texts, self._symbols_per_call)
                events += symbols_embedded_events(code_jobs, vectors, model.model_id)
        if events:
            try:
                await self._log.append(events)
            except Exception as exc:
                raise Retryable(f"append to LOG failed: {exc}") from exc
        if self._writers is not None:  # what a requested model's catch-up starts from (writers.py)
            self._writers.seen_seq = max(self._writers.seen_seq, seen)
        return outcomes

    async def _embed(
        self, model: Embedder, texts: list[str], executor: Executor | None
    ) -> list[tuple[float, ...]]:
        """``texts`` through the model in one call, in ``executor``."""
        loop = asyncio.get_running_loop()
        try:
            vectors: list[tuple[float, ...]] = await loop.run_in_executor(executor, model.embed, texts)
        except EmbeddingError as exc:
            raise Retryable(str(exc)) from exc
        self.embedded += len(texts)
        return vectors

    async def _embed_in_turns(
        self, model: Embedder, texts: list[str], per_call: int
    ) -> list[tuple[float, ...]]:
        """``texts`` through the model ``per_call`` at a time, in the symbols' thread, so a memory's call
        (the model serves one call at a time) waits for one such call, not for a batch of files. The
        calls take the texts shortest first (``length_turns``); the vectors come back in ``texts``'s order."""
        vectors: list[tuple[float, ...]] = [()] * len(texts)
        for turn in length_turns(texts, per_call):
            for index, vector in zip(
                turn, await self._embed(model, [texts[i] for i in turn], self._symbols), strict=True
            ):
                vectors[index] = vector
        return vectors

    async def _request(self, envelope: Envelope, seq: int) -> Outcome:
        event = envelope.payload
        if self._writers is None or not isinstance(event, EmbeddingModelRequested):
            return ACK
        try:
            await self._writers.request(event, seq)
        except EmbeddingError as exc:
            return dead(f"the requested model cannot be loaded here: {exc}")
        return ACK


def length_turns(texts: Sequence[str], per_call: int) -> list[list[int]]:
    """The indexes of ``texts``, shortest text first, in turns of ``per_call``: a turn's texts are
    about as long as each other, so a forward pass over one pads little (the model sorts by the same
    measure, characters, inside a call)."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    step = max(1, per_call)
    return [order[start : start + step] for start in range(0, len(order), step)]
