"""The follower always stops when asked, even when nats-py reports the cancel as a closed connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from nats.errors import ConnectionClosedError

from codememory.bus import follower as follower_module
from codememory.bus.follower import Follower
from codememory.events import LogRecord


class FakeLive:
    name = "memory"
    seq = 0

    async def apply(self, records: list[LogRecord]) -> int:
        return len(records)


async def _closed_on_cancel(js: Any, from_seq: int) -> AsyncIterator[list[LogRecord]]:
    try:
        await asyncio.Event().wait()  # waiting for the next message
    except asyncio.CancelledError:
        raise ConnectionClosedError from None  # what next_msg does when the connection is closed
    yield []


async def test_a_cancel_turned_into_an_error_still_stops_the_follower(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(follower_module, "follow", _closed_on_cancel)
    follower = Follower(None, FakeLive(), retry_s=0.01)  # type: ignore[arg-type]
    follower.start()
    task = follower._task
    await asyncio.sleep(0.05)
    await follower.stop()
    assert task is not None and task.done() and not follower.alive


async def test_a_restart_ends_the_old_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follower_module, "follow", _closed_on_cancel)
    follower = Follower(None, FakeLive(), retry_s=0.01)  # type: ignore[arg-type]
    follower.start()
    first = follower._task
    await asyncio.sleep(0.05)
    await follower.restart()
    assert first is not None and first.done() and follower.alive and follower.restarts == 1
    await follower.stop()


async def _swallows_the_first_cancel(js: Any, from_seq: int) -> AsyncIterator[list[LogRecord]]:
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(10)  # subscribing: nats-py's flush swallows a cancel here
    await asyncio.Event().wait()  # then waits for LOG forever
    yield []


async def test_a_lost_cancel_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follower_module, "follow", _swallows_the_first_cancel)
    follower = Follower(None, FakeLive(), retry_s=0.01)  # type: ignore[arg-type]
    follower.start()
    task = follower._task
    await asyncio.sleep(0.05)
    await follower.stop()
    assert task is not None and task.done()
