"""LOG read in batches (replay's reader) on a real nats-server: in order, bounded, all of a range."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from nats.js.client import JetStreamContext

from codememory.bus import JetStreamEventLog
from codememory.bus.logbatches import follow, read_batches
from codememory.events import MemoryStored, decode_envelope, new_envelope


async def _fill(log: JetStreamEventLog, n: int, pad: int = 0) -> None:
    envelopes = [
        new_envelope(
            MemoryStored(memory_id=str(uuid.uuid4()), text=f"m{i}" + " x" * pad),
            event_id=str(uuid.uuid4()),
            tenant="t",
        )
        for i in range(n)
    ]
    for start in range(0, n, 500):
        await log.append(envelopes[start : start + 500])


async def test_every_event_of_a_range_in_order_in_bounded_batches(js: JetStreamContext) -> None:
    log = JetStreamEventLog(js)
    await _fill(log, 2300)
    batches = [b async for b in log.read_batches(101, until_seq=2250, batch=500)]
    assert [len(b) for b in batches] == [500, 500, 500, 500, 150]
    seqs = [r.seq for b in batches for r in b]
    assert seqs == list(range(101, 2251))
    texts = [decode_envelope(r.data).payload.text for r in batches[0][:2]]  # type: ignore[union-attr]
    assert texts == ["m100", "m101"]
    assert [b async for b in log.read_batches(5, until_seq=4)] == []  # an empty range


async def test_a_slow_reader_holds_the_server_back_and_still_gets_everything(js: JetStreamContext) -> None:
    log = JetStreamEventLog(js)
    await _fill(log, 3000)
    seen = 0
    async for batch in read_batches(js, 1, 3000, batch=100, ahead=1):
        seen += len(batch)
        await asyncio.sleep(0.001)
    assert seen == 3000


async def test_a_reader_slower_than_the_server_loses_nothing_when_the_client_queue_is_small(
    js: JetStreamContext,
) -> None:
    """nats-py drops what its queue for the callback cannot hold and counts it delivered: a callback
    that waited for the reader lost events this way (3,587 of a 1,000,000-event replay). Here the
    queue holds 256 KB and LOG ~1.2 MB: the consumer pauses instead, every event comes once, in order."""
    log = JetStreamEventLog(js)
    await _fill(log, 2000, pad=300)
    seqs: list[int] = []
    async for batch in read_batches(js, 1, 2000, batch=100, ahead=2, pending_bytes=256 * 1024):
        seqs += [r.seq for r in batch]
        await asyncio.sleep(0.01)  # the fold, in a thread: the event loop reads on meanwhile
    assert seqs == list(range(1, 2001))


async def test_messages_the_client_dropped_are_read_again(
    js: JetStreamContext, caplog: pytest.LogCaptureFixture
) -> None:
    """A queue of 40 messages makes nats-py drop part of a socket read: the gaps in the consumer's
    delivery sequence are seen and the read starts again from the first record missing (a dropped
    tail, with no later message to show it, once nothing came for ``idle_s``)."""
    log = JetStreamEventLog(js)
    await _fill(log, 400, pad=20)
    read = read_batches(js, 1, 400, batch=50, idle_s=0.2, pending_msgs=40)
    seqs = [r.seq async for b in read for r in b]
    assert "slow consumer" in caplog.text  # nats-py did drop some
    assert seqs == list(range(1, 401))


async def test_nothing_arriving_is_a_timeout_not_a_hang(js: JetStreamContext) -> None:
    log = JetStreamEventLog(js)
    await _fill(log, 10)
    with pytest.raises(TimeoutError):
        async for _ in read_batches(js, 1, 50, batch=100, idle_s=0.5):  # LOG ends at 10
            pass


def test_both_sequences_are_read_from_either_form_of_the_reply() -> None:
    from nats.aio.msg import Msg

    from codememory.bus.logbatches import _sequences

    v1 = "$JS.ACK.LOG.c1.1.4242.17.1732450000000000000.3"
    v2 = "$JS.ACK.hub.ACCHASH.LOG.c1.1.4243.18.1732450000000000000.3.rand"
    assert _sequences(Msg(_client=None, subject="log.x", reply=v1)) == (4242, 17)  # type: ignore[arg-type]
    assert _sequences(Msg(_client=None, subject="log.x", reply=v2)) == (4243, 18)  # type: ignore[arg-type]


async def test_following_yields_everything_in_order_and_a_lone_event_at_once(js: JetStreamContext) -> None:
    log = JetStreamEventLog(js)
    await _fill(log, 2000)
    seqs: list[int] = []
    stream = follow(js, 11, batch=300, ahead=2)
    async for batch in stream:
        assert 0 < len(batch) <= 300
        seqs += [r.seq for r in batch]
        await asyncio.sleep(0.002)  # a slow follower: the consumer pauses, nothing is dropped
        if seqs[-1] >= 2000:
            break
    assert seqs == list(range(11, 2001))
    await _fill(log, 1)
    lone = await asyncio.wait_for(anext(stream), 5)
    assert [r.seq for r in lone] == [2001]
    await stream.aclose()
