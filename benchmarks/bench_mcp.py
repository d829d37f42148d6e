"""MCP ``recall`` latency (client to result) against the gRPC Recall it wraps, on 10,000 memories.

The gateway's MemoryService as it runs by default (ONNX query, payload cache) on a real Qdrant Edge
shard loaded as ``bench_recall.py`` loads it (synthetic texts, random unit vectors); ``codememory mcp``
as a subprocess (what an agent starts) reached by the MCP SDK's own client over stdio and over
streamable HTTP. Each query goes to gRPC Recall and to every MCP transport in turn, so all of them see
the same machine state. Target (issue 13): MCP p50 at most 30 ms above gRPC's p50.

    .venv/bin/python benchmarks/bench_mcp.py [--size 10000] [--queries 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_recall import QUERIES, _load
from results import median, percentile, write_section

from codememory.embedding import load_default_embedder, query_embedder
from codememory.events import InMemoryEventLog
from codememory.gateway.coderpc import CodeServicer
from codememory.gateway.core import GatewayCore
from codememory.gateway.rpc import MemoryServicer
from codememory.gateway.server import create_server
from codememory.gateway.settings import GatewaySettings
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import LiveProjection
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from codememory.vectorstore import EdgeVectorIndex, PayloadCachedIndex

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _wait_listening(port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        if time.monotonic() > deadline:
            raise RuntimeError("codememory mcp --http did not listen")
        await asyncio.sleep(0.2)


async def _measure(index: EdgeVectorIndex, size: int, queries: int, embedder, project: Path) -> dict:  # type: ignore[no-untyped-def, type-arg]
    position = Position(None)
    position.seq = size
    live = LiveProjection(
        MemoryProjection(
            PayloadCachedIndex(index, GatewaySettings().payload_cache), SparseEncoder(), position
        )
    )
    core = GatewayCore(live, InMemoryEventLog(), embedder, SparseEncoder())
    servicer = MemoryServicer(core, {"t": "bench"}, None, None)  # type: ignore[arg-type]
    code_servicer = CodeServicer(None, {"t": "bench"})  # type: ignore[arg-type]  # not exercised here
    server, port, _ = await create_server(servicer, code_servicer, "127.0.0.1:0", reflection_enabled=False)
    await server.start()
    env = {
        **os.environ,
        "CODEMEMORY_GRPC_ADDRESS": f"127.0.0.1:{port}",
        "CODEMEMORY_TOKEN": "t",
        "CODEMEMORY_HOME": str(project / "home"),
    }
    http_port = _free_port()
    http = subprocess.Popen(
        [str(BIN / "codememory"), "mcp", "--http", "--port", str(http_port), "--project", str(project)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stdio = StdioServerParameters(
        command=str(BIN / "codememory"), args=["mcp", "--project", str(project)], env=env
    )
    times: dict[str, list[float]] = {"grpc": [], "mcp stdio": [], "mcp http": []}
    try:
        await _wait_listening(http_port)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        stub = memory_pb2_grpc.MemoryServiceStub(channel)
        meta = (("authorization", "Bearer t"),)
        async with Client(stdio) as over_stdio, Client(f"http://127.0.0.1:{http_port}/mcp") as over_http:
            clients = {"mcp stdio": over_stdio, "mcp http": over_http}
            texts = [f"{QUERIES[i % len(QUERIES)]} {i}" for i in range(queries + 10)]
            for n, text in enumerate(texts):
                t0 = time.perf_counter()
                response = await stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta)
                took = {"grpc": (time.perf_counter() - t0) * 1000}
                assert len(response.hits) == 10
                for name, client in clients.items():
                    t0 = time.perf_counter()
                    result = await client.call_tool("recall", {"query": text, "limit": 10})
                    took[name] = (time.perf_counter() - t0) * 1000
                    assert not result.is_error and result.content[0].text.startswith("10 memories")  # type: ignore[union-attr]
                if n >= 10:  # the first ten warm every path up
                    for name, ms in took.items():
                        times[name].append(ms)
        await channel.close()
    finally:
        http.terminate()
        http.wait(timeout=20)
        await server.stop(None)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    model = load_default_embedder()
    with tempfile.TemporaryDirectory() as tmp:
        onnx = query_embedder(
            "onnx", Path(tmp) / "model", threads=GatewaySettings().query_threads, model=lambda: model
        )
        index = EdgeVectorIndex(Path(tmp) / "shard", model.dim)
        _load(index, args.size, model.dim)
        project = Path(tmp) / "project"
        project.mkdir()
        times = asyncio.run(_measure(index, args.size, args.queries, onnx, project))
        index.close()
    base = median(times["grpc"])
    rows = [
        "| path | recall p50 ms | p95 | p99 | p50 - gRPC p50 |",
        "|---|---|---|---|---|",
    ]
    for name, values in times.items():
        cells = [
            name,
            f"{median(values):.1f}",
            f"{percentile(values, 95):.1f}",
            f"{percentile(values, 99):.1f}",
        ]
        cells.append("-" if name == "grpc" else f"{median(values) - base:+.1f}")
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    body = "\n".join(rows) + (
        f"\n\n{args.size:,} memories, {args.queries} queries (limit 10), each sent to gRPC Recall, then to "
        "`codememory mcp` over stdio and over streamable HTTP (subprocesses, the MCP SDK's client) in turn; "
        "the MCP figures include the tool's argument check, its gRPC call and the text it writes. "
        "Target: MCP p50 at most 30 ms above gRPC's."
    )
    write_section("bench_mcp", "MCP recall latency against gRPC", body)


if __name__ == "__main__":
    main()
