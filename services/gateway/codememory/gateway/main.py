"""Wiring of the gateway as its own process: NATS, the model, the app, and a clean stop on a signal."""

from __future__ import annotations

import asyncio
import signal

import nats

from codememory.bus import ensure_streams
from codememory.embedding import load_default_embedder, query_embedder
from codememory.gateway.app import GatewayApp
from codememory.gateway.settings import SERVICE, GatewaySettings
from codememory.logs import configure_logging


async def serve(settings: GatewaySettings) -> None:
    configure_logging(SERVICE, level=settings.log_level)
    nc = await nats.connect(settings.nats_url, name=SERVICE, max_reconnect_attempts=-1)
    js = nc.jetstream()
    await ensure_streams(js)
    embedder = await asyncio.to_thread(
        lambda: query_embedder(
            load_default_embedder(),
            settings.query_runtime,
            settings.model_cache,
            threads=settings.query_threads,
        )
    )
    app = await GatewayApp(nc, js, settings, embedder).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await app.stop()
    await nc.close()


def main() -> None:
    asyncio.run(serve(GatewaySettings.from_env()))


if __name__ == "__main__":
    main()
