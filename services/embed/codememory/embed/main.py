"""Wiring of the embed service: LOG (durable consumer ``embed``) to ``MemoryEmbedded`` events in LOG."""

from __future__ import annotations

import asyncio

from nats.js.client import JetStreamContext

from codememory.bus import LOG, ConsumerRunner, ConsumerSpec, JetStreamEventLog
from codememory.embed.handler import EmbedHandler
from codememory.embed.settings import SERVICE, EmbedSettings
from codememory.embedding import Embedder, load_default_embedder


def create_embed(js: JetStreamContext, settings: EmbedSettings, embedder: Embedder) -> ConsumerRunner:
    spec = ConsumerSpec(
        stream=LOG,
        durable=SERVICE,
        filter_subject="cm.log.>",
        batch=settings.batch,
        max_deliver=settings.max_deliver,
    )
    return ConsumerRunner(js, spec, EmbedHandler(JetStreamEventLog(js), embedder), service=SERVICE)


async def serve(settings: EmbedSettings) -> None:
    from codememory.services import run_consumer_service

    embedder = load_default_embedder()
    await run_consumer_service(
        SERVICE, settings.nats_url, settings.log_level, lambda js: create_embed(js, settings, embedder)
    )


def main() -> None:
    asyncio.run(serve(EmbedSettings.from_env()))


if __name__ == "__main__":
    main()
