"""What a session was given as context holds across gateway replicas.

A hook's context request lands on any replica (a queue group over NATS, or a load balancer over
gRPC), and the agents keep what they were given in the conversation. So a prompt's context on one
replica leaves out what another replica gave the same session, once that replica's record of it
(``memories.recalled``, appended at once after a context) has reached LOG; and a session start on one
replica starts the record again on all of them. Two real gateway processes on one nats-server,
each on its own port, so each request goes where the test sends it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import nats
import pytest
from gatewaykit import META, gateways  # type: ignore[import-not-found]

from codememory.events import MemoriesRecalled, decode_envelope
from codememory.runtime.natsd import free_port
from codememory.topology import LOG
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc

FACTS = [
    "the payment client retries a failed call 3 times with jittered backoff",
    "payment retries stop at the first 4xx answer, only 5xx and timeouts are retried",
    "the retry budget of the payment client lives in payments/retry.py",
]
PROMPT = "how does the payment client retry failed calls?"
Stub = memory_pb2_grpc.MemoryServiceStub


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[str, Stub, Stub]]:
    addresses = [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]
    with gateways(tmp_path, addresses) as (url, _):
        channels = [grpc.insecure_channel(a) for a in addresses]
        try:
            yield url, Stub(channels[0]), Stub(channels[1])
        finally:
            for channel in channels:
                channel.close()


def _stored(text: str) -> pb.StoreRequest:
    return pb.StoreRequest(text=text, type="decision", scope=pb.Scope(repo="pay", session_id="s0"))


def _context(stub: Stub, session: str, prompt: str = "", budget: int = 1500) -> list[str]:
    request = pb.SessionContextRequest(repo="pay", session_id=session, prompt=prompt, budget_tokens=budget)
    return list(stub.SessionContext(request, metadata=META, timeout=20).memory_ids)


def _recorded(url: str, session: str, started_with: set[str]) -> int:
    """The LOG sequence of the ``memories.recalled`` event that says ``session`` started its record
    with just ``started_with`` (one replica's start), waited for."""

    def matches(event: object) -> bool:
        if not isinstance(event, MemoriesRecalled):
            return False
        ids = {a.memory_id for a in event.accesses if a.session_id == session and a.starts}
        return ids == started_with

    async def find() -> int:
        client = await nats.connect(url)
        try:
            js = client.jetstream()
            deadline, after = time.monotonic() + 20, 0
            while time.monotonic() < deadline:
                last = (await js.stream_info(LOG)).state.last_seq
                for seq in range(after + 1, last + 1):
                    if matches(decode_envelope((await js.get_msg(LOG, seq)).data).payload):
                        return seq
                after = last
                await asyncio.sleep(0.2)
            raise AssertionError(f"no start of {session} with {started_with} reached LOG")
        finally:
            await client.close()

    return asyncio.run(find())


def _level(stub: Stub, seq: int) -> None:
    """Until every projection of the replica behind ``stub`` has folded LOG up to ``seq``."""
    deadline = time.monotonic() + 20
    while min(p.seq for p in stub.Status(pb.StatusRequest(), metadata=META, timeout=10).projections) < seq:
        assert time.monotonic() < deadline, "the replica did not fold LOG"
        time.sleep(0.1)


def test_a_prompt_on_one_replica_leaves_out_what_another_gave(replicas: tuple[str, Stub, Stub]) -> None:
    url, a, b = replicas
    stored = {a.Store(_stored(fact), metadata=META, timeout=20).memory_id for fact in FACTS}
    _level(b, a.Status(pb.StatusRequest(), metadata=META, timeout=10).log_last_seq)

    started = _context(a, "s1")  # the session starts on replica a
    assert set(started) == stored
    _level(b, _recorded(url, "s1", stored))
    assert _context(b, "s1", PROMPT) == []  # b knows what a gave: nothing new is relevant
    assert set(_context(b, "s2", PROMPT)) == stored  # another session is given everything

    # the session starts again on b (after a compaction), in a budget that holds only some of them
    small = set(_context(b, "s1", budget=110))
    assert 1 <= len(small) < len(stored)
    _level(a, _recorded(url, "s1", small))
    # a forgets what it gave before that start: its prompt gives the rest again, and only the rest
    assert set(_context(a, "s1", PROMPT)) == stored - small
