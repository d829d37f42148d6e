"""One service's durable consumers running on a real nats-server for a test, with its handler.

Shared by the durable-consumer tests (acks, redelivery, dead letters) and the LOG filter tests, so
both start a service the way ``codememory run`` does: ``subscribe_durable`` on a router, the broker
and app of ``bus.app``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from faststream.nats import NatsRouter

from codememory.bus import BatchHandler
from codememory.bus.app import BrokerJetStream, service_app, service_broker
from codememory.bus.durable import DurableSettings, subscribe_durable
from codememory.bus.streams import StreamSettings
from codememory.runtime.natsd import NatsServer
from codememory.topology import Service


@asynccontextmanager
async def running(
    server: NatsServer,
    service: Service,
    handler: BatchHandler,
    *,
    max_deliver: int = 3,
    batch: int = 16,
    ack_wait_s: float = 60.0,
) -> AsyncIterator[None]:
    durable = DurableSettings(
        batch=batch, max_deliver=max_deliver, fetch_timeout_s=0.2, ack_wait_s=ack_wait_s
    )

    def make_router(jetstream: BrokerJetStream) -> NatsRouter:
        router = NatsRouter()
        subscribe_durable(router, service, durable, lambda js: handler, jetstream=jetstream)
        return router

    broker = service_broker(server.url, service.name)
    app = service_app([service], broker, [make_router], streams=StreamSettings(), durable=durable, title="t")
    await app.start()
    try:
        yield
    finally:
        await app.stop()
