"""The settler's own rules, caused with messages whose ack, nak or dead-letter publish fails, and with a
batch cancelled while its handler works.

A failing ack must not end the loop (the message is redelivered later and the handler is
idempotent); a dead letter that cannot be published is nak'ed, never acked (so it is not lost).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from codememory.bus import ACK, Delivery, Outcome, Settler, dead
from codememory.bus.app import STOP_WAIT_S, stop_wait_s
from codememory.settings import SettingsError


class Msg:
    def __init__(self, data: bytes, *, ack_fails: bool = False, nak_fails: bool = False) -> None:
        self.subject = "S.x"
        self.data = data
        self.headers: dict[str, str] | None = None
        self.ack_fails = ack_fails
        self.nak_fails = nak_fails
        self.settled: list[str] = []

    async def ack(self) -> None:
        if self.ack_fails:
            raise ConnectionError("connection closed while acking")
        self.settled.append("ack")

    async def nak(self, delay: float | None = None) -> None:
        if self.nak_fails:
            raise ConnectionError("connection closed while nak'ing")
        self.settled.append("nak")

    async def in_progress(self) -> None:
        self.settled.append("in progress")


class FailingDeadLetters:
    async def park(self, delivery: Delivery, reason: str) -> None:
        raise TimeoutError("DLQ publish timed out")


async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
    return [dead("bad") if d.data == b"bad" else ACK for d in batch]


async def test_a_failing_ack_or_dead_letter_publish_does_not_end_the_batch() -> None:
    settler = Settler(handler, FailingDeadLetters(), service="t")
    first, bad, last = Msg(b"a", ack_fails=True), Msg(b"bad"), Msg(b"c")
    await settler.settle([first, bad, last])
    assert first.settled == []  # its ack failed: left for redelivery
    assert bad.settled == ["nak"]  # its dead letter could not be parked: kept, not acked
    assert last.settled == ["ack"]  # the rest of the batch was settled regardless
    await settler.settle([Msg(b"d")])  # and the settler goes on with the next batch
    assert settler.acked == 2 and settler.dead_lettered == 0


async def test_a_batch_cancelled_mid_handling_is_handed_back_and_the_cancellation_goes_on() -> None:
    started = asyncio.Event()

    async def stuck(batch: Sequence[Delivery]) -> list[Outcome]:
        started.set()
        await asyncio.sleep(60)
        return [ACK for _ in batch]

    settler = Settler(stuck, FailingDeadLetters(), service="t", progress_s=10.0)
    first, closing, last = Msg(b"a"), Msg(b"b", nak_fails=True), Msg(b"c")
    task = asyncio.create_task(settler.settle([first, closing, last]))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert first.settled == ["nak"] and last.settled == ["nak"]  # taken again at once
    assert closing.settled == []  # its nak failed: the ack wait brings it back
    assert settler.acked == 0


def test_the_stop_wait_is_read_from_the_environment_and_checked() -> None:
    assert stop_wait_s({}) == STOP_WAIT_S
    assert stop_wait_s({"CODEMEMORY_STOP_WAIT_S": "0"}) == 0.0
    assert stop_wait_s({"CODEMEMORY_STOP_WAIT_S": "12.5"}) == 12.5
    assert stop_wait_s({"CODEMEMORY_WAIT_S": "99"}) == STOP_WAIT_S  # another setting's name
    for bad in ("-1", "soon", "nan"):
        with pytest.raises(SettingsError, match="CODEMEMORY_STOP_WAIT_S"):
            stop_wait_s({"CODEMEMORY_STOP_WAIT_S": bad})
