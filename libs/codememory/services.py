"""Running one consumer service as its own process: connect, make sure the streams exist, run until a
signal. Each service's ``main.py`` passes the factory that builds its runner.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

import nats
import structlog
from nats.js.client import JetStreamContext

from codememory.bus import ConsumerRunner, ensure_streams
from codememory.logs import configure_logging


async def run_consumer_service(
    service: str, nats_url: str, log_level: str, factory: Callable[[JetStreamContext], ConsumerRunner]
) -> None:
    configure_logging(service, level=log_level)
    log = structlog.get_logger(service)
    nc = await nats.connect(nats_url, name=service, max_reconnect_attempts=-1)
    js = nc.jetstream()
    await ensure_streams(js)
    runner = factory(js)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runner.stop)
    log.info("started", nats_url=nats_url)
    try:
        await runner.run()
    finally:
        await nc.close()
        log.info("stopped", processed=runner.processed)
