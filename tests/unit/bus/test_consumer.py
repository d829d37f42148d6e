"""The consumer runner against a real nats-server: outcomes become ack, retry or DLQ, and it never dies."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

from nats.aio.client import Client
from nats.js.api import StreamConfig

from codememory.bus import ACK, ConsumerRunner, ConsumerSpec, Delivery, Outcome, dead


async def _stream(nc: Client) -> str:
    name = f"T{uuid.uuid4().hex[:8]}"
    await nc.jetstream().add_stream(StreamConfig(name=name, subjects=[f"{name}.>"]))
    return name


async def _dlq_for(nc: Client, service: str) -> list[tuple[bytes, dict[str, str]]]:
    js = nc.jetstream()
    sub = await js.pull_subscribe(f"cm.dlq.{service}", stream="DLQ")
    try:
        msgs = await sub.fetch(100, timeout=1)
    except Exception:
        return []
    return [(m.data, dict(m.headers or {})) for m in msgs]


async def _run_until(runner: ConsumerRunner, condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    task = asyncio.create_task(runner.run())
    try:
        async with asyncio.timeout(timeout):
            while not condition():
                await asyncio.sleep(0.05)
    finally:
        runner.stop()
        await task


async def test_poison_goes_to_dlq_with_reason_and_the_rest_is_acked(nc: Client) -> None:
    stream = await _stream(nc)
    js = nc.jetstream()
    for body in (b"good-1", b"bad", b"good-2"):
        await js.publish(f"{stream}.x", body)
    seen: list[bytes] = []

    async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
        seen.extend(d.data for d in batch)
        return [dead("cannot parse") if d.data == b"bad" else ACK for d in batch]

    service = f"svc{uuid.uuid4().hex[:6]}"
    runner = ConsumerRunner(
        js,
        ConsumerSpec(stream=stream, durable=service, filter_subject=f"{stream}.>"),
        handler,
        service=service,
    )
    await _run_until(runner, lambda: runner.processed >= 2)
    dlq = await _dlq_for(nc, service)
    assert [d for d, _ in dlq] == [b"bad"]
    assert dlq[0][1]["CM-Reason"] == "cannot parse" and dlq[0][1]["CM-Stream"] == stream
    info = await js.consumer_info(stream, service)
    assert info.num_pending == 0 and info.num_ack_pending == 0


async def test_a_crashing_handler_is_retried_then_dead_lettered(nc: Client) -> None:
    stream = await _stream(nc)
    js = nc.jetstream()
    await js.publish(f"{stream}.x", b"explodes")
    attempts: list[int] = []

    async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
        attempts.extend(d.attempt for d in batch)
        raise RuntimeError("boom")

    service = f"svc{uuid.uuid4().hex[:6]}"
    spec = ConsumerSpec(stream=stream, durable=service, filter_subject=f"{stream}.>", max_deliver=3)
    runner = ConsumerRunner(js, spec, handler, service=service)
    dlq: list[tuple[bytes, dict[str, str]]] = []

    async def check() -> None:
        while not dlq:
            dlq.extend(await _dlq_for(nc, service))

    await _run_until(runner, lambda: len(attempts) >= 3, timeout=15)
    await asyncio.wait_for(check(), 5)
    assert attempts == [1, 2, 3]
    assert "gave up after 3 attempts" in dlq[0][1]["CM-Reason"] and "boom" in dlq[0][1]["CM-Reason"]
