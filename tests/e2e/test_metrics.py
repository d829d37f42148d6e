"""Prometheus metrics from a real stack: hooks flow through ingest and embed, recall and a failing call
reach the gateway, a malformed hook message is dead-lettered, and the scraped counters moved by as much;
``codememory status`` prints the headline figures. With ``--scale`` each process serves its own
endpoint and the figures are the sum of them.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator

import grpc
import nats
import pytest

from codememory.metrics.headline import Series, parse, scrape, total
from codememory.runtime.supervisor import read_processes
from codememory.topology import SERVICES
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from conftest import Stack, launch, shutdown  # type: ignore[import-not-found]

pytestmark = pytest.mark.e2e

RECALL = "/codememory.v1.MemoryService/Recall"
HISTORY = "/codememory.v1.MemoryService/History"


def metrics_urls(stack: Stack, timeout_s: float = 60.0) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        urls = json.loads((stack.home / "runtime.json").read_text()).get("metrics_urls")
        if urls:
            return [str(u) for u in urls]
        time.sleep(0.2)
    raise AssertionError("codememory up recorded no metrics_urls in runtime.json")


def scraped(urls: list[str]) -> Series:
    return parse([scrape(url) for url in urls])


def prompt(stack: Stack, text: str, session: str = "metrics-session") -> None:
    payload = {"session_id": session, "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": text}
    stack.hook("claude", json.dumps(payload).encode())


def publish_garbage(url: str) -> None:
    async def go() -> None:
        nc = await nats.connect(url)
        body = f"not json {uuid.uuid4()}".encode()
        await nc.jetstream().publish(
            "cm.hooks.local.claude.Broken", body, headers={"Nats-Msg-Id": str(uuid.uuid4())}
        )
        await nc.close()

    asyncio.run(go())


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    running = launch(tmp_path_factory.mktemp("metricshome"))
    try:
        yield running
    finally:
        shutdown(running)


def test_counters_move_as_hooks_and_calls_flow(one_process: Stack) -> None:
    stack = one_process
    urls = metrics_urls(stack)
    assert len(urls) == 1 and urls[0].startswith("http://127.0.0.1:")  # one process, one endpoint
    stack.wait_caught_up()
    before = scraped(urls)

    for n in range(5):
        prompt(stack, f"metrics prompt number {n} about the payment gateway {uuid.uuid4().hex[:6]}")
    publish_garbage(stack.nats_url)
    stack.wait_caught_up()
    stub = memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(stack.grpc_address))
    meta = (("authorization", f"Bearer {stack.token()}"),)
    stub.Recall(pb.RecallRequest(query="payment gateway", limit=5), metadata=meta, timeout=30)
    stub.Recall(pb.RecallRequest(query="metrics prompt", limit=5), metadata=meta, timeout=30)
    with pytest.raises(grpc.RpcError) as refused:
        stub.History(pb.HistoryRequest(memory_id=str(uuid.uuid4())), metadata=meta, timeout=30)
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND, refused.value.details()
    after = scraped(urls)

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    # context.abort sends the status to the client before it raises, so the interceptor counts an
    # aborted call just after the client has its answer: the counter is read until it moves.
    deadline = time.monotonic() + 10
    while not moved("codememory_grpc_requests_total", method=HISTORY, code="NOT_FOUND"):
        assert time.monotonic() < deadline, "the aborted History call was never counted"
        time.sleep(0.1)
        after = scraped(urls)

    ingest = {"service": "ingest", "consumer": "ingest"}
    assert moved("codememory_messages_handled_total", **ingest) == 6  # five prompts and the garbage
    assert moved("codememory_messages_acked_total", **ingest) == 5
    assert moved("codememory_messages_dead_lettered_total", **ingest) == 1
    assert moved("codememory_handler_seconds_count", **ingest) >= 1
    assert moved("codememory_batch_size_sum", **ingest) == 6
    assert moved("codememory_messages_handled_total", service="embed", consumer="embed") >= 5
    assert total(after, "codememory_consumer_lag", **ingest) == 0
    assert moved("codememory_embedding_batch_seconds_count", caller="store") >= 1
    assert moved("codememory_embedding_batch_seconds_count", caller="query") >= 2
    assert moved("codememory_grpc_requests_total", method=RECALL, code="OK") == 2
    assert moved("codememory_grpc_request_seconds_count", method=RECALL) == 2
    assert moved("codememory_grpc_requests_total", method=HISTORY, code="NOT_FOUND") == 1
    status = stack.wait_caught_up()

    def level(series: Series) -> bool:  # the projection at LOG's end as the watchdog last read it
        seq = total(series, "codememory_projection_sequence", projection="memory")
        lag = total(series, "codememory_projection_lag", projection="memory")
        return seq == total(series, "codememory_log_last_sequence") and lag == 0

    deadline = time.monotonic() + 10  # LOG's last sequence is read every second (recall appends too)
    while not level(after) and time.monotonic() < deadline:
        time.sleep(0.2)
        after = scraped(urls)
    assert level(after)
    assert total(after, "codememory_projection_sequence", projection="memory") >= status.projection_seq > 0


def test_status_prints_the_headline_figures(one_process: Stack) -> None:
    prompt(one_process, f"one more prompt for the status figures {uuid.uuid4().hex[:6]}")
    one_process.wait_caught_up()
    text = one_process.cli("status").stdout.decode()
    assert "handled:" in text and "/s" in text
    assert "handler latency: p50" in text and "ms" in text.split("handler latency:")[1]
    assert "dead-lettered" in text and "lag: consumers" in text
    figures = one_process.cli_json("status")["metrics"]
    assert figures["handled"] >= 7 and figures["dead_lettered"] >= 1
    assert figures["handler_p50_ms"] is not None and figures["handler_p99_ms"] >= figures["handler_p50_ms"]


def test_each_supervised_process_serves_its_own_endpoint(tmp_path_factory: pytest.TempPathFactory) -> None:
    stack = launch(tmp_path_factory.mktemp("metricsscale"), "--scale", "ingest=2")
    try:
        urls = metrics_urls(stack)
        replicas = [p for p in read_processes(stack.home) if p["service"] != "nats"]
        assert len(replicas) == sum(2 if s.name == "ingest" else 1 for s in SERVICES)
        assert len(urls) == len(set(urls)) == len(replicas)  # one endpoint per process, each its own port
        stack.wait_caught_up()
        for n in range(8):
            prompt(stack, f"scaled prompt {n} {uuid.uuid4().hex[:6]}", session="scaled")
        stack.wait_caught_up()
        per_process = [parse([scrape(url)]) for url in urls]
        handled = [total(s, "codememory_messages_handled_total", service="ingest") for s in per_process]
        assert (
            sum(handled) == 8 and sum(1 for h in handled if h) >= 1
        )  # every prompt counted once, in its replica
        assert sum(1 for s in per_process if total(s, "codememory_grpc_requests_total")) >= 1  # the gateway's
    finally:
        shutdown(stack)
