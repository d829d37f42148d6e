"""Wiring of the ingest service: HOOKS (durable consumer ``ingest``) to LOG. Nothing else lives here.

``create_app`` is the FastStream factory (``faststream run codememory.ingest.main:create_app
--factory``); ``python -m codememory.ingest.main`` and ``codememory run ingest`` run it.
"""

from __future__ import annotations

from faststream import FastStream
from faststream.nats import NatsRouter

from codememory.bus import JetStreamEventLog
from codememory.bus.app import BrokerJetStream, consumer_app, durable_settings
from codememory.bus.durable import subscribe_durable
from codememory.bus.run import run_app
from codememory.ingest.handler import IngestHandler
from codememory.ingest.settings import IngestSettings
from codememory.metrics import metrics_step
from codememory.topology import INGEST


def create_router(settings: IngestSettings, jetstream: BrokerJetStream) -> NatsRouter:
    router = NatsRouter()
    subscribe_durable(
        router,
        INGEST,
        durable_settings(settings),
        lambda js: IngestHandler(JetStreamEventLog(js)),
        jetstream=jetstream,
    )
    return router


def create_app(settings: IngestSettings | None = None) -> FastStream:
    resolved = settings or IngestSettings.from_env()
    return consumer_app(
        INGEST,
        resolved,
        lambda jetstream: create_router(resolved, jetstream),
        on_startup=[metrics_step(INGEST.name)],
    )


def main() -> None:
    run_app(create_app())


if __name__ == "__main__":
    main()
