"""Two gateway processes behind one address answer the same recall.

Each replica is ``python -m codememory.gateway.main`` with its own data directory (its own Qdrant
Edge shard and ordered consumers of LOG); both listen on the same port (SO_REUSEPORT: the kernel
hands each new connection to one of them). Memories stored through the shared address reach both
projections through LOG; then every fresh connection, whichever process it lands on, recalls the
same ids in the same order, and both processes answer some of them.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from gatewaykit import META, gateways  # type: ignore[import-not-found]

from codememory.runtime.natsd import free_port
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc

FRESH = [("grpc.use_local_subchannel_pool", 1)]  # a new connection per channel, never a shared one
FACTS = [
    "tokens are validated in the auth middleware, never in handlers",
    "the payment retry budget is three attempts with jittered backoff",
    "cache invalidation happens in cache/evict.py on every write",
    "we round invoice amounts half-even in billing/money.py",
    "the deploy pipeline pins nats-server 2.10 in the base image",
]


def _stub(channel: grpc.Channel) -> memory_pb2_grpc.MemoryServiceStub:
    return memory_pb2_grpc.MemoryServiceStub(channel)


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    address = f"127.0.0.1:{free_port()}"
    with gateways(tmp_path, [address, address]) as (_, processes):
        yield address, processes


def test_two_replicas_on_one_address_answer_the_same_recall(
    replicas: tuple[str, list[subprocess.Popen[bytes]]],
) -> None:
    address, processes = replicas
    pids = {p.pid for p in processes}
    with grpc.insecure_channel(address, options=FRESH) as channel:
        stored = [
            _stub(channel).Store(pb.StoreRequest(text=f), metadata=META, timeout=20).memory_id for f in FACTS
        ]

    caught_up: set[int] = set()  # replicas seen level with LOG (every one follows LOG itself)
    deadline = time.monotonic() + 20
    while caught_up != pids:
        assert time.monotonic() < deadline, f"replicas caught up: {caught_up} of {pids}"
        with grpc.insecure_channel(address, options=FRESH) as channel:
            status = _stub(channel).Status(pb.StatusRequest(), metadata=META, timeout=10)
        if status.caught_up and status.memories == len(FACTS) and status.serving:
            caught_up.add(status.pid)

    answers: dict[int, list[list[str]]] = {}
    query = pb.RecallRequest(query="where are tokens validated and how do we retry payments", limit=5)
    for _ in range(40):
        with grpc.insecure_channel(address, options=FRESH) as channel:  # one connection: one process
            pid = _stub(channel).Status(pb.StatusRequest(), metadata=META, timeout=10).pid
            hits = _stub(channel).Recall(query, metadata=META, timeout=10).hits
        answers.setdefault(pid, []).append([h.memory.id for h in hits])
    assert set(answers) == pids, f"connections landed on {set(answers)} only"
    every = [ids for per_pid in answers.values() for ids in per_pid]
    assert set(stored[:2]) <= set(every[0]) <= set(stored)  # the two facts asked about, at least
    assert all(ids == every[0] for ids in every), every
