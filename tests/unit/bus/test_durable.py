"""Durable FastStream subscribers against a real nats-server: outcomes become ack, retry or DLQ.

Each test runs a real FastStream app (``service_app``) for a throwaway service with its own durable
consumer on its own stream, publishes into it, and reads the DLQ and the consumer's state back.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence

import pytest
from durablerun import running  # type: ignore[import-not-found]
from nats.aio.client import Client
from nats.js.api import StreamConfig
from structlog.testing import capture_logs

from codememory.bus import (
    ACK,
    Delivery,
    Outcome,
    Poison,
    Retryable,
    dead,
    dead_letters,
    redrive,
)
from codememory.runtime.natsd import NatsServer
from codememory.topology import Consumer, Service


async def _service(nc: Client) -> Service:
    name = f"t{uuid.uuid4().hex[:8]}"
    stream = name.upper()
    await nc.jetstream().add_stream(StreamConfig(name=stream, subjects=[f"{stream}.>"]))
    return Service(
        name=name, consumers=(Consumer(stream=stream, durable=name, filter_subject=f"{stream}.>"),)
    )


async def until(condition: Callable[[], bool], timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


async def letters(nc: Client, service: str) -> list[tuple[bytes, str]]:
    return [(d.data, d.reason) async for d in dead_letters(nc.jetstream(), service=service)]


async def settled(nc: Client, service: Service) -> bool:
    info = await nc.jetstream().consumer_info(service.consumers[0].stream, service.name)
    return bool(info.num_pending == 0 and info.num_ack_pending == 0)


async def test_poison_goes_to_the_dlq_with_its_reason_and_the_rest_is_acked(
    nats_server: NatsServer, nc: Client
) -> None:
    service = await _service(nc)
    seen: list[bytes] = []

    async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
        seen.extend(d.data for d in batch)
        return [dead("cannot parse") if d.data == b"bad" else ACK for d in batch]

    for body in (b"good-1", b"bad", b"good-2"):
        await nc.jetstream().publish(f"{service.name.upper()}.x", body)
    async with running(nats_server, service, handler):
        await until(lambda: len(seen) >= 3)
        await asyncio.sleep(0.3)
    assert await letters(nc, service.name) == [(b"bad", "cannot parse")]
    assert await settled(nc, service)


async def test_one_crashing_message_never_drags_its_batch_mates_into_the_dlq(
    nats_server: NatsServer, nc: Client
) -> None:
    service = await _service(nc)
    handled: list[bytes] = []
    attempts: list[int] = []

    async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
        if any(d.data == b"explodes" for d in batch):
            attempts.extend(d.attempt for d in batch if d.data == b"explodes")
            raise RuntimeError("boom")
        handled.extend(d.data for d in batch)
        return [ACK] * len(batch)

    for body in (b"a", b"explodes", b"b", b"c"):
        await nc.jetstream().publish(f"{service.name.upper()}.x", body)
    async with running(nats_server, service, handler, max_deliver=3):
        await until(lambda: len(attempts) >= 4)  # once in its batch, then alone until the limit
        await asyncio.sleep(0.5)
    dead_ones = await letters(nc, service.name)
    assert [d for d, _ in dead_ones] == [b"explodes"]
    assert "gave up after 3 attempts" in dead_ones[0][1] and "boom" in dead_ones[0][1]
    assert sorted(set(handled)) == [b"a", b"b", b"c"]


async def test_transient_failures_are_retried_past_the_limit_and_never_dead_lettered(
    nats_server: NatsServer, nc: Client
) -> None:
    service = await _service(nc)
    calls: list[int] = []
    done: list[bytes] = []

    async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
        calls.append(max(d.attempt for d in batch))
        if len(calls) <= 4:  # more failures than max_deliver allows attempts
            raise Retryable("LOG is full")
        done.extend(d.data for d in batch)
        return [ACK] * len(batch)

    await nc.jetstream().publish(f"{service.name.upper()}.x", b"good")
    async with running(nats_server, service, handler, max_deliver=2):
        await until(lambda: done == [b"good"], timeout=60)
    assert max(calls) >= 5
    assert await letters(nc, service.name) == []


async def test_poison_raised_for_a_batch_dead_letters_only_its_culprit(
    nats_server: NatsServer, nc: Client
) -> None:
    service = await _service(nc)
    acked: list[bytes] = []

    async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
        if any(d.data == b"poison" for d in batch):
            raise Poison("unknown schema version 99")
        acked.extend(d.data for d in batch)
        return [ACK] * len(batch)

    for body in (b"x", b"poison", b"y"):
        await nc.jetstream().publish(f"{service.name.upper()}.x", body)
    async with running(nats_server, service, handler):
        await until(lambda: sorted(acked) == [b"x", b"y"])
        await asyncio.sleep(0.3)
    assert await letters(nc, service.name) == [(b"poison", "unknown schema version 99")]


async def test_redrive_puts_a_dead_letter_back_through_the_handler_once_fixed(
    nats_server: NatsServer, nc: Client
) -> None:
    service = await _service(nc)
    fixed = False
    handled: list[tuple[bytes, str]] = []

    async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
        handled.extend((d.data, d.subject) for d in batch)
        return [ACK if fixed else dead("needs a newer ingest") for _ in batch]

    subject = f"{service.name.upper()}.tenant.event"
    await nc.jetstream().publish(subject, b"payload")
    js = nc.jetstream()
    async with running(nats_server, service, handler):
        await until(lambda: len(handled) == 1)
        await asyncio.sleep(0.3)
        parked = [d async for d in dead_letters(js, service=service.name)]
        assert [(d.reason, d.subject, d.source_seq) for d in parked] == [("needs a newer ingest", subject, 1)]
        fixed = True
        await redrive(js, parked[0])
        await until(lambda: len(handled) == 2)
        await asyncio.sleep(0.3)
    assert handled[1] == (b"payload", subject)  # the original subject, through the same handler
    assert await letters(nc, service.name) == []


async def test_a_batch_that_outlasts_the_ack_wait_is_not_delivered_again_while_it_runs(
    nats_server: NatsServer, nc: Client
) -> None:
    service = await _service(nc)
    attempts: list[tuple[bytes, int]] = []

    async def slow(batch: Sequence[Delivery]) -> list[Outcome]:
        attempts.extend((d.data, d.attempt) for d in batch)
        await asyncio.sleep(3.5)  # over three ack waits: marked in progress every 1/3 s
        return [ACK for _ in batch]

    for body in (b"file-1", b"file-2"):
        await nc.jetstream().publish(f"{service.name.upper()}.x", body)
    # two replicas: the idle one would take what the server delivers again while the other works
    async with running(nats_server, service, slow, ack_wait_s=1.0, batch=2):
        await until(lambda: len(attempts) >= 2)
        async with running(nats_server, service, slow, ack_wait_s=1.0, batch=2):
            await asyncio.sleep(4.5)  # the batch ends and is acked; a redelivery would have come by now
    assert sorted(attempts) == [(b"file-1", 1), (b"file-2", 1)]
    assert await settled(nc, service)


async def test_a_service_stopped_in_the_middle_of_a_batch_hands_it_back_at_once_and_logs_no_error(
    nats_server: NatsServer, nc: Client, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEMEMORY_STOP_WAIT_S", "0.5")
    service = await _service(nc)
    started = asyncio.Event()
    seen: list[bytes] = []

    async def stuck(batch: Sequence[Delivery]) -> list[Outcome]:
        seen.extend(d.data for d in batch)
        started.set()
        await asyncio.sleep(60)  # still handling when the service stops
        return [ACK for _ in batch]

    async def quick(batch: Sequence[Delivery]) -> list[Outcome]:
        seen.extend(d.data for d in batch)
        return [ACK for _ in batch]

    await nc.jetstream().publish(f"{service.name.upper()}.x", b"kept")
    with caplog.at_level(logging.INFO, logger="faststream"), capture_logs() as ours:
        async with running(nats_server, service, stuck, ack_wait_s=60.0):
            await asyncio.wait_for(started.wait(), 15)
            stopping = time.monotonic()
        stopped_after = time.monotonic() - stopping
    assert stopped_after < 3.0, stopped_after  # the stop wait (0.5 s), not FastStream's 15 s
    errors = [r for r in caplog.records if r.name.startswith("faststream") and r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]  # FastStream's: "CancelledError: " and its trace
    stops = [line for line in ours if line["event"] == "stopped_mid_batch"]
    assert len(stops) == 1 and stops[0]["service"] == service.name and stops[0]["log_level"] == "info"
    assert stops[0]["handed_back"] == 1
    async with running(nats_server, service, quick, ack_wait_s=60.0):
        # nothing was acknowledged and the batch was nak'ed: delivered again now, not after the ack wait
        await until(lambda: seen.count(b"kept") == 2, timeout=10)
    assert await settled(nc, service)
