"""Status reports every durable consumer in the topology, the DLQ, both projections and health."""

from __future__ import annotations

import os
from pathlib import Path

import nats
from livegateway import running_gateway, until  # type: ignore[import-not-found]

from codememory import subjects
from codememory.bus.app import prepare_streams
from codememory.bus.durable import DurableSettings
from codememory.bus.streams import StreamSettings
from codememory.runtime.natsd import NatsServer
from codememory.topology import EMBED, GRAPH, INGEST, REVIEWS, durable_consumers


async def test_status_names_every_consumer_and_projection(tmp_path: Path) -> None:
    with NatsServer(tmp_path / "nats") as server:
        async with running_gateway(server.url, tmp_path / "gw") as gateway:
            before = await gateway.status()
            assert {c.durable for c in before.consumers} == {c.durable for c in durable_consumers()}
            assert not any(c.exists for c in before.consumers)  # no consumer service ever started

            nc = await nats.connect(server.url)
            js = nc.jetstream()
            await prepare_streams(js, [INGEST, EMBED, GRAPH, REVIEWS], StreamSettings(), DurableSettings())
            await js.publish(subjects.hook("alpha", "claude", "Stop"), b"{}")
            await nc.close()
            await gateway.store("a memory for the embed consumer to see")

            status = await until(lambda: _settled(gateway))
    consumers = {c.durable: c for c in status.consumers}
    assert all(c.exists for c in consumers.values())
    assert (consumers["ingest"].service, consumers["ingest"].stream, consumers["ingest"].pending) == (
        "ingest",
        "HOOKS",
        1,
    )
    assert (
        consumers["embed"].pending == 1 and consumers["graph"].pending == 0
    )  # graph reads tool.observed only
    assert consumers["graph-redrive"].service == "graph" and consumers["graph-redrive"].stream == "REDRIVE"
    assert status.consumer_pending["graph"] == 0 and status.consumer_pending["ingest"] == 1
    assert status.consumer_pending["gateway"] == 0
    assert set(status.stream_messages) == {"HOOKS", "LOG", "DLQ", "REDRIVE"} and status.dlq_messages == 0
    assert [(p.name, p.seq, p.caught_up, p.poison, p.following) for p in status.projections] == [
        ("memory", 1, True, 0, True),
        ("code", 1, True, 0, True),
        ("given", 1, True, 0, True),
    ]
    assert status.serving and status.caught_up and status.pid == os.getpid() and status.host


async def _settled(gateway):  # type: ignore[no-untyped-def]
    status = await gateway.status()
    return status if status.serving and status.caught_up else None
