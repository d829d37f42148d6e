"""The supervised stack for the cluster and fault benchmarks: start it, publish hooks, count LOG.

``codememory up --scale ...`` in a temp home (real nats-server, one OS process per replica); hooks go
through the hook's own publish path in-process (``run_hook``), as a hook process would send them.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nats

from codememory.hookclient import HookSettings, run_hook
from codememory.hookclient.message import build_message

BIN = Path(sys.executable).parent


@dataclass
class Running:
    home: Path
    process: subprocess.Popen[bytes]
    nats_url: str
    grpc_address: str
    env: dict[str, str]

    def hooks(self) -> HookSettings:
        return HookSettings.from_env({"CODEMEMORY_HOME": str(self.home)}).replace(context_timeout_s=0.05)

    def status(self) -> Any:
        import grpc

        from codememory.v1 import memory_pb2 as pb
        from codememory.v1 import memory_pb2_grpc

        token = (self.home / "token").read_text().strip()
        with grpc.insecure_channel(self.grpc_address) as channel:
            stub = memory_pb2_grpc.MemoryServiceStub(channel)
            return stub.Status(
                pb.StatusRequest(), metadata=(("authorization", f"Bearer {token}"),), timeout=10
            )

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start(home: Path, *up_args: str, env: dict[str, str] | None = None) -> Running:
    full = {
        **os.environ,
        "CODEMEMORY_HOME": str(home),
        "CODEMEMORY_UP_GRPC_LISTEN": "127.0.0.1:0",
        **(env or {}),
    }
    full.pop("CODEMEMORY_NATS_URL", None)
    with (home / "up.log").open("ab") as log:
        process = subprocess.Popen(
            [str(BIN / "codememory"), "up", *up_args], env=full, stdout=log, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + 300
    while not (home / "runtime.json").is_file():
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"codememory up failed:\n{(home / 'up.log').read_text()[-3000:]}")
        time.sleep(0.2)
    runtime = json.loads((home / "runtime.json").read_text())
    # the stack's admin (secrets/bus.json): the benchmark publishes and counts as an operator
    password = json.loads((home / "secrets" / "bus.json").read_text())["passwords"]["admin"]
    scheme, _, address = runtime["nats_url"].partition("://")
    return Running(home, process, f"{scheme}://admin:{password}@{address}", runtime["grpc_address"], full)


def prompt_payload(tag: str, n: int) -> bytes:
    prompt = f"{tag} prompt {n}: the {tag} rule number {n} says retry {n % 5} times"
    return json.dumps(
        {"hook_event_name": "UserPromptSubmit", "session_id": f"{tag}-{n % 11}", "prompt": prompt}
    ).encode()


def prompt_text(tag: str, n: int) -> str:
    return json.loads(prompt_payload(tag, n))["prompt"]


def publish(running: Running, tag: str, count: int, *, rate: float = 0.0) -> float:
    """Publish ``count`` prompts (at ``rate`` per second, or as fast as the hook path goes); seconds.

    Each goes through the hook's own publish path (``run_hook``: redact, trim, stamp, JetStream ack).
    """
    settings = running.hooks()
    started = time.perf_counter()
    for n in range(count):
        run_hook("claude", prompt_payload(tag, n), settings)
        if rate:
            time.sleep(max(0.0, started + (n + 1) / rate - time.perf_counter()))
    return time.perf_counter() - started


async def _publish_messages(nats_url: str, tag: str, count: int, rate: float) -> float:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    started = time.perf_counter()
    pending = []
    for n in range(count):
        message = build_message("claude", prompt_payload(tag, n), tenant="local", max_field=4096)
        pending.append(js.publish(message.subject, message.data, headers={"Nats-Msg-Id": message.msg_id}))
        if len(pending) >= 64 or rate:
            await asyncio.gather(*pending)
            pending = []
        if rate:
            await asyncio.sleep(max(0.0, started + (n + 1) / rate - time.perf_counter()))
    await asyncio.gather(*pending)
    await nc.close()
    return time.perf_counter() - started


def publish_messages(running: Running, tag: str, count: int, *, rate: float = 0.0) -> float:
    """The messages a prompt hook publishes, without the hook's session-context request (which waits
    on the gateway's recall): what the event path is given, as fast as JetStream acks them."""
    return asyncio.run(_publish_messages(running.nats_url, tag, count, rate))


async def _count(nats_url: str, subject: str, key: str) -> Counter[str]:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    seen: Counter[str] = Counter()
    last = (await js.stream_info("LOG")).state.last_seq
    sub = await js.pull_subscribe(subject, stream="LOG")
    while True:
        try:
            msgs = await sub.fetch(1000, timeout=1.5)
        except Exception:
            break
        for msg in msgs:
            body = json.loads(msg.data)
            seen[str(body["payload"].get(key, ""))] += 1
            await msg.ack()
        if msgs and msgs[-1].metadata.sequence.stream >= last:
            break
    await sub.unsubscribe()
    await nc.close()
    return seen


def prompts_in_log(running: Running) -> Counter[str]:
    return asyncio.run(_count(running.nats_url, "cm.log.*.prompt.submitted", "prompt"))


def embedded_in_log(running: Running) -> int:
    return sum(asyncio.run(_count(running.nats_url, "cm.log.*.memory.embedded", "memory_id")).values())


async def _lag(nats_url: str) -> dict[str, int]:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    lag: dict[str, int] = {}
    for stream, durable in (("HOOKS", "ingest"), ("LOG", "embed"), ("LOG", "graph")):
        info = await js.consumer_info(stream, durable)
        lag[durable] = int(info.num_pending or 0) + int(info.num_ack_pending or 0)
    lag["dlq"] = int((await js.stream_info("DLQ")).state.messages)
    await nc.close()
    return lag


def lag(running: Running) -> dict[str, int]:
    return asyncio.run(_lag(running.nats_url))
