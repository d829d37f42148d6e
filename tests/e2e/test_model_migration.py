"""A model migration on a real stack: MiniLM to all-mpnet-base-v2 and back, recall answering throughout.

``codememory up`` with the real models; the tenant is small (24 memories) so the backfill takes seconds.
Recall runs in a thread the whole time and must never fail or come back empty. After the switch the
gateway embeds queries with mpnet and its index holds mpnet's 768-dimension vectors (LOG has one per
memory); switching back to MiniLM appends no embedding event (its vectors were in LOG all along).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import grpc
import pytest

from codememory.v1 import memory_pb2 as pb
from codememory.v1 import models_pb2 as mpb
from codememory.v1 import models_pb2_grpc
from conftest import Stack, launch, shutdown  # type: ignore[import-not-found]

MPNET = "sentence-transformers/all-mpnet-base-v2"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
TOPICS = ["retry", "cache", "deploy", "token", "schema", "queue"]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    running = launch(tmp_path_factory.mktemp("migration"))
    yield running
    shutdown(running)


def _meta(stack: Stack) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {stack.token()}"),)


def _embedded_events(stack: Stack) -> list[dict]:  # type: ignore[type-arg]
    lines = stack.cli("log", "--json", "--limit", "100000").stdout.splitlines()
    events = [json.loads(line) for line in lines]
    return [e for e in events if e["payload"].get("type") == "memory.embedded"]


class Recaller(threading.Thread):
    """Recall, over and over, until stopped; every failure and every empty answer is kept."""

    def __init__(self, stack: Stack) -> None:
        super().__init__(daemon=True)
        self._stub = stack.stub()
        self._meta = _meta(stack)
        self.stop = threading.Event()
        self.failures: list[str] = []
        self.answers = 0

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            topic = TOPICS[n % len(TOPICS)]
            n += 1
            try:
                reply = self._stub.Recall(
                    pb.RecallRequest(query=f"{topic} handling", limit=3), metadata=self._meta, timeout=10
                )
                if not reply.hits:
                    self.failures.append(f"no hits for {topic}")
                self.answers += 1
            except grpc.RpcError as exc:
                self.failures.append(f"{exc.code().name}: {exc.details()}")
            time.sleep(0.05)


def _switch(stack: Stack, model: str) -> mpb.MigrationStatus:
    stub = models_pb2_grpc.ModelServiceStub(grpc.insecure_channel(stack.grpc_address))
    status = stub.Reembed(mpb.ReembedRequest(model=model), metadata=_meta(stack), timeout=30)
    deadline = time.monotonic() + 180
    while status.phase not in ("switched", "failed") and time.monotonic() < deadline:
        time.sleep(0.2)
        status = stub.ModelStatus(mpb.ModelStatusRequest(), metadata=_meta(stack), timeout=10)
    return status


def test_migrate_to_mpnet_and_back_without_downtime(stack: Stack) -> None:
    stub = stack.stub()
    for i in range(24):
        topic = TOPICS[i % len(TOPICS)]
        stub.Store(
            pb.StoreRequest(text=f"note {i}: {topic} handling lives in module_{i}.py"),
            metadata=_meta(stack),
            timeout=30,
        )
    stack.wait_caught_up()
    before = _embedded_events(stack)
    assert {e["payload"]["model"] for e in before} == {MINILM} and len(before) == 24

    recaller = Recaller(stack)
    recaller.start()
    try:
        status = _switch(stack, "all-mpnet-base-v2")
        assert status.phase == "switched", status.error
        assert (status.active_model, status.active_dim) == (MPNET, 768)
        assert status.embedded >= 24
        time.sleep(1.0)  # recall keeps answering after the switch too
    finally:
        recaller.stop.set()
        recaller.join(timeout=30)
    assert recaller.failures == [] and recaller.answers > 10

    mpnet = [e for e in _embedded_events(stack) if e["payload"]["model"] == MPNET]
    assert len({e["payload"]["memory_id"] for e in mpnet}) == 24
    assert {len(e["payload"]["vector"]) for e in mpnet} == {768}
    assert stack.cli_json("status")["model"] == MPNET
    hit = stub.Recall(
        pb.RecallRequest(query="where is the retry handling", limit=1), metadata=_meta(stack), timeout=10
    ).hits[0]
    assert hit.score.dense > 0.3  # a 768-dimension query met 768-dimension vectors

    # a memory stored now gets both models' vectors (so either model can serve it)
    stub.Store(
        pb.StoreRequest(text="note 24: queue handling lives in module_24.py"),
        metadata=_meta(stack),
        timeout=30,
    )
    stack.wait_caught_up()
    count = len(_embedded_events(stack))
    assert count == 24 + 24 + 2

    started = time.monotonic()
    back = _switch(stack, "all-MiniLM-L6-v2")
    assert back.phase == "switched" and (back.active_model, back.active_dim) == (MINILM, 384)
    assert time.monotonic() - started < 20
    stack.wait_caught_up()
    assert len(_embedded_events(stack)) == count  # switching back embedded nothing
    assert stack.cli_json("status")["model"] == MINILM
    assert "384 dimensions" in stack.cli("reembed", "--status").stdout.decode()
