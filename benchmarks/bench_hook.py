"""Wall time of the whole ``codememory hook`` process, from spawn to exit (after the JetStream ack).

Why: an agent waits for its hook on every event, so the hook's budget is a median of 60 ms from
stdin JSON to JetStream ack. This starts a real nats-server with a HOOKS stream, runs the hook
process N times with a real Claude Code payload, and measures baselines in the same run (bare
interpreter start, and ``import asyncio, nats`` which is what a nats-py hook would pay before
doing anything). Rows are interleaved round by round so machine load drifts evenly over them.

The hook rows run with a bytecode cache (as an installed package does); the extra "no .pyc" row
shows the cost when ``PYTHONDONTWRITEBYTECODE`` is set and every module is compiled each run.

Usage: .venv/bin/python benchmarks/bench_hook.py [--runs 60] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import nats
from nats.aio.msg import Msg

from codememory.runtime.natsd import NatsServer
from shared_data import HOOKS_DATA

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "RESULTS.md"
START, END = "<!-- bench_hook:start -->", "<!-- bench_hook:end -->"
HOOK = "import sys; from codememory.hookclient.main import main; sys.exit(main(sys.argv[1:]))"
HOOK_FAST = "import sys; from codememory.hookclient.main import main_and_exit; main_and_exit(sys.argv[1:])"
CONTEXT = "<codememory-context>bench context</codememory-context>"


class Broker:
    """nats-py on a background loop: creates HOOKS, answers context requests, counts messages."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.answered = 0
        self.nc = self.call(nats.connect(url))
        self.call(self._setup())

    def call(self, coro: object) -> object:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)  # type: ignore[arg-type]

    async def _setup(self) -> None:
        js = self.nc.jetstream()
        await js.add_stream(name="HOOKS", subjects=["cm.hooks.>"], duplicate_window=120.0)

        async def answer(msg: Msg) -> None:
            self.answered += 1
            await msg.respond(json.dumps({"context": CONTEXT}).encode())

        await self.nc.subscribe("cm.rpc.local.context", cb=answer)
        await self.nc.flush()

    def stored(self) -> int:
        async def count() -> int:
            info = await self.nc.jetstream().stream_info("HOOKS")
            return int(info.state.messages)

        return int(self.call(count()))  # type: ignore[call-overload]

    def close(self) -> None:
        self.call(self.nc.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def timed(argv: list[str], stdin: bytes, env: dict[str, str], check: Callable[[bytes], bool]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0 or not check(proc.stdout):
        raise SystemExit(f"run failed: {argv[-3:]} rc={proc.returncode} out={proc.stdout[:200]!r}")
    return elapsed


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_results(table: str, command: str) -> None:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = (
        f"{START}\n## Hook process latency (bench_hook)\n\n"
        f"- date: {stamp}\n- commit: {git_commit()}\n- command: `{command}`\n"
        f"- python: {sys.version.split()[0]}, cpus: {os.cpu_count()}\n\n{table}\n{END}"
    )
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    RESULTS.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--no-write", action="store_true", help="do not update benchmarks/RESULTS.md")
    args = parser.parse_args()
    edit = (HOOKS_DATA / "claude_PostToolUse_Edit.json").read_bytes()
    prompt = (HOOKS_DATA / "claude_UserPromptSubmit.json").read_bytes()
    py = sys.executable

    with tempfile.TemporaryDirectory(prefix="bench-hook-") as tmp, NatsServer(Path(tmp) / "nats") as server:
        broker = Broker(server.url)
        base = {k: v for k, v in os.environ.items() if not k.startswith("CODEMEMORY_")}
        base.update(CODEMEMORY_HOME=str(Path(tmp) / "home"), CODEMEMORY_NATS_URL=server.url)
        cached = {k: v for k, v in base.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        uncached = {**base, "PYTHONDONTWRITEBYTECODE": "1"}
        anything: Callable[[bytes], bool] = lambda out: True  # noqa: E731
        silent: Callable[[bytes], bool] = lambda out: out == b""  # noqa: E731
        has_context: Callable[[bytes], bool] = lambda out: CONTEXT.encode() in out  # noqa: E731
        hook = [py, "-c", HOOK, "--agent", "claude"]
        fast = [py, "-c", HOOK_FAST, "--agent", "claude"]
        rows: list[tuple[str, list[str], bytes, dict[str, str], Callable[[bytes], bool]]] = [
            ("python -c pass", [py, "-c", "pass"], b"", cached, anything),
            ('python -c "import asyncio, nats"', [py, "-c", "import asyncio, nats"], b"", cached, anything),
            (
                "import codememory.redaction (only)",
                [py, "-c", "import codememory.redaction"],
                b"",
                cached,
                anything,
            ),
            (
                "import hookclient.runner (only)",
                [py, "-c", "import codememory.hookclient.runner"],
                b"",
                cached,
                anything,
            ),
            ("hook PostToolUse(Edit) -> JetStream ack", hook, edit, cached, silent),
            ("hook UserPromptSubmit + context reply", hook, prompt, cached, has_context),
            ("hook PostToolUse(Edit), no .pyc cache", hook, edit, uncached, silent),
            ("hook PostToolUse(Edit) via main_and_exit", fast, edit, cached, silent),
        ]
        for _name, argv, stdin, env, check in rows:  # warm the bytecode and page caches
            for _ in range(2):
                timed(argv, stdin, env, check)
        results: dict[str, list[float]] = {name: [] for name, *_ in rows}
        for _ in range(args.runs):
            for name, argv, stdin, env, check in rows:
                results[name].append(timed(argv, stdin, env, check))
        hook_runs = 4 * (args.runs + 2)
        stored, answered = broker.stored(), broker.answered
        broker.close()
    if stored != hook_runs:
        raise SystemExit(f"expected {hook_runs} messages in HOOKS, found {stored}")

    bare = statistics.median(results["python -c pass"])
    nats_py = statistics.median(results['python -c "import asyncio, nats"'])
    lines = [
        f"{args.runs} runs per row, interleaved; wall time from spawn to exit; {stored} hook messages "
        f"acked by JetStream, {answered} context requests answered.",
        "",
        "| row | median ms | p95 ms | x `python -c pass` | x `import asyncio, nats` |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, values in results.items():
        median = statistics.median(values)
        lines.append(
            f"| {name} | {median:.1f} | {p95(values):.1f} | {median / bare:.2f} | {median / nats_py:.2f} |"
        )
    table = "\n".join(lines) + "\n"
    print(table)
    if not args.no_write:
        write_results(table, "python benchmarks/bench_hook.py " + " ".join(sys.argv[1:]))
        print(f"wrote {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    main()
