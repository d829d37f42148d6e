"""The settler feeds the consumer metrics: every message counted once as handled and once as what it
became (acked, retried, dead-lettered), a batch's size and time observed, the lag JetStream reported."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

from prometheus_client import REGISTRY

from codememory.bus import ACK, Delivery, Outcome, Settler, dead
from codememory.bus.outcomes import Verdict


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


class Msg:
    def __init__(self, data: bytes, *, pending: int | None = None, attempt: int = 1) -> None:
        self.subject = "S.x"
        self.data = data
        self.headers: dict[str, str] | None = None
        self.settled: list[str] = []
        if pending is not None:
            self.metadata = SimpleNamespace(
                num_pending=pending,
                num_delivered=attempt,
                stream="S",
                sequence=SimpleNamespace(stream=7),
            )

    async def ack(self) -> None:
        self.settled.append("ack")

    async def nak(self, delay: float | None = None) -> None:
        self.settled.append("nak")

    async def in_progress(self) -> None:
        self.settled.append("in progress")


class Parked:
    def __init__(self) -> None:
        self.parked: list[str] = []

    async def park(self, delivery: Delivery, reason: str) -> None:
        self.parked.append(reason)


async def handler(batch: Sequence[Delivery]) -> list[Outcome]:
    outcomes = {b"bad": dead("poison"), b"later": Outcome(Verdict.RETRY, "flaky")}
    return [outcomes.get(d.data, ACK) for d in batch]


async def test_every_message_is_counted_by_what_it_became() -> None:
    labels = {"service": "metrics-test", "consumer": "durable-a"}
    before = {
        name: value(name, **labels)
        for name in (
            "codememory_messages_handled_total",
            "codememory_messages_acked_total",
            "codememory_messages_retried_total",
            "codememory_messages_dead_lettered_total",
            "codememory_batch_size_count",
            "codememory_batch_size_sum",
            "codememory_handler_seconds_count",
        )
    }
    settler = Settler(handler, Parked(), service="metrics-test", consumer="durable-a")
    batch = [Msg(b"a"), Msg(b"bad"), Msg(b"later"), Msg(b"b", pending=41)]
    await settler.settle(batch)

    def moved(name: str) -> float:
        return value(name, **labels) - before[name]

    assert moved("codememory_messages_handled_total") == 4
    assert moved("codememory_messages_acked_total") == 2
    assert moved("codememory_messages_retried_total") == 1
    assert moved("codememory_messages_dead_lettered_total") == 1
    assert moved("codememory_batch_size_count") == 1 and moved("codememory_batch_size_sum") == 4
    assert moved("codememory_handler_seconds_count") == 1
    assert value("codememory_consumer_lag", **labels) == 41  # num_pending of the batch's last message


async def test_a_batch_without_jetstream_metadata_leaves_the_lag_as_it_was() -> None:
    labels = {"service": "metrics-test", "consumer": "durable-b"}
    settler = Settler(handler, Parked(), service="metrics-test", consumer="durable-b")
    await settler.settle([Msg(b"a", pending=3)])
    await settler.settle([Msg(b"a")])  # a test-broker message: no figure, not a zero
    assert value("codememory_consumer_lag", **labels) == 3


async def test_a_handler_that_raises_still_has_its_batch_timed() -> None:
    labels = {"service": "metrics-test", "consumer": "durable-c"}

    async def broken(batch: Sequence[Delivery]) -> list[Outcome]:
        raise RuntimeError("bug")

    before = value("codememory_handler_seconds_count", **labels)
    settler = Settler(broken, Parked(), service="metrics-test", consumer="durable-c")
    await settler.settle([Msg(b"a"), Msg(b"b")])
    assert value("codememory_handler_seconds_count", **labels) == before + 1
    assert value("codememory_messages_retried_total", **labels) == 2


async def test_the_lag_is_reported_while_a_long_batch_is_still_being_handled() -> None:
    labels = {"service": "metrics-test", "consumer": "durable-d"}
    during: list[float] = []

    async def slow(batch: Sequence[Delivery]) -> list[Outcome]:
        during.append(value("codememory_consumer_lag", **labels))  # what a scrape sees meanwhile
        return [ACK for _ in batch]

    settler = Settler(slow, Parked(), service="metrics-test", consumer="durable-d")
    await settler.settle([Msg(b"a", pending=1476)])
    assert during == [1476]
