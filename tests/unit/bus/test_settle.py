"""The settler's own rules, caused with messages whose ack or dead-letter publish fails.

A failing ack must not end the loop (the message is redelivered later and the handler is
idempotent); a dead letter that cannot be published is nak'ed, never acked (so it is not lost).
"""

from __future__ import annotations

from collections.abc import Sequence

from codememory.bus import ACK, Delivery, Outcome, Settler, dead


class Msg:
    def __init__(self, data: bytes, *, ack_fails: bool = False) -> None:
        self.subject = "S.x"
        self.data = data
        self.headers: dict[str, str] | None = None
        self.ack_fails = ack_fails
        self.settled: list[str] = []

    async def ack(self) -> None:
        if self.ack_fails:
            raise ConnectionError("connection closed while acking")
        self.settled.append("ack")

    async def nak(self, delay: float | None = None) -> None:
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
