"""The fault test, repeated: SIGKILL a random service replica every few seconds while hooks publish.

Each round runs ``codememory up --scale ingest=2,embed=2`` in a fresh home, publishes ``--events``
distinct prompt hooks while a killer SIGKILLs a random replica (ingest, embed, graph or gateway) every
``--every`` seconds, and, in a second phase, SIGKILLs nats-server once mid-publish (hooks spool; ``up``
flushes the spool once the server is back). Then it waits for the stack to drain and counts: events
sent, memories in LOG per prompt (lost: 0 times, doubled: more than once), the DLQ, and whether a
replay's digest equals the live projection's.

    .venv/bin/python benchmarks/bench_faults.py [--rounds 5] [--events 300] [--every 2.5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from clusterkit import Running, lag, prompt_text, prompts_in_log, publish, start
from results import write_section

from codememory.hookclient.spool import Spool
from codememory.runtime.supervisor import read_processes


def killer(
    running: Running, every: float, services: set[str], stop: threading.Event, seed: int
) -> tuple[threading.Thread, list[str]]:
    """A thread that SIGKILLs a random live process of ``services`` every ``every`` s until ``stop``."""
    rng = random.Random(seed)
    killed: list[str] = []

    def run() -> None:
        while not stop.wait(every):
            rows = [r for r in read_processes(running.home) if r["service"] in services and r["pid"]]
            if rows:
                victim = rng.choice(rows)
                os.kill(int(str(victim["pid"])), signal.SIGKILL)
                killed.append(str(victim["service"]))

    thread = threading.Thread(target=run)
    thread.start()
    return thread, killed


def settle(running: Running, timeout: float = 600) -> None:
    """Until the spool is flushed (``up`` does it), every consumer drained and the gateway caught up."""
    deadline = time.monotonic() + timeout
    spool = Spool(running.hooks().spool_path)
    while time.monotonic() < deadline:
        if spool.has_pending():
            time.sleep(1)
            continue
        try:
            current = lag(running)
            out = subprocess.run(
                [sys.executable, "-m", "codememory.cli.app", "status", "--json"],
                env=running.env,
                capture_output=True,
                timeout=30,
            )
            drained = current["ingest"] == 0 and current["embed"] == 0 and out.returncode == 0
            if drained and json.loads(out.stdout).get("caught_up"):
                return
        except Exception:  # the server or the gateway is restarting: poll again
            pass
        time.sleep(1)
    raise SystemExit("did not settle")


def one_round(seed: int, events: int, every: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        running = start(Path(tmp), "--scale", "ingest=2,embed=2")
        try:
            time.sleep(3)
            stop = threading.Event()
            thread, killed = killer(running, every, {"ingest", "embed", "graph", "gateway"}, stop, seed)
            publish(running, f"r{seed}", events)
            stop.set()
            thread.join()
            server_stop = threading.Event()
            server_thread, server_kills = killer(running, 1.0, {"nats"}, server_stop, seed)
            publish(running, f"s{seed}", events // 3)
            server_stop.set()
            server_thread.join()
            settle(running)
            seen = prompts_in_log(running)
            sent = [prompt_text(f"r{seed}", n) for n in range(events)]
            sent += [prompt_text(f"s{seed}", n) for n in range(events // 3)]
            replay = subprocess.run(
                [sys.executable, "-m", "codememory.cli.app", "replay", "--json"],
                env=running.env,
                capture_output=True,
                timeout=600,
            )
            digests = json.loads(replay.stdout) if replay.returncode == 0 else {}
            return {
                "kills": len(killed),
                "server_kills": len(server_kills),
                "sent": len(sent),
                "lost": sum(1 for p in sent if seen[p] == 0),
                "doubled": sum(1 for p in sent if seen[p] > 1),
                "dlq": lag(running)["dlq"],
                "replay_equal": bool(digests) and digests.get("digest_before") == digests.get("digest_after"),
                "restarts": sum(int(str(r["restarts"])) for r in read_processes(running.home)),
            }
        finally:
            running.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--every", type=float, default=2.5)
    args = parser.parse_args()
    rounds = [one_round(seed, args.events, args.every) for seed in range(args.rounds)]
    for r in rounds:
        print(r)
    rows = "\n".join(
        f"| {i} | {r['kills']} | {r['server_kills']} | {r['restarts']} | {r['sent']} | {r['lost']} "
        f"| {r['doubled']} | {r['dlq']} | {r['replay_equal']} |"
        for i, r in enumerate(rounds)
    )
    total = {
        k: sum(int(r[k]) for r in rounds) for k in ("kills", "server_kills", "sent", "lost", "doubled", "dlq")
    }  # type: ignore[call-overload]
    body = (
        f"`up --scale ingest=2,embed=2`; per round {args.events} prompts while a random replica is SIGKILLed "
        f"every {args.every} s, then {args.events // 3} more while nats-server is SIGKILLed once.\n\n"
        "| round | replica kills | server kills | restarts | events sent | lost | doubled | DLQ "
        "| replay digest equal |\n"
        f"|---|---|---|---|---|---|---|---|---|\n{rows}\n"
        f"| all | {total['kills']} | {total['server_kills']} | | {total['sent']} | {total['lost']} "
        f"| {total['doubled']} | {total['dlq']} | |"
    )
    write_section("bench_faults", "Faults: SIGKILL of replicas and of nats-server while hooks publish", body)


if __name__ == "__main__":
    main()
