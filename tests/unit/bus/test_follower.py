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


async def _closed_on_cancel(js: Any, from_seq: int, **_: Any) -> AsyncIterator[list[LogRecord]]:
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


async def _swallows_the_first_cancel(js: Any, from_seq: int, **_: Any) -> AsyncIterator[list[LogRecord]]:
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


class Recorded:
    """A live projection that records what it applied; ``fail_once_at`` raises a transient error once."""

    def __init__(self, name: str, seq: int, fail_once_at: int | None = None) -> None:
        self.name, self.seq, self.fail_once_at = name, seq, fail_once_at
        self.applied: list[int] = []

    async def apply(self, records: list[LogRecord]) -> int:
        new = [r.seq for r in records if r.seq > self.seq]
        failing = self.fail_once_at is not None and self.fail_once_at in new
        if failing:  # what comes before it is applied, then the store fails
            new, self.fail_once_at = [s for s in new if s < (self.fail_once_at or 0)], None
        self.applied += new
        self.seq = max([self.seq, *new])
        if failing:
            raise OSError("the disk went away")
        return len(new)


def _log_from(records: int, reads: list[int]) -> Any:
    async def follow(js: Any, from_seq: int, **_: Any) -> AsyncIterator[list[LogRecord]]:
        reads.append(from_seq)
        for start in range(from_seq, records + 1, 3):
            yield [LogRecord(seq=s, subject="s", data=b"") for s in range(start, min(start + 3, records + 1))]
        await asyncio.Event().wait()  # tailing: nothing more arrives

    return follow


async def test_one_follower_feeds_both_projections_from_the_lower_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads: list[int] = []
    monkeypatch.setattr(follower_module, "follow", _log_from(12, reads))
    memory, code = Recorded("memory", 7), Recorded("code", 0, fail_once_at=5)
    follower = Follower(None, memory, code, retry_s=0.01)  # type: ignore[arg-type]
    follower.start()
    for _ in range(200):
        if memory.seq == code.seq == 12:
            break
        await asyncio.sleep(0.01)
    await follower.stop()
    assert memory.applied == list(range(8, 13))  # what it held already it never saw again
    assert code.applied == list(range(1, 13))  # the failure retried from its position: nothing lost or twice
    assert reads == [1, 5]  # from the lower position, and again from it after the failure
    assert follower.name == "memory+code" and [v.name for v in follower.views()] == ["memory", "code"]
