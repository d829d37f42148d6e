"""Wiring of the ingest service: HOOKS (durable consumer ``ingest``) to LOG. Nothing else lives here."""

from __future__ import annotations

import asyncio

from nats.js.client import JetStreamContext

from codememory.bus import HOOKS, ConsumerRunner, ConsumerSpec, JetStreamEventLog
from codememory.ingest.handler import IngestHandler
from codememory.ingest.settings import SERVICE, IngestSettings


def create_ingest(js: JetStreamContext, settings: IngestSettings) -> ConsumerRunner:
    spec = ConsumerSpec(
        stream=HOOKS,
        durable=SERVICE,
        filter_subject="cm.hooks.>",
        batch=settings.batch,
        max_deliver=settings.max_deliver,
    )
    return ConsumerRunner(js, spec, IngestHandler(JetStreamEventLog(js)), service=SERVICE)


async def serve(settings: IngestSettings) -> None:
    from codememory.services import run_consumer_service

    await run_consumer_service(
        SERVICE, settings.nats_url, settings.log_level, lambda js: create_ingest(js, settings)
    )


def main() -> None:
    asyncio.run(serve(IngestSettings.from_env()))


if __name__ == "__main__":
    main()
