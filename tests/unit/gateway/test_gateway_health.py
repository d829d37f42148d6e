"""grpc.health.v1 follows the projections: NOT_SERVING while one is stalled or its follower died, then back.

Caused for real: the follower task is killed in this process, and the nats-server under a running
gateway is stopped and started again. ``STALL_AFTER_S`` is 1 s here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from livegateway import Running, running_gateway, until  # type: ignore[import-not-found]

from codememory.runtime.natsd import NatsServer

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[tuple[Running, NatsServer]]:
    server = NatsServer(tmp_path / "nats").start()
    try:
        async with running_gateway(server.url, tmp_path / "gw", stall_after_s=1.0) as running:
            yield running, server
    finally:
        server.stop()


class Watched:
    """Every status the health service streams for the whole server (``""``)."""

    def __init__(self, running: Running) -> None:
        self.seen: list[int] = []
        stub = health_pb2_grpc.HealthStub(running.channel)
        self._task = asyncio.create_task(self._watch(stub))

    async def _watch(self, stub: health_pb2_grpc.HealthStub) -> None:
        async for response in stub.Watch(health_pb2.HealthCheckRequest(service="")):
            self.seen.append(response.status)

    async def now(self, status: int, timeout: float = 15.0) -> None:
        await until(lambda: self.seen and self.seen[-1] == status, timeout)

    def stop(self) -> None:
        self._task.cancel()


async def test_a_killed_follower_turns_health_off_until_it_is_restarted(
    gateway: tuple[Running, NatsServer],
) -> None:
    running, _ = gateway
    watched = Watched(running)
    await watched.now(SERVING)
    follower = running.app.follower  # one follower feeds both projections
    follower._task.cancel()  # type: ignore[union-attr]
    await watched.now(NOT_SERVING)
    await watched.now(SERVING)
    assert follower.alive and follower.restarts == 1  # once, although both projections saw it die
    assert [(p.name, p.alive, p.restarts) for p in running.app.followers] == [
        ("memory", True, 1),
        ("code", True, 1),
    ]
    await running.store("stored after the follower came back")  # read-your-writes: it follows again
    watched.stop()


async def test_losing_nats_turns_health_off_and_its_return_turns_it_back_on(
    gateway: tuple[Running, NatsServer],
) -> None:
    running, server = gateway
    watched = Watched(running)
    await watched.now(SERVING)
    before = await running.store("stored before the outage")
    server.stop()
    await watched.now(NOT_SERVING)
    server.start()
    await watched.now(SERVING, timeout=30)
    after = await until(lambda: _store(running, "stored after the outage"), timeout=30, every=0.5)
    status = await until(lambda: _caught_up(running), timeout=30)
    assert all(p.following for p in status.projections)
    assert before != after
    watched.stop()


async def _store(running: Running, text: str) -> str | None:
    try:
        return await running.store(text)
    except Exception:  # UNAVAILABLE while the connection comes back
        return None


async def _caught_up(running: Running):  # type: ignore[no-untyped-def]
    status = await running.status()
    return status if status.caught_up and status.serving else None
