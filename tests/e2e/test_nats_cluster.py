"""A 3-node JetStream cluster on loopback with LOG at R3: kill -9 one node under load, lose nothing.

Publishers append to LOG through the cluster while one node (the stream's leader, the worst case) is
SIGKILLed; every publish the cluster acknowledged must be readable afterwards from the survivors, and
each exactly once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import nats
import pytest
from nats.errors import Error as NatsError

from codememory import subjects
from codememory.bus import LOG, StreamSettings, ensure_streams
from codememory.runtime.natsd import Cluster, NatsServer, free_port


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[list[NatsServer]]:
    routes = tuple(free_port() for _ in range(3))
    servers = [
        NatsServer(
            tmp_path / f"n{i}",
            cluster=Cluster(name="cm", node=f"n{i}", port=routes[i], routes=routes),
            sync_always=False,  # replication is the durability here, as in the k8s StatefulSet
        )
        for i in range(3)
    ]
    for server in servers:
        server.command()
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


async def test_acknowledged_appends_survive_a_killed_node(cluster: list[NatsServer]) -> None:
    urls = [s.url for s in cluster]
    nc = await nats.connect(servers=urls, max_reconnect_attempts=-1, reconnect_time_wait=0.2)
    js = nc.jetstream(timeout=5)
    async with asyncio.timeout(30):  # the cluster elects its meta leader, then the stream's
        while True:
            try:
                await ensure_streams(js, StreamSettings(replicas=3))
                break
            except NatsError:
                await asyncio.sleep(0.5)
    info = await js.stream_info(LOG)
    assert info.config.num_replicas == 3
    leader = info.cluster.leader if info.cluster else None
    acknowledged: list[str] = []

    async def publish(n: int) -> None:
        msg_id = f"evt-{n}"
        for _ in range(60):  # retried until acknowledged, like a service's append
            try:
                await js.publish(
                    subjects.log("t", "memory.stored"), msg_id.encode(), headers={"Nats-Msg-Id": msg_id}
                )
                acknowledged.append(msg_id)
                return
            except (NatsError, TimeoutError):
                await asyncio.sleep(0.25)

    async def load() -> None:
        for n in range(600):
            await publish(n)

    loader = asyncio.create_task(load())
    while len(acknowledged) < 200:
        await asyncio.sleep(0.01)
    victim = next(s for i, s in enumerate(cluster) if f"n{i}" == leader)
    victim.kill()
    await asyncio.wait_for(loader, 120)
    assert len(acknowledged) == 600
    await nc.close()

    survivor = next(s for s in cluster if s is not victim)
    nc = await nats.connect(survivor.url)
    js = nc.jetstream(timeout=5)
    stored: dict[int, str] = {}  # by stream sequence: a redelivery is not a second copy, a re-append is
    deadline = asyncio.get_running_loop().time() + 90  # the survivors may still be electing leaders
    sub = None
    while sub is None and asyncio.get_running_loop().time() < deadline:
        try:
            sub = await js.pull_subscribe(subjects.LOG_ALL, stream=LOG)
        except (NatsError, TimeoutError):
            await asyncio.sleep(0.5)
    assert sub is not None, "no survivor took the stream's leadership"
    while len(stored) < len(acknowledged) and asyncio.get_running_loop().time() < deadline:
        try:
            msgs = await sub.fetch(200, timeout=5)
        except (NatsError, TimeoutError):
            continue  # a leader election in progress: ask again until the deadline
        for msg in msgs:
            stored[msg.metadata.sequence.stream] = msg.data.decode()
            await msg.ack()
    info = await js.stream_info(LOG)
    await nc.close()
    assert info.state.messages == len(stored)  # nothing past what was read
    assert sorted(stored.values()) == sorted(acknowledged)  # every acknowledged append, each exactly once
