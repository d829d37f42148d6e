"""Wiring of the graph service: LOG tool observations (durable consumer ``graph``) to code facts in LOG."""

from __future__ import annotations

import asyncio

from nats.js.client import JetStreamContext

from codememory.bus import LOG, ConsumerRunner, ConsumerSpec, JetStreamEventLog
from codememory.code.extract import extract_file
from codememory.graph.edits import EditedFiles
from codememory.graph.handler import GraphHandler
from codememory.graph.settings import SERVICE, GraphSettings


def create_graph(js: JetStreamContext, settings: GraphSettings) -> ConsumerRunner:
    spec = ConsumerSpec(
        stream=LOG,
        durable=SERVICE,
        filter_subject="cm.log.*.tool.observed",
        batch=settings.batch,
        max_deliver=settings.max_deliver,
    )
    handler = GraphHandler(JetStreamEventLog(js), EditedFiles(extract_file))
    return ConsumerRunner(js, spec, handler, service=SERVICE)


async def serve(settings: GraphSettings) -> None:
    from codememory.services import run_consumer_service

    await run_consumer_service(
        SERVICE, settings.nats_url, settings.log_level, lambda js: create_graph(js, settings)
    )


def main() -> None:
    asyncio.run(serve(GraphSettings.from_env()))


if __name__ == "__main__":
    main()
