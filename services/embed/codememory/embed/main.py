"""Wiring of the embed service: LOG (durable consumer ``embed``) to ``MemoryEmbedded`` events in LOG.

``create_app`` is the FastStream factory; the model loads at startup, before the broker subscribes,
so a replica takes no message it cannot embed yet. ``python -m codememory.embed.main`` and
``codememory run embed`` run it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from faststream import FastStream
from faststream.nats import NatsRouter

from codememory.bus import JetStreamEventLog
from codememory.bus.app import BrokerJetStream, consumer_app, durable_settings
from codememory.bus.durable import subscribe_durable
from codememory.bus.run import run_app
from codememory.embed.handler import EmbedHandler
from codememory.embed.settings import EmbedSettings
from codememory.embedding import Embedder, load_default_embedder
from codememory.metrics import TimedEmbedder, metrics_step
from codememory.topology import EMBED


class ModelSlot:
    """The model, loaded once at startup in a worker thread by ``load`` (``codememory up`` passes its own)."""

    def __init__(self, load: Callable[[], Embedder] = load_default_embedder) -> None:
        self._load = load
        self.embedder: Embedder | None = None

    async def load(self) -> None:
        if self.embedder is None:
            self.embedder = await asyncio.to_thread(self._load)

    def get(self) -> Embedder:
        if self.embedder is None:
            raise RuntimeError("the embed model is not loaded yet")
        return self.embedder


def create_router(settings: EmbedSettings, jetstream: BrokerJetStream, model: ModelSlot) -> NatsRouter:
    router = NatsRouter()
    subscribe_durable(
        router,
        EMBED,
        durable_settings(settings),
        lambda js: EmbedHandler(JetStreamEventLog(js), TimedEmbedder(model.get(), "store")),
        jetstream=jetstream,
    )
    return router


def create_app(settings: EmbedSettings | None = None) -> FastStream:
    resolved = settings or EmbedSettings.from_env()
    model = ModelSlot()
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
