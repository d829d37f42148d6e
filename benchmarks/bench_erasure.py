"""What encryption at rest costs (issue 12): LOG appends, replay and recall, sealed against plain.

One run, one real nats-server per setting, rounds interleaved so machine load falls evenly on both:
- append rate: what ingest and the gateway write, through ``JetStreamEventLog.append`` (the codec seals
  here): agent events (prompts and tool output, one stored key per session of 50 events, each event
  sealed with its own leaf of the session's key tree) and explicit memories (a new key per memory: a
  key file written and fsynced per memory, the directory once per batch), appended one at a time
  (Store) and in batches of 100 (Import);
- replay: LOG of N stored + embedded memories (vector and digest sealed with the memory's key, as the
  embed service writes them) folded into a fresh Edge shard (``rebuild_memory``, what Replay does), and
  LOG read + decode alone (where opening shows most), with the agent events' share timed apart (each
  opens with a leaf derived from its session's tree);
- recall p50: hybrid recall on the rebuilt projection (the index holds clear text either way, so this
  checks that nothing on the read path opens anything);
- erase: ``codememory erase --user`` on the key store (plan + destroy), by records covered, and
  ``erase --memory`` of one event of a session (plan + puncture: a new frontier written and fsynced,
  the old one destroyed).

    .venv/bin/python benchmarks/bench_erasure.py [--memories 3000] [--rounds 3] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import math
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import nats
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, percentile, write_section

from codememory.bus import JetStreamEventLog, ensure_streams
from codememory.events import (
    Envelope,
    MemoryEmbedded,
    MemoryScope,
    MemoryStored,
    PromptSubmitted,
    ToolObserved,
    decode_envelope,
    new_envelope,
)
from codememory.events.codec import encode_envelopes, install_sealer
from codememory.gateway.memoryrebuild import rebuild_memory
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position, text_digest
from codememory.projection import LiveProjection
from codememory.recall import Recaller, RecallQuery
from codememory.runtime.natsd import NatsServer
from codememory.sealing import FileKeyStore, MemoryKeyStore, Record, Sealer, destroy, plan
from codememory.vectorstore import EdgeVectorIndex

DIM = 384
SETTINGS = ("plain", "sealed")


class HashEmbedder:
    """Queries only: a deterministic unit vector per text (no model: recall's cost is the index's)."""

    model_id = "bench/hash"
    dim = DIM

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        out = []
        for text in texts:
            gen = np.random.default_rng(int(hashlib.md5(text.encode()).hexdigest()[:8], 16))
            v = gen.standard_normal(DIM)
            out.append(tuple((v / math.sqrt(float(v @ v))).tolist()))
        return out


def _agent_events(n: int, tenant: str) -> list[Envelope]:
    out = []
    for i in range(n):
        session, user = f"s{i // 50}", f"user{i // 500}"
        event: PromptSubmitted | ToolObserved = (
            PromptSubmitted(session_id=session, agent="claude", user=user, prompt=f"fix the retry budget {i}")
            if i % 2
            else ToolObserved(
                session_id=session,
                agent="claude",
                user=user,
                tool="Bash",
                command=f"pytest tests/test_{i}.py",
                output_excerpt="3 passed in 0.4s " * 8,
            )
        )
        out.append(new_envelope(event, event_id=str(uuid.uuid4()), tenant=tenant))
    return out


def _memories(n: int, tenant: str) -> list[Envelope]:
    gen = np.random.default_rng(3)
    out = []
    for i in range(n):
        mid, text = str(uuid.uuid4()), f"memory {i}: the retry budget of service{i % 50} is {i % 7} attempts"
        scope = MemoryScope(user=f"user{i % 20}", session_id=f"s{i // 25}")
        out.append(
            new_envelope(MemoryStored(memory_id=mid, text=text, scope=scope), event_id=mid, tenant=tenant)
        )
        v = gen.standard_normal(DIM)
        embedded = MemoryEmbedded(
            memory_id=mid,
            model="m",
            text_digest=text_digest(text),
            vector=tuple((v / np.linalg.norm(v)).astype(np.float32).tolist()),  # a model's float32
            record=f"m:{mid}",
        )
        out.append(new_envelope(embedded, event_id=str(uuid.uuid4()), tenant=tenant))
    return out


async def _append_rate(log: JetStreamEventLog, envelopes: list[Envelope], batch: int = 100) -> float:
    started = time.perf_counter()
    for i in range(0, len(envelopes), batch):
        await log.append(envelopes[i : i + batch])
    return len(envelopes) / (time.perf_counter() - started)


async def _round(setting: str, root: Path, memories: int, samples: dict[str, list[float]]) -> None:
    sealer = Sealer(FileKeyStore(root / "keys")) if setting == "sealed" else None
    install_sealer(sealer)
    with NatsServer(root / "nats") as server:
        nc = await nats.connect(server.url)
        js = nc.jetstream()
        await ensure_streams(js)
        log = JetStreamEventLog(js)
        agents = _agent_events(2000, "agents")
        samples[f"{setting}:agent"].append(await _append_rate(log, agents))
        explicit = [e for e in _memories(300, "explicit") if isinstance(e.payload, MemoryStored)]
        samples[f"{setting}:memory"].append(await _append_rate(log, explicit, batch=1))
        imported = [e for e in _memories(1000, "imported") if isinstance(e.payload, MemoryStored)]
        samples[f"{setting}:import"].append(await _append_rate(log, imported, batch=100))
        stored = _memories(memories, "bench")
        for i in range(0, len(stored), 500):
            await log.append(stored[i : i + 500])
        events = await log.last_seq()
        agent_s = 0.0
        started = time.perf_counter()
        async for batch in log.read_batches(1):
            for record in batch:
                if record.seq <= 2000:  # the agent events, appended first
                    began = time.perf_counter()
                    decode_envelope(record.data)
                    agent_s += time.perf_counter() - began
                else:
                    decode_envelope(record.data)
        samples[f"{setting}:read"].append(events / (time.perf_counter() - started))
        samples[f"{setting}:read_agent"].append(2000 / agent_s)
        live = LiveProjection(
            MemoryProjection(EdgeVectorIndex(root / "live", DIM), SparseEncoder(), Position(None))
        )
        fresh = MemoryProjection(EdgeVectorIndex(root / "fresh", DIM), SparseEncoder(), Position(None))
        rebuilt = await rebuild_memory(live, log, fresh, readers_s=0.0)
        samples[f"{setting}:replay"].append(rebuilt.events / rebuilt.fold_s)
        recaller = Recaller(fresh.index, HashEmbedder(), SparseEncoder())
        for q in range(60):
            started = time.perf_counter()
            recaller.recall(RecallQuery(tenant="bench", text=f"retry budget of service{q % 50}", limit=10))
            samples[f"{setting}:recall_ms"].append((time.perf_counter() - started) * 1000)
        fresh.index.close()
        if sealer is not None:
            started = time.perf_counter()
            planned = plan(sealer.keys, "agents", "user", "user0")
            destroyed = destroy(sealer.keys, planned)
            samples["erase_ms"].append((time.perf_counter() - started) * 1000)
            samples["erase_keys"].append(float(destroyed))
            for victim in agents[-50:-45]:  # the first punctures of the last session
                started = time.perf_counter()
                session = getattr(victim.payload, "session_id", "")
                punctured = destroy(
                    sealer.keys, plan(sealer.keys, "agents", "memory", victim.event_id, session)
                )
                samples["puncture_ms"].append((time.perf_counter() - started) * 1000)
                assert punctured == 1
        await nc.close()
    install_sealer(None)


async def _run(memories: int, rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {
        f"{s}:{k}": []
        for s in SETTINGS
        for k in ("agent", "memory", "import", "read", "read_agent", "replay", "recall_ms")
    }
    samples |= {"erase_ms": [], "erase_keys": [], "puncture_ms": []}
    for r in range(rounds):
        for setting in SETTINGS if r % 2 == 0 else reversed(SETTINGS):
            with tempfile.TemporaryDirectory() as tmp:
                await _round(setting, Path(tmp), memories, samples)
                print(f"round {r + 1} {setting} done", flush=True)
    return samples


def _codec_cost(rounds: int = 7) -> dict[str, float]:
    """Seal and open of the agent events in process (no NATS, keys in memory), a session's key tree
    against one key per session as before per-event keys: what a key per event costs by itself."""
    envelopes = _agent_events(2000, "agents")
    one_key = property(lambda self: False)
    tree = Record.per_event
    out: dict[str, list[float]] = {f"{m}:{k}": [] for m in ("tree", "one") for k in ("seal", "open")}
    try:
        for _ in range(rounds):
            for mode in ("tree", "one"):
                Record.per_event = tree if mode == "tree" else one_key  # type: ignore[method-assign]
                install_sealer(Sealer(MemoryKeyStore()))
                started = time.perf_counter()
                data = encode_envelopes(envelopes)
                out[f"{mode}:seal"].append((time.perf_counter() - started) / len(data) * 1e6)
                started = time.perf_counter()
                for item in data:
                    decode_envelope(item)
                out[f"{mode}:open"].append((time.perf_counter() - started) / len(data) * 1e6)
    finally:
        Record.per_event = tree  # type: ignore[method-assign]
        install_sealer(None)
    return {k: median(v) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--codec-only", action="store_true", help="only the in-process tree cost")
    args = parser.parse_args()
    codec = _codec_cost()
    tree_cost = (
        f"In process (keys in memory, no NATS), sealing an agent event took {codec['tree:seal']:.1f} us "
        f"and opening it {codec['tree:open']:.1f} us with a leaf of its session's key tree, against "
        f"{codec['one:seal']:.1f} us and {codec['one:open']:.1f} us with one key per session (medians of 7 "
        "interleaved rounds of 2,000 events, same run): the cost of a key per event."
    )
    if args.codec_only:
        print(tree_cost)
        return
    s = asyncio.run(_run(args.memories, args.rounds))

    def row(name: str, key: str, unit: str, higher_better: bool = True) -> str:
        plain, sealed = median(s[f"plain:{key}"]), median(s[f"sealed:{key}"])
        ratio = sealed / plain
        return f"| {name} | {plain:,.1f} {unit} | {sealed:,.1f} {unit} | {ratio:.2f}x |"

    recall = {k: percentile(s[f"{k}:recall_ms"], 50) for k in SETTINGS}
    body = "\n".join(
        [
            "| measure | plain | sealed | sealed / plain |",
            "|---|---|---|---|",
            row("LOG append, agent events (prompts, tool output)", "agent", "events/s"),
            row("LOG append, explicit memories singly (a new key each: Store)", "memory", "memories/s"),
            row("LOG append, explicit memories in batches of 100 (Import)", "import", "memories/s"),
            row("LOG read + decode only", "read", "events/s"),
            row("... of which agent events (a leaf of the session's tree each)", "read_agent", "events/s"),
            row("replay fold into a fresh shard", "replay", "events/s"),
            f"| recall p50 (hybrid, rebuilt projection) | {recall['plain']:.2f} ms "
            f"| {recall['sealed']:.2f} ms | {recall['sealed'] / recall['plain']:.2f}x |",
            "",
            f"Medians of {args.rounds} interleaved rounds; {args.memories:,} memories "
            "(stored + embedded, 384-d) replayed, 2,000 agent events in 40 sessions, 300 explicit "
            "memories appended singly, 1,000 in batches of 100; recall: 60 "
            f"queries per round. `erase --user` on the key store (plan + destroy) took "
            f"{median(s['erase_ms']):.1f} ms for {median(s['erase_keys']):.0f} keys "
            "(a user of 500 agent events: 10 session keys, the user's key and pointer); `erase --memory` "
            f"of one event of a session (plan + puncture) took {median(s['puncture_ms']):.1f} ms "
            "(median of the first 5 punctures of a session, each round).",
            "",
            tree_cost,
        ]
    )
    print(body)
    if not args.no_write:
        write_section("bench_erasure", "Encryption at rest: cost against plain (`bench_erasure.py`)", body)


if __name__ == "__main__":
    main()
