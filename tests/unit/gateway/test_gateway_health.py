"""grpc.health.v1 follows the projections: NOT_SERVING while one is stalled or its follower died, then back.

Caused for real: the follower task is killed in this process, the nats-server under a running
gateway is stopped and started again, and the code projection's fold is held in its thread (one
follower feeds both projections, so memory waits for it too). ``STALL_AFTER_S`` is 1 s here.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from livegateway import Running, running_gateway, until  # type: ignore[import-not-found]

from codememory.events import Envelope, MemoryStored, new_envelope
from codememory.runtime.natsd import NatsServer
from codememory.v1 import memory_pb2 as pb

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
META = (("authorization", "Bearer tok"),)


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
    follower = running.app.follower  # one follower feeds every projection
    follower._task.cancel()  # type: ignore[union-attr]
    await watched.now(NOT_SERVING)
    await watched.now(SERVING)
    assert follower.alive and follower.restarts == 1  # once, although both projections saw it die
    assert [(p.name, p.alive, p.restarts) for p in running.app.followers] == [
        ("memory", True, 1),
        ("code", True, 1),
        ("given", True, 1),
    ]
    await running.store("stored after the follower came back")  # read-your-writes: it follows again
    watched.stop()


async def test_a_code_fold_that_stalls_holds_memory_back_until_it_moves_again(
    gateway: tuple[Running, NatsServer],
) -> None:
    """What one follower for both projections costs (docs/architecture.md): a memory appended while
    the code fold is stuck is neither applied nor recalled; the watchdog reports the stall and
    restarts the follower, whose new run folds memory forward (once per restart) while the code
    projection stays where it was; both catch up once the code fold moves again."""
    running, _ = gateway
    watched = Watched(running)
    await watched.now(SERVING)
    app = running.app
    code = app.code_live.projection
    real, gate, held = code.apply_batch, threading.Event(), threading.Event()

    def stuck(batch: Sequence[tuple[int, Envelope]]) -> int:  # in the fold's thread
        held.set()
        gate.wait(60)
        return real(batch)

    code.apply_batch = stuck  # type: ignore[method-assign]
    try:
        await running.store("stored as the code fold gets stuck")  # memory folds the batch in flight
        await until(held.is_set)
        stuck_at = app.code_live.seq
        first, text = await _append(running, "written while the code fold is stuck")
        await asyncio.sleep(1.5)  # past STALL_AFTER_S: the follower waits on the code fold, memory with it
        assert app.live.seq < first and not await _recalled(running, text)
        await watched.now(NOT_SERVING)  # after the restart gave up waiting for the old run (5 s)
        status = await running.status()
        assert {p.name: p.stalled for p in status.projections}["code"]
        assert app.follower.restarts >= 1 and app.follower.alive
        await until(lambda: app.live.seq >= first)  # the new run folded memory forward
        again, _ = await _append(running, "written after the first restart")
        await until(lambda: app.live.seq >= again)  # the next restart (one per STALL_AFTER_S) folds it
        assert app.follower.restarts >= 2 and app.code_live.seq == stuck_at
        assert watched.seen[-1] == NOT_SERVING
    finally:
        gate.set()
    await watched.now(SERVING, timeout=30)
    assert app.live.seq >= again and app.code_live.seq >= again and app.follower.alive
    assert await until(lambda: _recalled(running, text))
    await running.store("stored after the code fold moved again")  # read-your-writes: it follows again
    watched.stop()


async def _append(running: Running, words: str) -> tuple[int, str]:
    """A memory appended to LOG (no wait for the projection, as Store does); its seq and text."""
    text = f"{words} {uuid.uuid4().hex}"
    event = MemoryStored(memory_id=str(uuid.uuid4()), text=text)
    envelope = new_envelope(event, event_id=str(uuid.uuid4()), tenant="alpha")
    appended = await running.app.event_log.append([envelope])
    return appended[0].seq, text


async def _recalled(running: Running, text: str) -> bool:
    request = pb.RecallRequest(query=text, limit=5)
    found = await running.stub().Recall(request, metadata=META, timeout=10)
    return any(hit.memory.text == text for hit in found.hits)


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
