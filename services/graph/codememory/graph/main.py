"""Wiring of the graph service: LOG tool observations (durable consumer ``graph``) to code facts in LOG.

``create_app`` is the FastStream factory; ``python -m codememory.graph.main`` and ``codememory run
graph`` run it.
"""

from __future__ import annotations

from faststream import FastStream
from faststream.nats import NatsRouter

from codememory.bus import JetStreamEventLog
from codememory.bus.app import BrokerJetStream, consumer_app, durable_settings
from codememory.bus.durable import subscribe_durable
from codememory.bus.run import run_app
from codememory.code.extract import extract_file
from codememory.graph.edits import EditedFiles
from codememory.graph.handler import GraphHandler
from codememory.graph.settings import GraphSettings
from codememory.metrics import metrics_step
from codememory.topology import GRAPH


def create_router(settings: GraphSettings, jetstream: BrokerJetStream) -> NatsRouter:
    router = NatsRouter()
    subscribe_durable(
        router,
        GRAPH,
        durable_settings(settings),
        lambda js: GraphHandler(JetStreamEventLog(js), EditedFiles(extract_file)),
        jetstream=jetstream,
    )
    return router


def create_app(settings: GraphSettings | None = None) -> FastStream:
    resolved = settings or GraphSettings.from_env()
    return consumer_app(
        GRAPH,
        resolved,
        lambda jetstream: create_router(resolved, jetstream),
        on_startup=[metrics_step(GRAPH.name)],
    )


def main() -> None:
    run_app(create_app())


if __name__ == "__main__":
    main()
