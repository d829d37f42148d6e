"""A codememory service as a FastStream application: one broker, the service's routers, the streams.

``service_app`` is what every consumer service's ``create_app`` returns (and what ``faststream run
codememory.<service>.main:create_app --factory`` and ``faststream docs gen`` load). Before the
broker subscribes, the streams and the service's durable consumers are created or brought up to date,
so a fresh server and an old home both work. The process seals LOG from its first step (``sealing``:
personal text encrypted on append, opened on read; on unless ``CODEMEMORY_SEALING=0``). Per-message
logs of FastStream go to DEBUG; ours are structlog lines with the service's name (a stop in the
middle of a batch among them: FastStream would log it as an error).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import structlog
from faststream import FastStream
from faststream.message import StreamMessage
from faststream.nats import NatsBroker, NatsRouter
from faststream.specification import AsyncAPI
from nats.js.client import JetStreamContext

from codememory.bus.auth import BusCredentials
from codememory.bus.durable import DurableSettings, placed_config
from codememory.bus.streams import StreamSettings, ensure_streams
from codememory.logs import configure_logging
from codememory.sealing import SealingSettings, install_sealing
from codememory.settings import ConsumerSettings, SettingsError
from codememory.topology import Service

log = structlog.get_logger(__name__)

Startup = Callable[[], Awaitable[None]]


class _StoppedMidBatch(logging.Filter):
    """FastStream logs whatever ends the handling of a message at ERROR with its traceback, the
    ``CancelledError`` of a service stopped in the middle of a batch too. Nothing of that batch was
    acknowledged, and the settler hands it back (``bus.settle``) and says so at INFO, in our own
    line: FastStream's is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, asyncio.CancelledError)


STOP_WAIT_S = 2.0  # how long a stopping service lets the batches under way finish


def stop_wait_s(environ: Mapping[str, str] | None = None) -> float:
    """``CODEMEMORY_STOP_WAIT_S``: how long a stopping process waits for the batches its handlers are
    working on before it cancels them and hands them back (``bus.settle``). Short, because what is
    handed back is taken again at once (by another replica, or after a restart): FastStream's own
    default, 15 s, kept ``codememory up`` stopping for 20 s while a repository's symbols were embedded."""
    raw = (os.environ if environ is None else environ).get("CODEMEMORY_STOP_WAIT_S", "").strip()
    try:
        value = float(raw) if raw else STOP_WAIT_S
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise SettingsError(f"CODEMEMORY_STOP_WAIT_S must be a number of seconds, 0 or more, got {raw!r}")
    return value


def service_broker(
    nats_url: str,
    name: str,
    credentials: BusCredentials | None = None,
    *,
    stop_wait: float | None = None,
) -> NatsBroker:
    """A broker as ``name``'s user (credentials read from the environment unless given), waiting
    ``stop_wait`` seconds (``stop_wait_s()`` unless given) for its handlers when it stops."""
    logger = logging.getLogger(f"faststream.{name}")
    logger.setLevel(logging.WARNING)  # its task-supervisor chatter; failures still show
    if not any(isinstance(f, _StoppedMidBatch) for f in logger.filters):
        logger.addFilter(_StoppedMidBatch())
    auth = credentials if credentials is not None else BusCredentials.from_env(name)
    return NatsBroker(
        nats_url,
        **auth.broker_options(),
        name=name,
        max_reconnect_attempts=-1,  # a service outlives any outage of the server
        reconnect_time_wait=1,
        graceful_timeout=stop_wait_s() if stop_wait is None else stop_wait,
        logger=logger,
        log_level=logging.DEBUG,
    )


class BrokerJetStream:
    """The broker's JetStream context once it has connected (callable: what subscribers are given)."""

    def __init__(self, broker: NatsBroker) -> None:
        self._broker = broker
        self._js: JetStreamContext | None = None

    def __call__(self) -> JetStreamContext:
        if self._js is None:
            self._js = self._broker.connection.jetstream()
        return self._js


async def prepare_streams(
    js: JetStreamContext, services: Sequence[Service], streams: StreamSettings, durable: DurableSettings
) -> None:
    """Streams first, then each durable consumer created or updated to today's configuration."""
    await ensure_streams(js, streams)
    for service in services:
        for consumer in (*service.consumers, service.redrive):
            await js.add_consumer(consumer.stream, await placed_config(js, consumer, durable))


def durable_settings(settings: ConsumerSettings) -> DurableSettings:
    return DurableSettings(
        batch=settings.batch, max_deliver=settings.max_deliver, ack_wait_s=settings.ack_wait_s
    )


RouterFactory = Callable[[BrokerJetStream], NatsRouter]


async def raw_body(message: StreamMessage[Any]) -> Any:
    """A subscriber's decoder that leaves the bytes alone: the handler parses (and may refuse) them."""
    return message.body


def service_app(
    services: Sequence[Service],
    broker: NatsBroker,
    routers: Sequence[RouterFactory],
    *,
    streams: StreamSettings,
    durable: DurableSettings,
    on_startup: Sequence[Startup] = (),
    after_startup: Sequence[Startup] = (),
    on_shutdown: Sequence[Startup] = (),
    title: str,
) -> FastStream:
    """One FastStream app over ``broker``; each router factory gets the (lazy) JetStream context."""
    jetstream = BrokerJetStream(broker)
    for make_router in routers:
        broker.include_router(make_router(jetstream))

    async def connect_and_prepare() -> None:
        await broker.connect()
        await prepare_streams(jetstream(), services, streams, durable)
        log.info("streams_ready", services=[s.name for s in services])

    async def seal_log() -> None:  # before anything reads or appends LOG (docs/security.md, "Erasure")
        install_sealing(SealingSettings.from_env())

    return FastStream(
        broker,
        on_startup=[seal_log, *on_startup, connect_and_prepare],
        after_startup=list(after_startup),
        on_shutdown=list(on_shutdown),
        specification=AsyncAPI(title=title, version="1", description=f"codememory {title}"),
    )


def consumer_app(
    service: Service,
    settings: ConsumerSettings,
    make_router: RouterFactory,
    *,
    on_startup: Sequence[Startup] = (),
) -> FastStream:
    """The app of one consumer service run as its own process (``codememory run <service>``)."""
    return service_app(
        [service],
        service_broker(settings.nats_url, service.name),
        [make_router],
        streams=StreamSettings(replicas=settings.stream_replicas),
        durable=durable_settings(settings),
        on_startup=[_logging(service.name, settings.log_level), *on_startup],
        title=service.name,
    )


def _logging(name: str, level: str) -> Startup:
    async def configure() -> None:
        configure_logging(name, level=level)

    return configure
