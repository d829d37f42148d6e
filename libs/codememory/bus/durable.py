"""A service's durable consumers as FastStream subscribers, settled by the one settler.

Every replica of a service subscribes to the same durable JetStream pull consumer (they split the
work) and to its redrive consumer (dead letters put back). Messages arrive in batches with manual
acks; the raw bytes go to the service's handler untouched (no JSON decoding in FastStream: a payload
nested thousands deep must reach the handler and get its typed rejection there), and the ``Settler``
acks, naks or dead-letters each one.

A consumer of LOG is filtered to the kinds its handler acts on (``Consumer.kinds``: one filter subject
per kind, nats-server 2.10+). A durable made before, or with other kinds, is updated in place when the
service starts (``prepare_streams`` creates or updates each one; the server keeps its position and the
messages delivered but not yet acknowledged), so a restart needs no cleanup; a durable that takes kinds
over from another starts where that one had got to (``placed_config``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from faststream import AckPolicy
from faststream.message import StreamMessage
from faststream.nats import JStream, NatsMessage, NatsRouter, PullSub
from faststream.params import NoCast
from nats.js.api import AckPolicy as JsAckPolicy
from nats.js.api import ConsumerConfig, ConsumerInfo, DeliverPolicy
from nats.js.client import JetStreamContext
from nats.js.errors import NotFoundError

from codememory.bus.deadletters import JetStreamDeadLetters
from codememory.bus.fetchfix import unify_fetch_timeouts
from codememory.bus.outcomes import BatchHandler
from codememory.bus.settle import DeadLetters, Settler
from codememory.topology import Consumer, Service

# the same for every service, so one process preparing several services' consumers agrees with each
# replica's subscriber: room for 16 replicas fetching batches of 64 at once
MAX_ACK_PENDING = 1024


@dataclass(frozen=True, kw_only=True)
class DurableSettings:
    batch: int = 64
    max_deliver: int = 5  # attempts of a message that keeps failing before it is dead-lettered
    ack_wait_s: float = 60.0
    fetch_timeout_s: float = 0.5


def consumer_config(consumer: Consumer, settings: DurableSettings) -> ConsumerConfig:
    """The durable consumer on the server: explicit acks, unlimited redelivery (the settler counts)."""
    filters = list(consumer.filter_subjects)
    return ConsumerConfig(
        durable_name=consumer.durable,
        ack_policy=JsAckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.ALL,
        max_deliver=-1,
        ack_wait=settings.ack_wait_s,
        filter_subject=filters[0] if len(filters) == 1 else None,
        filter_subjects=filters if len(filters) > 1 else None,
        max_ack_pending=MAX_ACK_PENDING,
    )


async def placed_config(
    js: JetStreamContext, consumer: Consumer, settings: DurableSettings
) -> ConsumerConfig:
    """``consumer_config`` where the durable reads from: one that exists keeps its start (the server
    refuses to move it); one split off another durable (``Consumer.split_from``), made for the first
    time, starts after what that one has acknowledged, so the kinds it takes over are not handled again
    from LOG's start (what the other delivered but had not acknowledged comes again, at least once)."""
    config = consumer_config(consumer, settings)
    existing = await _info(js, consumer.stream, consumer.durable)
    if existing is not None:
        config.deliver_policy = existing.config.deliver_policy
        config.opt_start_seq = existing.config.opt_start_seq
        return config
    parent = await _info(js, consumer.stream, consumer.split_from) if consumer.split_from else None
    floor = parent.ack_floor.stream_seq if parent is not None and parent.ack_floor is not None else None
    if floor:
        config.deliver_policy = DeliverPolicy.BY_START_SEQUENCE
        config.opt_start_seq = floor + 1
    return config


async def _info(js: JetStreamContext, stream: str, durable: str) -> ConsumerInfo | None:
    try:
        info: ConsumerInfo = await js.consumer_info(stream, durable)
    except NotFoundError:
        return None
    return info


async def _raw_bodies(message: StreamMessage[Any]) -> Any:
    return message.body  # list[bytes] for a batch: decoding is the handler's business


HandlerFactory = Callable[[JetStreamContext], BatchHandler]
DeadLetterFactory = Callable[[JetStreamContext, Service, Consumer], DeadLetters]


def _jetstream_dead_letters(js: JetStreamContext, service: Service, consumer: Consumer) -> DeadLetters:
    return JetStreamDeadLetters(js, service=service.name, stream=consumer.stream)


# FastStream gives pull subscribers ``_INBOX.`` whatever the connection's prefix; None lets nats-py use
# the connection's, its user's own inbox (``BusCredentials``), the one its permissions let it read
CONNECTION_INBOX: dict[str, Any] = {"inbox_prefix": None}


def subscribe_durable(
    router: NatsRouter,
    service: Service,
    settings: DurableSettings,
    handler: HandlerFactory,
    *,
    dead_letters: DeadLetterFactory = _jetstream_dead_letters,
    jetstream: Callable[[], JetStreamContext],
) -> list[LazySettler]:
    """Register the service's durable and redrive subscribers; the handler is built on first use.

    ``jetstream`` gives the connected JetStream context (known only once the broker has connected).
    Returns the settlers, whose counters the service may report.
    """
    unify_fetch_timeouts()
    settlers: list[LazySettler] = []
    for consumer in (*service.consumers, service.redrive):
        settler = LazySettler(service, consumer, settings, handler, dead_letters, jetstream)
        settlers.append(settler)
        filters = consumer.filter_subjects
        subscriber = router.subscriber(
            filters[0] if len(filters) == 1 else "",  # several: the consumer's own filter_subjects
            stream=JStream(name=consumer.stream, declare=False),
            durable=consumer.durable,
            config=consumer_config(consumer, settings),
            pull_sub=PullSub(batch_size=settings.batch, timeout=settings.fetch_timeout_s, batch=True),
            ack_policy=AckPolicy.MANUAL,
            **CONNECTION_INBOX,
            decoder=_raw_bodies,
            title=f"{service.name}:{consumer.durable}",
            description=f"durable consumer {consumer.durable} on {consumer.stream}: batches, explicit acks",
        )
        subscriber(settler.handle)
    return settlers


class LazySettler:
    """The settler of one subscriber, made with the first batch (the connection exists by then)."""

    def __init__(
        self,
        service: Service,
        consumer: Consumer,
        settings: DurableSettings,
        handler: HandlerFactory,
        dead_letters: DeadLetterFactory,
        jetstream: Callable[[], JetStreamContext],
    ) -> None:
        self._parts = (service, consumer, settings, handler, dead_letters, jetstream)
        self.settler: Settler | None = None

    def _build(self) -> Settler:
        service, consumer, settings, handler, dead_letters, jetstream = self._parts
        js = jetstream()
        return Settler(
            handler(js),
            dead_letters(js, service, consumer),
            service=service.name,
            max_deliver=settings.max_deliver,
            consumer=consumer.durable,
            progress_s=settings.ack_wait_s / 3,
        )

    async def handle(self, body: NoCast[list[bytes]], message: NatsMessage) -> None:
        if self.settler is None:
            self.settler = self._build()
        await self.settler.settle(message.raw_message)  # type: ignore[arg-type]
