"""The supervised stack's event path: throughput by embed replicas, lag under steady load, and what
``sync_interval: always`` costs.

1. Throughput: ``codememory up --scale ingest=2,embed=N`` for N in 1, 2, 4, ``--events`` distinct
   prompt hook messages published to HOOKS as fast as JetStream acks them (the hook's bytes, without
   its session-context request); seconds from the first publish to every
   memory embedded and projected (consumer lag 0, the gateway caught up). Reported as events/s and
   events/s per core (this machine's cores), and against N=1 of the same run.
2. Steady load: ``--minutes`` at ``--rate`` events/s (default: half the N=2 throughput), the lag of
   every durable consumer sampled every 5 s.
3. Durability cost: a bare nats-server with and without ``sync_interval: always``: the hook's publish
   (JetStream-acked) latency, and one ingest process's rate draining ``--ingest-events`` hooks.

    .venv/bin/python benchmarks/bench_cluster.py [--events 1500] [--minutes 5] [--rate 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from clusterkit import Running, embedded_in_log, lag, prompt_payload, publish_messages, start
from results import median, percentile, write_section

from codememory.bus import ensure_streams
from codememory.hookclient import HookSettings, run_hook
from codememory.hookclient.message import build_message
from codememory.runtime.natsd import NatsServer

CORES = os.cpu_count() or 1


def caught_up(running: Running) -> bool:
    try:
        return bool(running.status().caught_up)
    except Exception:  # the gateway is (re)starting
        return False


def drain(running: Running, timeout: float = 900) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        current = lag(running)
        if current["ingest"] == 0 and current["embed"] == 0 and caught_up(running):
            return time.perf_counter()
        time.sleep(0.25)
    raise SystemExit("the stack did not drain")


def throughput(replicas: int, events: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        running = start(Path(tmp), "--scale", f"ingest=2,embed={replicas}")
        try:
            time.sleep(3)  # every replica connected and its model loaded
            drain(running)
            started = time.perf_counter()
            publish_messages(running, f"tp{replicas}", events)
            seconds = drain(running) - started
            return events / seconds, embedded_in_log(running)
        finally:
            running.stop()


def steady(rate: float, minutes: float) -> list[dict[str, int]]:
    samples: list[dict[str, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        running = start(Path(tmp), "--scale", "ingest=2,embed=2")
        try:
            time.sleep(3)
            import threading

            done = threading.Event()

            def sample() -> None:
                while not done.wait(5):
                    samples.append(lag(running))

            sampler = threading.Thread(target=sample)
            sampler.start()
            publish_messages(running, "steady", int(rate * minutes * 60), rate=rate)
            done.set()
            sampler.join()
        finally:
            running.stop()
    return samples


async def _ingest_rate(url: str, count: int) -> float:
    nc = await nats.connect(url)
    js = nc.jetstream()
    await ensure_streams(js)
    for n in range(count):
        message = build_message("claude", prompt_payload("sync", n), tenant="local", max_field=4096)
        await js.publish(message.subject, message.data, headers={"Nats-Msg-Id": message.msg_id})
    started = time.perf_counter()
    while (await js.stream_info("HOOKS")).state.messages:
        await asyncio.sleep(0.05)
    seconds = time.perf_counter() - started
    await nc.close()
    return count / seconds


def durability(sync_always: bool, runs: int, ingest_events: int) -> tuple[list[float], float]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        NatsServer(Path(tmp) / "nats", sync_always=sync_always) as server,
    ):
        asyncio.run(_ensure(server.url))
        settings = HookSettings.from_env({"CODEMEMORY_HOME": tmp}).replace(
            nats_url=server.url, context_timeout_s=0.0
        )
        publish_ms = []
        for n in range(runs):
            payload = json.dumps(
                {"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Read", "n": n}
            )
            started = time.perf_counter()
            run_hook("claude", payload.encode(), settings)
            publish_ms.append((time.perf_counter() - started) * 1000)
        env = {**os.environ, "CODEMEMORY_NATS_URL": server.url}
        ingest = subprocess.Popen(
            [sys.executable, "-m", "codememory.ingest.main"], env=env, stderr=subprocess.DEVNULL
        )
        try:
            time.sleep(4)  # connected, the HOOKS backlog of the latency runs drained
            rate = asyncio.run(_ingest_rate(server.url, ingest_events))
        finally:
            ingest.terminate()
            ingest.wait(timeout=20)
    return publish_ms, rate


async def _ensure(url: str) -> None:
    nc = await nats.connect(url)
    await ensure_streams(nc.jetstream())
    await nc.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--rate", type=float, default=0.0)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--ingest-events", type=int, default=3000)
    args = parser.parse_args()
    rates = {n: throughput(n, args.events) for n in (1, 2, 4)}
    base = rates[1][0]
    rows = "\n".join(
        f"| {n} | {rate:.1f} | {rate / CORES:.1f} | {rate / base:.2f}x | {embedded} |"
        for n, (rate, embedded) in rates.items()
    )
    rate = args.rate or round(rates[2][0] / 2, 1)
    samples = steady(rate, args.minutes)
    lag_rows = "\n".join(
        f"| {name} | {median([s[name] for s in samples]):.0f} | {max(s[name] for s in samples)} "
        f"| {samples[-1][name]} |"
        for name in ("ingest", "embed", "graph", "dlq")
    )
    sync = {flag: durability(flag, args.runs, args.ingest_events) for flag in (False, True)}
    body = (
        f"Throughput, hook event to embedded and projected memory ({args.events} prompts; ingest=2; "
        f"{CORES} cores):\n\n"
        "| embed replicas | events/s | events/s per core | vs 1 replica | memory.embedded in LOG |\n"
        f"|---|---|---|---|---|\n{rows}\n\n"
        f"Steady load: {rate} events/s for {args.minutes} min (ingest=2, embed=2), consumer lag "
        f"sampled every 5 s ({len(samples)} samples):\n\n"
        f"| consumer | median lag | max lag | last |\n|---|---|---|---|\n{lag_rows}\n\n"
        "Durability: `sync_interval: always` against the server default, same run:\n\n"
        "| nats-server | hook publish p50 ms | p95 ms | ingest events/s (1 process) |\n|---|---|---|---|\n"
        + "\n".join(
            f"| {'sync_interval: always' if flag else 'default (2 min sync)'} | {median(ms):.2f} | "
            f"{percentile(ms, 95):.2f} | {rate_:.0f} |"
            for flag, (ms, rate_) in sync.items()
        )
        + "\n\nRatios always/default: hook publish p50 "
        f"{median(sync[True][0]) / median(sync[False][0]):.2f}x, "
        f"ingest rate {sync[True][1] / sync[False][1]:.2f}x."
    )
    write_section(
        "bench_cluster", "Supervised stack: throughput by embed replicas, lag, durability cost", body
    )


if __name__ == "__main__":
    main()
