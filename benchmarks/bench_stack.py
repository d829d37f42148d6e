"""The embedded stack as a user runs it: context-hook wall time and freshness (hook to recallable).

Starts ``codememory up`` (real nats-server, all services, Qdrant Edge, gRPC) in a temp home, imports a
few hundred memories, then (hook processes with cached bytecode, as installed packages have):
- context hook: the whole ``codememory hook`` process for SessionStart, recall included, N times;
  baselines in the same run: ``python -c pass`` and the publish-only hook (PostToolUse);
- freshness: UserPromptSubmit hooks published at 20 events/s (the hook's own publish path,
  in-process, each acked by JetStream); each is polled over gRPC until recallable.

    .venv/bin/python benchmarks/bench_stack.py [--runs 40] [--events 200]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, percentile, write_section

from codememory.hookclient import HookSettings, run_hook
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from shared_data import HOOKS_DATA

BIN = Path(sys.executable).parent
HOOKS = HOOKS_DATA


def _start(home: Path) -> tuple[subprocess.Popen[bytes], dict[str, str], dict[str, str]]:
    env = {**os.environ, "CODEMEMORY_HOME": str(home), "CODEMEMORY_UP_GRPC_LISTEN": "127.0.0.1:0"}
    env.pop("CODEMEMORY_NATS_URL", None)
    # bytecode cached, as an installed package has it (this machine sets PYTHONDONTWRITEBYTECODE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    process = subprocess.Popen(
        [str(BIN / "codememory"), "up"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while not (home / "runtime.json").is_file():
        if process.poll() is not None:
            raise SystemExit("codememory up failed to start")
        time.sleep(0.2)
    return process, env, json.loads((home / "runtime.json").read_text())


def _timed(cmd: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    started = time.perf_counter()
    out = subprocess.run(cmd, input=stdin, env=env, capture_output=True, check=True).stdout
    return (time.perf_counter() - started) * 1000, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--memories", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        repo = home / "api"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        process, env, runtime = _start(home)
        try:
            rows = "\n".join(
                json.dumps(
                    {
                        "text": f"memory {i}: module{i % 30} retries {i % 5} times; see src/mod{i % 30}.py",
                        "type": "note",
                        "repo": "api",
                    }
                )
                for i in range(args.memories)
            )
            subprocess.run(
                [str(BIN / "codememory"), "import", "-"],
                input=rows.encode(),
                env=env,
                check=True,
                capture_output=True,
            )
            start_payload = json.dumps(
                {"session_id": "b", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
            ).encode()
            edit_payload = (HOOKS / "claude_PostToolUse_Edit.json").read_bytes()
            hook = [str(BIN / "codememory"), "hook", "--agent", "claude"]
            ctx_ms, busy_ms, pub_ms, base_ms = [], [], [], []
            for _ in range(3):
                _timed(hook, start_payload, env)
            injected = 0
            for _ in range(args.runs):
                base_ms.append(_timed([sys.executable, "-c", "pass"], b"", env)[0])
                ms, out = _timed(hook, start_payload, env)
                ctx_ms.append(ms)
                injected += b"additionalContext" in out
                pub_ms.append(_timed(hook, edit_payload, env)[0])
                busy_ms.append(_timed(hook, start_payload, env)[0])  # while the edit is being embedded
                time.sleep(0.3)
            fresh_ms = _freshness(env, runtime, home, args.events)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    body = (
        "| measure | median ms | p95 ms | median / `python -c pass` |\n|---|---|---|---|\n"
        f"| `python -c pass` (baseline) | {median(base_ms):.1f} | {percentile(base_ms, 95):.1f} | 1.00x |\n"
        f"| hook PostToolUse (publish, JetStream ack) | {median(pub_ms):.1f} | {percentile(pub_ms, 95):.1f} "
        f"| {median(pub_ms) / median(base_ms):.2f}x |\n"
        f"| context hook SessionStart (publish + recall + print) | {median(ctx_ms):.1f} "
        f"| {percentile(ctx_ms, 95):.1f} "
        f"| {median(ctx_ms) / median(base_ms):.2f}x |\n"
        f"| context hook right after an edit hook (its embedding in flight) | {median(busy_ms):.1f} "
        f"| {percentile(busy_ms, 95):.1f} | {median(busy_ms) / median(base_ms):.2f}x |\n"
        f"| freshness: hook acked to recallable, at 20 events/s | {median(fresh_ms):.1f} "
        f"| {percentile(fresh_ms, 95):.1f} | |\n\n"
        f"{args.runs} context-hook runs ({injected} injected context) over {args.memories} memories; "
        f"{len(fresh_ms)} freshness events. Targets: context hook median <= 100 ms, freshness median <= 1 s."
    )
    write_section("bench_stack", "Embedded stack: context hook and freshness", body)


def _freshness(env: dict[str, str], runtime: dict[str, str], home: Path, events: int) -> list[float]:
    settings = HookSettings.from_env(env)
    token = (home / "token").read_text().strip()
    stub = memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(runtime["grpc_address"]))
    meta = (("authorization", f"Bearer {token}"),)
    latencies: list[float] = []
    lock = threading.Lock()

    def poll(session: str, acked: float) -> None:
        while time.perf_counter() - acked < 30:
            hits = stub.Recall(
                pb.RecallRequest(query="", session_id=session, limit=1), metadata=meta, timeout=10
            ).hits
            if hits:
                with lock:
                    latencies.append((time.perf_counter() - acked) * 1000)
                return
            time.sleep(0.01)

    with ThreadPoolExecutor(max_workers=64) as pool:
        next_at = time.perf_counter()
        for i in range(events):
            session = f"fresh-{uuid.uuid4().hex}"
            payload = {
                "session_id": session,
                "cwd": "/w",
                "hook_event_name": "UserPromptSubmit",
                "prompt": f"prompt {i}",
            }
            run_hook("claude", json.dumps(payload).encode(), settings)
            pool.submit(poll, session, time.perf_counter())
            next_at += 1 / 20
            time.sleep(max(0.0, next_at - time.perf_counter()))
    return latencies


if __name__ == "__main__":
    main()
