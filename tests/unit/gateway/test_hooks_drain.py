"""Erase of a user or session first waits for ingest to take what HOOKS held (real nats-server)."""

from __future__ import annotations

import asyncio

from nats.aio.client import Client

from codememory import subjects
from codememory.gateway.hooksdrain import HooksDrain
from codememory.topology import HOOKS


async def test_the_drain_waits_for_what_hooks_held_and_not_for_later_messages(nc: Client) -> None:
    js = nc.jetstream()
    await js.purge_stream(HOOKS)  # what earlier tests left on the shared server
    drained = HooksDrain(js)
    assert await drained(0.1)  # nothing waiting
    subject = subjects.hook("t", "claude", "UserPromptSubmit")
    held = [await js.publish(subject, b"{}") for _ in range(2)]
    assert not await drained(0.2)  # ingest has not taken them
    waiting = asyncio.create_task(drained(5.0))
    await asyncio.sleep(0.2)
    await js.publish(subject, b"{}")  # arrived after the erasure began: does not hold it up
    await js.delete_msg(HOOKS, held[0].seq)  # taken by ingest (a work queue drops what is acked)
    await asyncio.sleep(0.2)
    assert not waiting.done()
    await js.delete_msg(HOOKS, held[1].seq)
    assert await asyncio.wait_for(waiting, 5.0)
    await js.purge_stream(HOOKS)
