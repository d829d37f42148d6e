"""``fetch`` raises nats' TimeoutError where nats-py 2.16 raises a plain one (its deadline ran out
between its two pull requests), so FastStream's fetch loop keeps running."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from nats.aio.client import Client
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import StreamConfig
from nats.js.client import JetStreamContext

from codememory.bus.fetchfix import unify_fetch_timeouts


async def test_a_plain_timeout_from_fetch_becomes_a_nats_timeout(
    nc: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"F{uuid.uuid4().hex[:8]}"
    js = nc.jetstream()
    await js.add_stream(StreamConfig(name=name, subjects=[f"{name}.>"]))
    sub = await js.pull_subscribe(f"{name}.>", durable=name, stream=name)

    async def deadline_ran_out(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise TimeoutError  # what nats-py raises at `if deadline <= 0`

    monkeypatch.setattr(JetStreamContext.PullSubscription, "fetch", deadline_ran_out)
    with pytest.raises(TimeoutError) as plain:
        await sub.fetch(2, timeout=0.5)
    assert not isinstance(plain.value, NatsTimeoutError)  # FastStream 0.7.8 does not catch this one
    unify_fetch_timeouts()
    unify_fetch_timeouts()  # idempotent: wrapped once
    with pytest.raises(NatsTimeoutError):
        await sub.fetch(2, timeout=0.5)
    await js.publish(f"{name}.x", b"m")
    monkeypatch.undo()
    unify_fetch_timeouts()
    assert [m.data for m in await sub.fetch(1, timeout=2)] == [b"m"]  # the real fetch, wrapped, still works
