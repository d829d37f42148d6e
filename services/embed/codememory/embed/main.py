"""Wiring of the embed service: LOG (durable consumer ``embed``) to ``MemoryEmbedded`` events in LOG.

``create_app`` is the FastStream factory; the model loads at startup, before the broker subscribes,
so a replica takes no message it cannot embed yet. ``python -m codememory.embed.main`` and
``codememory run embed`` run it. Models requested later (``codememory reembed``) are loaded by the
service's ``ModelWriters`` when their request arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from faststream import FastStream
from faststream.nats import NatsRouter
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory.bus import JetStreamEventLog
from codememory.bus.app import BrokerJetStream, consumer_app, durable_settings
from codememory.bus.durable import subscribe_durable
from codememory.bus.pending import read_pending
from codememory.bus.run import run_app
from codememory.embed.handler import EmbedHandler
from codememory.embed.priority import symbol_executor
from codememory.embed.settings import EmbedSettings
from codememory.embed.writers import ModelWriters
from codememory.embedding import Embedder, MiniLmEmbedder, ModelSpec, load_embedder, parse_model
from codememory.embedding.migration import MODEL_EVENTS_SUBJECT
from codememory.embedding.onnxbatch import OnnxBatchEmbedder
from codememory.events import Envelope, EventDecodeError, decode_envelope
from codememory.metrics import TimedEmbedder, metrics_step
from codememory.topology import EMBED


def store_embedder(settings: EmbedSettings, spec: ModelSpec | None = None) -> Embedder:
    """A model for stored texts: its own instance, so a batch never holds the lock a query waits on."""
    model = spec or parse_model(settings.model)
    if model.kind == "minilm" and settings.runtime != "torch":
        int8 = settings.runtime == "onnx-int8"
        base = MiniLmEmbedder(batch_size=settings.forward_batch)
        return OnnxBatchEmbedder(base, settings.model_cache, int8=int8, batch_size=settings.forward_batch)
    if model.kind == "minilm":
        return MiniLmEmbedder(batch_size=settings.forward_batch)
    return load_embedder(
        model,
        cache_dir=settings.model_cache,
        api_key=settings.api_key,
        batch_size=settings.batch,
        forward_batch=settings.forward_batch,
    )


class ModelSlot:
    """The model, loaded once at startup in a worker thread by ``load`` (``codememory up`` passes its own)."""

    def __init__(self, load: Callable[[], Embedder], settings: EmbedSettings | None = None) -> None:
        self._load = load
        self._settings = settings or EmbedSettings()
        self.embedder: Embedder | None = None
        self._writers: ModelWriters | None = None
        self._symbols: ThreadPoolExecutor | None = None
        self._memories: ThreadPoolExecutor | None = None

    async def load(self) -> None:
        if self.embedder is None:
            self.embedder = await asyncio.to_thread(self._load)

    def get(self) -> Embedder:
        if self.embedder is None:
            raise RuntimeError("the embed model is not loaded yet")
        return self.embedder

    def symbols(self) -> ThreadPoolExecutor:
        """The one thread per process symbols are embedded in, below the event path (``priority.py``)."""
        if self._symbols is None:
            self._symbols = symbol_executor(self._settings.symbol_nice)
        return self._symbols

    def memories(self) -> ThreadPoolExecutor | None:
        """Where memory texts are embedded: the default executor, or with ``memory_nice`` one thread
        below the event path (a bulk import's fold first, its vectors after: ``priority.py``)."""
        if self._settings.memory_nice and self._memories is None:
            self._memories = symbol_executor(self._settings.memory_nice, "embed-memories")
        return self._memories

    def writers(self, js: JetStreamContext) -> ModelWriters:
        """One set of written models per process (the durable and the redrive handler share it)."""
        if self._writers is None:
            settings = self._settings
            self._writers = ModelWriters(
                TimedEmbedder(self.get(), "store"),
                lambda spec: TimedEmbedder(store_embedder(settings, spec), "store"),
                JetStreamEventLog(js),
            )
        return self._writers


async def read_model_events(js: JetStreamContext) -> list[tuple[int, Envelope]]:
    """Every model request and backfill completion in LOG (a filtered read of a few events, over at the
    last of them: ``bus.pending``)."""
    config = ConsumerConfig(
        deliver_policy=DeliverPolicy.ALL, ack_policy=AckPolicy.NONE, inactive_threshold=30.0
    )
    found: list[tuple[int, Envelope]] = []
    async with contextlib.aclosing(read_pending(js, MODEL_EVENTS_SUBJECT, config)) as messages:
        async for msg in messages:
            try:
                found.append((msg.metadata.sequence.stream, decode_envelope(msg.data)))
            except EventDecodeError:
                continue
    return found


def create_router(settings: EmbedSettings, jetstream: BrokerJetStream, model: ModelSlot) -> NatsRouter:
    router = NatsRouter()

    def handler(js: JetStreamContext) -> EmbedHandler:
        writers = model.writers(js)
        return EmbedHandler(
            JetStreamEventLog(js),
            writers.default,
            writers,
            lambda: read_model_events(js),
            model.symbols(),
            model.memories(),
            symbols_per_call=settings.forward_batch,
        )

    subscribe_durable(router, EMBED, durable_settings(settings), handler, jetstream=jetstream)
    return router


def create_app(settings: EmbedSettings | None = None) -> FastStream:
    resolved = settings or EmbedSettings.from_env()
    model = ModelSlot(lambda: store_embedder(resolved), resolved)
    return consumer_app(
        EMBED,
        resolved,
        lambda jetstream: create_router(resolved, jetstream, model),
        on_startup=[metrics_step(EMBED.name), model.load],
    )


def main() -> None:
    run_app(create_app())


if __name__ == "__main__":
    main()
