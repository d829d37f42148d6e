"""Where a durable consumer starts, on a real nats-server (``placed_config`` through ``prepare_streams``).

A durable that takes kinds over from another of its service (``Consumer.split_from``, as
``embed-symbols`` took files' symbols from ``embed``) starts after what that one had acknowledged, so
an upgrade handles nothing of LOG again but what was in flight; on a fresh stream it reads from the
start; a restart leaves every durable where it is.
"""

from __future__ import annotations

import uuid

from nats.aio.client import Client
from nats.js.api import StreamConfig

from codememory.bus.app import prepare_streams
from codememory.bus.durable import DurableSettings
from codememory.bus.streams import StreamSettings
from codememory.topology import Consumer, Service


async def _stream(nc: Client) -> str:
    name = f"T{uuid.uuid4().hex[:8].upper()}"
    await nc.jetstream().add_stream(StreamConfig(name=name, subjects=[f"{name}.>"]))
    return name


async def _prepare(nc: Client, service: Service) -> None:
    await prepare_streams(nc.jetstream(), [service], StreamSettings(), DurableSettings())


async def _take(nc: Client, stream: str, durable: str, subject: str, n: int) -> list[int]:
    """The stream sequences of the next ``n`` messages of the durable, acknowledged."""
    sub = await nc.jetstream().pull_subscribe(subject, durable=durable, stream=stream)
    messages = await sub.fetch(n, timeout=5)
    for message in messages:
        await message.ack_sync()
    return [m.metadata.sequence.stream for m in messages]


def _split(stream: str) -> Service:
    return Service(
        name="svc",
        consumers=(
            Consumer(stream=stream, durable="svc", filter_subject=f"{stream}.a"),
            Consumer(stream=stream, durable="svc-b", filter_subject=f"{stream}.b", split_from="svc"),
        ),
    )


async def test_a_split_durable_starts_after_what_its_parent_acknowledged(nc: Client) -> None:
    stream = await _stream(nc)
    await _prepare(
        nc,
        Service(
            name="svc", consumers=(Consumer(stream=stream, durable="svc", filter_subject=f"{stream}.>"),)
        ),
    )
    for i in range(10):  # seq 1..10: a, b, a, b ...
        await nc.jetstream().publish(f"{stream}.{'ab'[i % 2]}", str(i).encode())
    assert await _take(nc, stream, "svc", f"{stream}.>", 6) == [1, 2, 3, 4, 5, 6]

    await _prepare(nc, _split(stream))  # the upgrade: svc narrowed to .a, svc-b made beside it
    info = await nc.jetstream().consumer_info(stream, "svc-b")
    assert info.num_pending == 2  # the b messages after the parent's floor: 8 and 10
    assert await _take(nc, stream, "svc-b", f"{stream}.b", 2) == [8, 10]
    assert await _take(nc, stream, "svc", f"{stream}.a", 2) == [7, 9]

    await nc.jetstream().publish(f"{stream}.b", b"11")
    await _prepare(nc, _split(stream))  # a restart: both stay where they are
    assert await _take(nc, stream, "svc-b", f"{stream}.b", 1) == [11]
    assert (await nc.jetstream().consumer_info(stream, "svc")).num_pending == 0


async def test_on_a_fresh_stream_a_split_durable_reads_from_the_start(nc: Client) -> None:
    stream = await _stream(nc)
    await nc.jetstream().publish(f"{stream}.b", b"0")
    await nc.jetstream().publish(f"{stream}.a", b"1")
    await _prepare(nc, _split(stream))
    assert await _take(nc, stream, "svc-b", f"{stream}.b", 1) == [1]
    assert await _take(nc, stream, "svc", f"{stream}.a", 1) == [2]
