"""The supervised stack under faults: replicas and the server SIGKILLed while hooks publish.

``codememory up --scale ingest=2,embed=2`` runs nats-server and every replica as separate processes.
While the real hook code publishes distinct prompts, a killer SIGKILLs a random service replica every
couple of seconds, then the nats-server itself; afterwards every prompt is exactly one memory (0 lost,
0 doubled), the DLQ is empty, and a replay rebuilds projections equal to the live ones by digest. A
LOG that refuses appends (full) holds hooks back without dead-lettering any of them.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator

import nats
import pytest

from codememory.bus import DLQ, HOOKS, LOG
from codememory.events import PromptSubmitted, decode_envelope
from codememory.hookclient import HookSettings
from codememory.hookclient.runner import run_hook
from codememory.hookclient.spool import Spool
from codememory.runtime.supervisor import read_processes
from codememory.sealing import FileKeyStore, Sealer
from codememory.v1 import memory_pb2 as pb
from conftest import Stack, launch, shutdown  # type: ignore[import-not-found]

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    running = launch(tmp_path_factory.mktemp("cluster"), "--scale", "ingest=2,embed=2")
    yield running
    shutdown(running)


def _hooks(stack: Stack) -> HookSettings:
    return HookSettings.from_env({"CODEMEMORY_HOME": str(stack.home)}).replace(context_timeout_s=0.05)


def publish_prompts(stack: Stack, tag: str, count: int, pause_s: float = 0.02) -> list[str]:
    prompts = [f"{tag} prompt {n}: remember the {tag} rule number {n}" for n in range(count)]
    settings = _hooks(stack)
    for n, prompt in enumerate(prompts):
        payload = {"hook_event_name": "UserPromptSubmit", "session_id": f"{tag}-{n % 7}", "prompt": prompt}
        run_hook("claude", json.dumps(payload).encode(), settings)
        time.sleep(pause_s)
    return prompts


async def _log_prompts(stack: Stack) -> Counter[str]:
    nc = await nats.connect(stack.nats_url)
    js = nc.jetstream()
    seen: Counter[str] = Counter()
    keys = Sealer(FileKeyStore(stack.home / "keys"))  # prompts are sealed in LOG: the stack's keys open them
    last = (await js.stream_info(LOG)).state.last_seq
    sub = await js.pull_subscribe("cm.log.*.prompt.submitted", stream=LOG)
    done = 0
    while done < last:
        try:
            msgs = await sub.fetch(500, timeout=2)
        except Exception:
            break
        for msg in msgs:
            payload = keys.open(decode_envelope(msg.data)).payload
            assert isinstance(payload, PromptSubmitted)
            seen[payload.prompt] += 1
            done = msg.metadata.sequence.stream
            await msg.ack()
    await nc.close()
    return seen


async def _stream_messages(stack: Stack, name: str) -> int:
    nc = await nats.connect(stack.nats_url)
    try:
        return int((await nc.jetstream().stream_info(name)).state.messages)
    finally:
        await nc.close()


def wait_settled(stack: Stack, timeout: float = 240) -> pb.StatusResponse:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return stack.wait_caught_up(timeout=5)
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def test_every_event_becomes_one_memory_while_replicas_are_killed(cluster: Stack) -> None:
    killed: list[str] = []
    stop = threading.Event()

    def killer() -> None:
        rng = random.Random(7)
        while not stop.wait(2.5):
            rows = [r for r in read_processes(cluster.home) if r["service"] != "nats" and r["pid"]]
            if rows:
                victim = rng.choice(rows)
                os.kill(int(victim["pid"]), signal.SIGKILL)  # type: ignore[call-overload]
                killed.append(f"{victim['service']}-{victim['replica']}")

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        prompts = publish_prompts(cluster, "kill", 300)
    finally:
        stop.set()
        thread.join()
    assert len(killed) >= 3
    status = wait_settled(cluster)
    seen = asyncio.run(_log_prompts(cluster))
    assert all(seen[p] == 1 for p in prompts), [p for p in prompts if seen[p] != 1][:5]
    assert asyncio.run(_stream_messages(cluster, DLQ)) == 0
    assert status.memories >= len(prompts)
    restarts = {f"{r['service']}-{r['replica']}": r["restarts"] for r in read_processes(cluster.home)}
    assert sum(int(v) for v in restarts.values()) >= len(killed)  # type: ignore[call-overload]
    replay = cluster.cli_json("replay")
    assert replay["digest_before"] == replay["digest_after"]


def test_a_killed_nats_server_loses_no_acknowledged_hook(cluster: Stack) -> None:
    stop = threading.Event()

    def kill_server() -> None:
        if stop.wait(1.5):
            return
        rows = [r for r in read_processes(cluster.home) if r["service"] == "nats"]
        os.kill(int(rows[0]["pid"]), signal.SIGKILL)  # type: ignore[call-overload]

    thread = threading.Thread(target=kill_server)
    thread.start()
    prompts = publish_prompts(cluster, "server", 150, pause_s=0.03)
    stop.set()
    thread.join()
    nats_row = next(r for r in read_processes(cluster.home) if r["service"] == "nats")
    assert int(nats_row["restarts"]) >= 1  # type: ignore[call-overload]
    spool = Spool(_hooks(cluster).spool_path)
    deadline = time.monotonic() + 60
    while spool.has_pending():  # `up` publishes what hooks spooled during the outage, in order
        assert time.monotonic() < deadline, "the spool was not flushed"
        time.sleep(0.5)
    wait_settled(cluster)
    seen = asyncio.run(_log_prompts(cluster))
    assert all(seen[p] == 1 for p in prompts), [p for p in prompts if seen[p] != 1][:5]
    assert asyncio.run(_stream_messages(cluster, DLQ)) == 0


def test_a_full_log_holds_hooks_back_without_dead_lettering_them(cluster: Stack) -> None:
    async def limit(max_msgs: int | None) -> None:
        nc = await nats.connect(cluster.nats_url)
        js = nc.jetstream()
        config = (await js.stream_info(LOG)).config
        full = (await js.stream_info(LOG)).state.messages
        config.max_msgs = full if max_msgs is None else max_msgs
        await js.update_stream(config)
        await nc.close()

    asyncio.run(limit(None))
    try:
        prompts = publish_prompts(cluster, "full", 20)
        time.sleep(8)  # longer than max_deliver attempts at the first backoff steps
        assert asyncio.run(_stream_messages(cluster, HOOKS)) > 0  # held, not acked
        assert asyncio.run(_stream_messages(cluster, DLQ)) == 0
    finally:
        asyncio.run(limit(-1))
    wait_settled(cluster)
    seen = asyncio.run(_log_prompts(cluster))
    assert all(seen[p] == 1 for p in prompts)
    assert asyncio.run(_stream_messages(cluster, DLQ)) == 0
