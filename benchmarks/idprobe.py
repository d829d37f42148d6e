"""Cross-tenant memory-id attacks on a real gRPC gateway: the id rows of ``bench_security``'s table.

A gateway core (an in-memory LOG followed by the live projection into a real Qdrant Edge shard) is
served by the real gRPC server; tenant beta then tries to claim and to probe a memory id tenant alpha
holds. Memory ids are per tenant (``codememory.memory.point_id``), so the claim must give beta a memory
of its own and leave alpha's as it was, and every answer beta gets for alpha's id must be the answer
for an id nobody holds. The embedder is a word hash: the attacks do not depend on meaning.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from results import median

from codememory.events import InMemoryEventLog
from codememory.gateway.coderpc import CodeServicer
from codememory.gateway.core import GatewayCore
from codememory.gateway.rpc import MemoryServicer
from codememory.gateway.server import create_server
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import LiveProjection, poll
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from codememory.vectorstore import EdgeVectorIndex

ALPHA, BETA = (("authorization", "Bearer tok-alpha"),), (("authorization", "Bearer tok-beta"),)
DIM = 64


class WordHash:
    """Unit vectors from hashed words: deterministic, no model."""

    model_id, dim = "wordhash-64", DIM

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        out = []
        for text in texts:
            v = [0.0] * DIM
            for word in text.lower().split():
                v[hashlib.blake2b(word.encode(), digest_size=2).digest()[0] % DIM] += 1.0
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append(tuple(x / norm for x in v))
        return out


async def _code(call: Any, request: Any) -> str:
    try:
        response = await call(request, metadata=BETA, timeout=30)
    except grpc.aio.AioRpcError as exc:
        return exc.code().name
    return "OK " + ",".join(f.name for f, _ in response.ListFields())


async def _attacks(root: Path, samples: int) -> list[tuple[str, str, str]]:
    log = InMemoryEventLog()
    live = LiveProjection(
        MemoryProjection(EdgeVectorIndex(root / "shard", DIM), SparseEncoder(), Position(None))
    )
    following = asyncio.create_task(poll(log, live))
    core = GatewayCore(live, log, WordHash(), SparseEncoder())
    tokens = {"tok-alpha": "alpha", "tok-beta": "beta"}
    servicer = MemoryServicer(core, tokens, None, None)  # type: ignore[arg-type]
    code = CodeServicer(None, tokens)  # type: ignore[arg-type]  # not exercised
    server, port, _ = await create_server(servicer, code, "127.0.0.1:0", reflection_enabled=False)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    stub = memory_pb2_grpc.MemoryServiceStub(channel)
    rows: list[tuple[str, str, str]] = []
    try:
        plan = "alpha private plan: migrate billing to the new ledger"
        theirs = (await stub.Store(pb.StoreRequest(text=plan), metadata=ALPHA, timeout=30)).memory_id
        fresh = str(uuid.uuid4())
        claim = f"beta claims the id {uuid.uuid4().hex[:8]}"
        claimed, unknown = await asyncio.gather(
            _code(stub.Store, pb.StoreRequest(text=claim, memory_id=theirs)),
            _code(stub.Store, pb.StoreRequest(text="beta fresh id", memory_id=fresh)),
        )
        history = await stub.History(pb.HistoryRequest(memory_id=theirs), metadata=ALPHA, timeout=30)
        recalled = await stub.Recall(pb.RecallRequest(query=claim, limit=50), metadata=ALPHA, timeout=30)
        untouched = history.memory.text == plan and history.memory.tenant == "alpha"
        unseen = all(claim not in h.memory.text and h.memory.tenant == "alpha" for h in recalled.hits)
        own = (await stub.History(pb.HistoryRequest(memory_id=theirs), metadata=BETA, timeout=30)).memory.text
        held = untouched and unseen and own == claim and claimed == unknown
        rows.append(
            (
                "beta stores a memory under alpha's id (claim)",
                "tenant beta",
                "denied (beta got a memory of its own; alpha's unchanged, never in alpha's recall)"
                if held
                else f"ALLOWED ({claimed} vs {unknown}, alpha untouched={untouched}, unseen={unseen})",
            )
        )
        rows.append(
            (
                "beta probes alpha's id with Store (answer vs an id nobody holds)",
                "tenant beta",
                f"denied (same answer: {claimed})"
                if claimed == unknown
                else f"ALLOWED ({claimed} vs {unknown})",
            )
        )
        probes = {
            "Refine": lambda i: stub.Refine(
                pb.RefineRequest(memory_id=i, text="x"), metadata=BETA, timeout=30
            ),
            "Forget": lambda i: stub.Forget(pb.ForgetRequest(memory_id=i), metadata=BETA, timeout=30),
            "History": lambda i: stub.History(pb.HistoryRequest(memory_id=i), metadata=BETA, timeout=30),
        }
        other = str(uuid.uuid4())  # alpha's: beta's answers must be those for an id nobody holds
        await stub.Store(pb.StoreRequest(text="alpha second", memory_id=other), metadata=ALPHA, timeout=30)
        answers = {}
        for name, call in probes.items():
            answers[name] = (await _probe(call, other), await _probe(call, str(uuid.uuid4())))
        same = all(a == b for a, b in answers.values())
        shown = ", ".join(f"{n} {a}" for n, (a, _) in answers.items())
        rows.append(
            (
                "beta probes another alpha id with Refine, Forget, History",
                "tenant beta",
                f"denied (same as an unknown id: {shown})" if same else f"ALLOWED ({answers})",
            )
        )
        foreign_ms, fresh_ms = await _store_times(stub, samples)
        rows.append(
            (
                f"(timing) beta's Store of ids alpha holds vs fresh ids, median of {samples}",
                "tenant beta",
                f"{median(foreign_ms):.2f} ms vs {median(fresh_ms):.2f} ms",
            )
        )
    finally:
        await channel.close()
        await server.stop(None)
        following.cancel()
        live.projection.index.close()
    return rows


async def _probe(call: Any, memory_id: str) -> str:
    try:
        await call(memory_id)
    except grpc.aio.AioRpcError as exc:
        return exc.code().name
    return "OK"


async def _store_times(
    stub: memory_pb2_grpc.MemoryServiceStub, samples: int
) -> tuple[list[float], list[float]]:
    """Store latency for beta: ids alpha holds against fresh ids, interleaved."""
    foreign, fresh = [], []
    for n in range(samples):
        held = (await stub.Store(pb.StoreRequest(text=f"alpha {n}"), metadata=ALPHA, timeout=30)).memory_id
        for memory_id, into in ((held, foreign), (str(uuid.uuid4()), fresh)):
            started = time.perf_counter()
            await stub.Store(
                pb.StoreRequest(text=f"beta {n} {memory_id}", memory_id=memory_id), metadata=BETA
            )
            into.append((time.perf_counter() - started) * 1000)
    return foreign, fresh


def id_attacks(root: Path, samples: int = 30) -> list[tuple[str, str, str]]:
    """The rows (attack, as whom, outcome); blocking."""
    return asyncio.run(_attacks(root, samples))
