"""What recall returned is recorded in batches; a failed append keeps it for the next flush."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from codememory.events import Appended, Envelope, InMemoryEventLog, MemoriesRecalled, decode_envelope
from codememory.gateway.accesses import AccessRecorder


class FailsOnce(InMemoryEventLog):
    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def append(self, envelopes: Sequence[Envelope]) -> list[Appended]:
        if not self.failed:
            self.failed = True
            raise ConnectionError("LOG is gone")
        return await super().append(envelopes)


async def test_a_failed_append_keeps_the_accesses_for_the_next_flush() -> None:
    log = FailsOnce()
    recorder = AccessRecorder(log)
    recorder.note("t", ["a", "b"], session_id="s", purpose="context", starts=True, at=5.0)
    recorder.note("u", ["c"])
    assert await recorder.flush() == 0 and recorder.pending == 3
    assert await recorder.flush() == 3 and recorder.pending == 0
    events = [decode_envelope(r.data) for r in log.records]
    by_tenant = {e.tenant: e.payload for e in events}
    assert isinstance(by_tenant["t"], MemoriesRecalled) and isinstance(by_tenant["u"], MemoriesRecalled)
    assert [(a.memory_id, a.purpose, a.starts, a.at) for a in by_tenant["t"].accesses] == [
        ("a", "context", True, 5.0),
        ("b", "context", True, 5.0),
    ]
    assert [a.memory_id for a in by_tenant["u"].accesses] == ["c"]  # one event per tenant
    assert await recorder.flush() == 0  # nothing noted since: nothing written


class Gated(InMemoryEventLog):
    """The first append waits until the test opens the gate: a flush in flight; later ones do not."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()

    async def append(self, envelopes: Sequence[Envelope]) -> list[Appended]:
        if not self.entered.is_set():
            self.entered.set()
            await self.gate.wait()
        return await super().append(envelopes)


async def test_a_flush_returns_only_when_one_in_flight_has_appended_too() -> None:
    """What was noted before a flush is in LOG when it returns, even the part another flush took."""
    log = Gated()
    recorder = AccessRecorder(log)
    recorder.note("t", ["a"])
    first = asyncio.create_task(recorder.flush())
    await log.entered.wait()  # the first flush took "a" and is appending
    recorder.note("t", ["b"])
    second = asyncio.create_task(recorder.flush())
    await asyncio.sleep(0.05)
    assert not second.done() and not log.records  # waits for the one in flight
    log.gate.set()
    assert await second == 1 and await first == 1
    events = [decode_envelope(r.data).payload for r in log.records]
    assert [a.memory_id for e in events if isinstance(e, MemoriesRecalled) for a in e.accesses] == ["a", "b"]


async def test_a_wake_brings_the_next_flush_forward() -> None:
    recorder = AccessRecorder(InMemoryEventLog())
    loop = asyncio.get_running_loop()
    started = loop.time()
    waiting = asyncio.create_task(recorder.due(30.0))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    recorder.wake()  # a session context was noted
    await asyncio.wait_for(waiting, 5.0)
    assert loop.time() - started < 5.0
    again = loop.time()
    await recorder.due(0.2)  # woken once: the next wait is a whole tick again
    assert loop.time() - again >= 0.15
