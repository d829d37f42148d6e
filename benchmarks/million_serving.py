"""The restarted gateway of ``bench_million``: its serving path in a child process, asked over gRPC.

``serve`` runs in the child (``bench_million.py --serve DIR``: a baseline checkout serves through its own
script the same way): query model, shard and gRPC Recall as the gateway opens them. ``measure`` starts
it, asks the questions, and reads its latency, resident memory and collector pauses.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from million_data import DIM, base_text, questions
from results import median, percentile

REFERENCE = 40  # questions the query model embeds alone before serving: the machine's speed


def reference_ms(embedder: Any, texts: list[str]) -> float:
    """The machine's speed, for figures of different days: the median time the query model takes to
    embed one of ``texts`` alone (after a first pass), measured where the gateway embeds."""
    for text in texts:
        embedder.embed([text])
    took = []
    for text in texts:
        t0 = time.perf_counter()
        embedder.embed([text])
        took.append((time.perf_counter() - t0) * 1000)
    return median(took)


class _Pauses:
    """The collector's pauses while serving (``gc.callbacks``): per generation, how many and the longest."""

    def __init__(self) -> None:
        self.started = 0.0
        self.count = [0, 0, 0]
        self.longest_ms = [0.0, 0.0, 0.0]

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        generation = info["generation"]
        self.count[generation] += 1
        took = (time.perf_counter() - self.started) * 1000
        self.longest_ms[generation] = max(self.longest_ms[generation], took)


def open_memory(data_dir: Path, settings: Any, model_id: str) -> Any:
    """The kept shard's memory projection, opened as the restarted gateway opens it (payload cache and
    dense search from its ``GatewaySettings``)."""
    from codememory.gateway.indexes import IndexGenerations
    from codememory.lexical import SparseEncoder

    generations = IndexGenerations(
        data_dir, DIM, payload_cache=settings.payload_cache, search=settings.dense_search, model_id=model_id
    )
    return generations.projection(generations.current(), SparseEncoder())


def serve(data_dir: Path, ready: Path) -> None:
    """The restarted gateway's serving path (run in its own process): model, shard, gRPC Recall."""
    import asyncio
    import gc

    from codememory.collector import ServingCollector
    from codememory.events import InMemoryEventLog
    from codememory.gateway.coderpc import CodeServicer
    from codememory.gateway.core import GatewayCore
    from codememory.gateway.querymodels import configured_query_model
    from codememory.gateway.rpc import MemoryServicer
    from codememory.gateway.server import create_server
    from codememory.gateway.settings import GatewaySettings
    from codememory.lexical import SparseEncoder
    from codememory.projection import LiveProjection

    settings = GatewaySettings.from_env()
    t0 = time.perf_counter()
    embedder = configured_query_model(settings)
    model_s = time.perf_counter() - t0
    embed_ms = reference_ms(embedder, questions(REFERENCE))
    t0 = time.perf_counter()
    memory = open_memory(data_dir, settings, embedder.model_id)
    open_s = time.perf_counter() - t0

    async def run() -> None:
        core = GatewayCore(
            LiveProjection(memory), InMemoryEventLog(), embedder, SparseEncoder(), weights=settings.weights
        )
        servicer = MemoryServicer(core, {"t": "bench"}, None, None)  # type: ignore[arg-type]
        code = CodeServicer(None, {"t": "bench"})  # type: ignore[arg-type]  # not exercised here
        server, port, _ = await create_server(servicer, code, "127.0.0.1:0", reflection_enabled=False)
        await server.start()
        if settings.gc_thaw_s > 0:  # as the gateway once serving (``collector.ServingCollector``)
            ServingCollector().start()
        pauses = _Pauses()
        gc.callbacks.append(pauses)
        ready.write_text(
            json.dumps({"port": port, "open_s": open_s, "model_s": model_s, "embed_ms": embed_ms})
        )
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes it
        gc.callbacks.remove(pauses)
        await server.stop(None)
        collected = {"collections": pauses.count, "longest_ms": pauses.longest_ms}
        ready.with_name("collector.json").write_text(json.dumps(collected))

    asyncio.run(run())


def _memory_kib(pid: int) -> dict[str, int]:
    """VmHWM (peak resident), VmRSS, and the resident anonymous and file-backed (mapped shard) parts."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = ("VmHWM", "VmRSS", "RssAnon", "RssFile")
    return {line.split(":")[0]: int(line.split()[1]) for line in status if line.startswith(fields)}


def _profiler(pid: int) -> subprocess.Popen[bytes] | None:
    """py-spy sampling the serving process while the questions run, when ``BENCH_PYSPY`` names the
    output (collapsed stacks, Python frames, idle ones left out): where recall spends its time."""
    out = os.environ.get("BENCH_PYSPY")
    if not out:
        return None
    spy = shutil.which(os.environ.get("PY_SPY", "py-spy"))
    if spy is None:
        raise SystemExit("py-spy not found: put it on PATH or name it in PY_SPY")
    command = [spy, "record", "-p", str(pid), "-o", out, "--format", "raw", "-r", "100"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def measure(
    data_dir: Path, queries: list[str], env: dict[str, str] | None = None, code: Path | None = None
) -> dict[str, float]:
    """Serve ``data_dir`` in a child (this checkout's code, or ``code``'s: another checkout with its
    own ``.venv``) and ask it ``queries`` over gRPC."""
    import grpc

    from codememory.v1 import memory_pb2 as pb
    from codememory.v1 import memory_pb2_grpc

    ready = data_dir / "ready.json"
    ready.unlink(missing_ok=True)
    (data_dir / "collector.json").unlink(missing_ok=True)  # a failed run's: not this serving's
    python, script = sys.executable, str(Path(__file__).with_name("bench_million.py"))
    if code is not None:
        python, script = str(code / ".venv" / "bin" / "python"), str(code / "benchmarks" / "bench_million.py")
    command = [python, script, "--serve", str(data_dir)]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, env={**os.environ, **(env or {})})
    try:
        while not ready.is_file():
            if child.poll() is not None:
                raise SystemExit("the serving process died")
            time.sleep(0.1)
        info = json.loads(ready.read_text())
        channel = grpc.insecure_channel(f"127.0.0.1:{info['port']}")
        stub = memory_pb2_grpc.MemoryServiceStub(channel)
        meta = (("authorization", "Bearer t"),)
        t0 = time.perf_counter()
        stub.Recall(pb.RecallRequest(query=queries[0], limit=10), metadata=meta)
        first_ms = (time.perf_counter() - t0) * 1000
        for text in queries[1:21]:  # warm-up
            stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta)
        took, server, answers, bases = [], [], [], []
        spy = _profiler(child.pid)
        for text in queries:
            t0 = time.perf_counter()
            response = stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta)
            took.append((time.perf_counter() - t0) * 1000)
            server.append(response.took_ms)
            assert len(response.hits) == 10, len(response.hits)
            answers.append([h.memory.id for h in response.hits])
            bases.append([base_text(h.memory.text) for h in response.hits])
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its output on an interrupt
            spy.wait(timeout=60)
        kib = _memory_kib(child.pid)
        channel.close()
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=60)
    pauses = data_dir / "collector.json"  # older code (a baseline) writes none
    collector = json.loads(pauses.read_text()) if pauses.is_file() else {}
    pauses.unlink(missing_ok=True)
    return {
        "p50": median(took),
        "p99": percentile(took, 99),
        "server_p50": median(server),
        "first_ms": first_ms,
        "open_s": info["open_s"],
        "embed_ms": info.get("embed_ms", 0.0),  # the machine's speed (``reference_ms``; 0: older code)
        "peak_gib": kib["VmHWM"] / 2**20,
        "anon_gib": kib["RssAnon"] / 2**20,
        "file_gib": kib["RssFile"] / 2**20,
        # full collections while serving, and the longest pause of any collection (-1: not recorded)
        "gc_full": collector["collections"][2] if collector else -1,
        "gc_longest_ms": max(collector["longest_ms"]) if collector else -1.0,
        "hits": answers,  # type: ignore[dict-item]  # the ten memory ids per question, in order
        "bases": bases,  # type: ignore[dict-item]  # and the base texts they derive from
    }
