"""The gateway's parts for a FastStream application: its router and its startup and shutdown steps.

``create_app`` (``main.py``) puts them on the gateway's own broker; ``codememory up`` puts them on
the one broker it shares with ingest, embed and graph. Order on start: the query model loads in a
worker thread (``on_startup``; never at import or in ``create_app``, so ``faststream docs gen`` is
cheap), the broker connects and subscribes the context responder, then ``start`` opens the
projections and the gRPC server on the broker's connection (``after_startup``). A taken address is a
``ListenError`` with every shard released, so the caller may ``start(listen=...)`` again elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

import structlog
from faststream.nats import NatsBroker, NatsRouter

from codememory.bus.app import BrokerJetStream
from codememory.embedding import Embedder
from codememory.gateway.app import GatewayApp
from codememory.gateway.consolidation import NatsConsolidation
from codememory.gateway.core import GatewayCore
from codememory.gateway.querymodels import configured_query_model
from codememory.gateway.responder import context_router
from codememory.gateway.settings import GatewaySettings

log = structlog.get_logger(__name__)

Step = Callable[[], Awaitable[None]]


def load_query_embedder(settings: GatewaySettings) -> Embedder:
    """The configured model (the bundled MiniLM by default, queries through ONNX Runtime or PyTorch as
    configured); blocking: seconds."""
    return configured_query_model(settings)


class GatewayWiring:
    """``router``, ``on_startup``, ``after_startup``, ``on_shutdown`` for the app; ``app`` once started."""

    def __init__(
        self, settings: GatewaySettings, broker: NatsBroker, embedder: Callable[[], Embedder]
    ) -> None:
        self.settings = settings
        self._broker = broker
        self._load = embedder
        self._embedder: Embedder | None = None
        self.app: GatewayApp | None = None
        self.on_startup: list[Step] = [self.load_model]
        self.after_startup: list[Step] = [self._start]
        self.on_shutdown: list[Step] = [self.stop]

    def router(self, jetstream: BrokerJetStream) -> NatsRouter:
        return context_router(self._core, default_budget=self.settings.context_budget_tokens)

    def _core(self) -> GatewayCore | None:
        return self.app.core if self.app is not None else None

    async def load_model(self) -> None:
        if self._embedder is None:
            self._embedder = await asyncio.to_thread(self._load)

    async def _start(self) -> None:
        await self.start()

    async def start(self, listen: str | None = None) -> GatewayApp:
        """Open the projections and serve gRPC on ``listen`` (the settings' address by default)."""
        if self.app is not None:
            return self.app
        await self.load_model()
        assert self._embedder is not None
        settings = self.settings if listen is None else replace(self.settings, listen=listen)
        js = BrokerJetStream(self._broker)()
        # opening the shards takes a while: off the event loop, where the broker's subscribers already fetch
        consolidation = NatsConsolidation(self._broker.connection)
        app = await asyncio.to_thread(GatewayApp, js, settings, self._embedder, consolidation)
        self.app = await app.start()
        return self.app

    async def stop(self) -> None:
        app, self.app = self.app, None
        if app is not None:
            await app.stop()


def gateway_wiring(
    settings: GatewaySettings, broker: NatsBroker, embedder: Callable[[], Embedder]
) -> GatewayWiring:
    """``embedder`` loads the query model (called once, in a worker thread, at startup)."""
    return GatewayWiring(settings, broker, embedder)
