"""The event path at scale: bulk import rate and replay rate, each against the old path in the same run.

Import (a real ``codememory up`` in a temp home: nats-server, every service, the model, gRPC):
- new: ``codememory import``'s client (``transfer.import_memories``) streams N memories; timed until
  the Import RPC returns, once lexically recallable (``--no-wait-embedded``) and once with every dense
  vector applied;
- baseline: the old path, one ``Store`` per memory (each waits for the projection), on a sample;
- the model alone: the same texts through all-MiniLM-L6-v2 in this process, batched as the embed
  service does (its durable's batch size), so a rate bound by the embedder says so.

Replay (in process, real nats-server, Qdrant Edge shards): N memories as stored + embedded pairs in LOG;
- new: ``rebuild_memory`` reading LOG in batches (``JetStreamEventLog.read_batches``);
- baseline: the same fold reading LOG one record at a time through a pull consumer (the old path).
Both fold into a fresh shard and report the fold rate, and the rate with the HNSW build.

    .venv/bin/python benchmarks/bench_event_path.py [--memories 5000] [--sample 200] [--replay 10000]
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
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_replay import fill_log
from results import median, write_section

from codememory.bus import JetStreamEventLog, ensure_streams
from codememory.events import Appended, Envelope, LogRecord
from codememory.gateway.memoryrebuild import rebuild_memory
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import LiveProjection
from codememory.runtime.natsd import NatsServer
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest


class RecordAtATime:
    """The old replay read: LOG through ``JetStreamEventLog.read`` (no ``read_batches``)."""

    def __init__(self, log: JetStreamEventLog) -> None:
        self._log = log

    async def append(self, envelopes: list[Envelope]) -> list[Appended]:
        return await self._log.append(envelopes)

    def read(self, from_seq: int = 1, *, until_seq: int | None = None) -> AsyncIterator[LogRecord]:
        return self._log.read(from_seq, until_seq=until_seq)

    async def last_seq(self) -> int:
        return await self._log.last_seq()


async def _replay_once(tmp: Path, name: str, log: object, events: int) -> tuple[float, float, str]:
    live = LiveProjection(
        MemoryProjection(EdgeVectorIndex(tmp / f"{name}-live", 384), SparseEncoder(), Position(None))
    )
    fresh = MemoryProjection(EdgeVectorIndex(tmp / f"{name}-fresh", 384), SparseEncoder(), Position(None))
    rebuilt = await rebuild_memory(live, log, fresh, readers_s=0)  # type: ignore[arg-type]
    assert rebuilt.events == events, (rebuilt.events, events)
    digest = index_digest(live.projection.index, IndexFilter())
    live.projection.index.close()
    return rebuilt.fold_s, rebuilt.prepare_s, digest


async def replay_rates(memories: int, runs: int) -> dict[str, object]:
    import nats

    with tempfile.TemporaryDirectory() as tmp, NatsServer(Path(tmp) / "nats") as server:
        nc = await nats.connect(server.url)
        js = nc.jetstream()
        await ensure_streams(js)
        log = JetStreamEventLog(js)
        events = await fill_log(log, memories)
        old_fold, new_fold, new_prep, old_prep, digests = [], [], [], [], set()
        for run in range(runs):
            fold_s, prep_s, digest = await _replay_once(Path(tmp), f"old{run}", RecordAtATime(log), events)
            old_fold.append(fold_s)
            old_prep.append(prep_s)
            digests.add(digest)
            fold_s, prep_s, digest = await _replay_once(Path(tmp), f"new{run}", log, events)
            new_fold.append(fold_s)
            new_prep.append(prep_s)
            digests.add(digest)
        await nc.close()
    assert len(digests) == 1, "the old and new replay built different projections"
    return {
        "events": events,
        "old_fold_s": median(old_fold),
        "new_fold_s": median(new_fold),
        "old_hnsw_s": median(old_prep),
        "new_hnsw_s": median(new_prep),
    }


@contextmanager
def embedded_stack(*up_args: str) -> Iterator[Path]:
    """``codememory up`` (with ``up_args``, e.g. ``--tls``) in a temp home; yields the home once the
    gateway serves."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {**os.environ, "CODEMEMORY_HOME": str(home), "CODEMEMORY_UP_GRPC_LISTEN": "127.0.0.1:0"}
        env["CODEMEMORY_CONSOLIDATE_INTERVAL_S"] = "0"
        env.pop("CODEMEMORY_NATS_URL", None)
        os.environ["CODEMEMORY_HOME"] = str(home)
        os.environ.pop("CODEMEMORY_GRPC_ADDRESS", None)
        os.environ.pop("CODEMEMORY_TOKEN", None)
        codememory = Path(sys.executable).parent / "codememory"
        with (home / "up.log").open("ab") as out:
            command = [str(codememory), "up", *up_args]
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 240
            while not (home / "runtime.json").is_file():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"codememory up did not start: {(home / 'up.log').read_text()[-2000:]}")
                time.sleep(0.2)
            _wait_serving(home)
            yield home
        finally:
            process.terminate()
            process.wait(timeout=60)


def _wait_serving(home: Path) -> None:
    from codememory.cli.client import connect
    from codememory.v1 import memory_pb2 as pb

    deadline = time.monotonic() + 120
    with connect(home) as conn:
        while not conn.stub.Status(pb.StatusRequest(), metadata=conn.metadata, timeout=10).serving:
            if time.monotonic() > deadline:
                raise SystemExit("the gateway never served")
            time.sleep(0.2)


TOPICS = ("the payment queue", "the search index", "the login page", "the nightly backup", "the CDN")
ACTIONS = ("retries three times", "is rebuilt hourly", "needs a feature flag", "runs on arm64", "is cached")


def _memories(repo: str, n: int) -> list[object]:
    from codememory.v1 import memory_pb2 as pb

    return [
        pb.ImportedMemory(
            memory=pb.StoreRequest(
                text=f"note {i}: {TOPICS[i % 5]} {ACTIONS[(i // 5) % 5]} since release {i // 25} ({repo})",
                type="fact",
                memory_id=str(uuid.uuid4()),
                scope=pb.Scope(repo=repo, session_id=f"s{i // 50}"),
                tags=["bench"],
            )
        )
        for i in range(n)
    ]


def import_rates(home: Path, memories: int, sample: int) -> str:
    """The import section: new path (lexical, with vectors), old Store path, the model alone."""
    from codememory.cli.client import connect
    from codememory.cli.transfer import import_memories
    from codememory.embedding import load_default_embedder
    from codememory.settings import ConsumerSettings

    with connect(home, timeout=60) as conn:
        baseline = _memories("old", sample)
        started = time.perf_counter()
        for item in baseline:
            conn.stub.Store(item.memory, metadata=conn.metadata, timeout=60)  # type: ignore[attr-defined]
        store_rate = sample / (time.perf_counter() - started)
        lexical = import_memories(conn, _memories("lex", memories), wait_embedded=False)  # type: ignore[arg-type]
        dense = import_memories(conn, _memories("dense", memories), wait_embedded=True)  # type: ignore[arg-type]
        again = import_memories(conn, _memories("dense", 0), wait_embedded=False)
    assert lexical["stored"] == memories and dense["stored"] == memories and dense["embedded"], dense
    del again
    texts = [m.memory.text for m in _memories("model", min(memories, 2000))]  # type: ignore[attr-defined]
    embedder = load_default_embedder()
    embedder.embed(texts[:64])
    batch = ConsumerSettings.batch
    started = time.perf_counter()
    for start in range(0, len(texts), batch):
        embedder.embed(texts[start : start + batch])
    model_rate = len(texts) / (time.perf_counter() - started)
    lex_rate, dense_rate = float(lexical["per_second"]), float(dense["per_second"])
    return (
        "### Import (memories/s until recallable)\n\n"
        "| path | memories | seconds | memories/s | vs old Store path |\n"
        "|---|---|---|---|---|\n"
        f"| old: one Store per memory (lexically recallable) | {sample:,} | {sample / store_rate:.2f} "
        f"| {store_rate:,.0f} | 1.00x |\n"
        f"| new: import, lexically recallable | {memories:,} | {lexical['seconds']:.2f} | {lex_rate:,.0f} "
        f"| {lex_rate / store_rate:.1f}x |\n"
        f"| new: import, every dense vector applied | {memories:,} | {dense['seconds']:.2f} "
        f"| {dense_rate:,.0f} | {dense_rate / store_rate:.1f}x |\n"
        f"| the model alone (all-MiniLM-L6-v2, batches of {batch}, this process) | {len(texts):,} | "
        f"{len(texts) / model_rate:.2f} | {model_rate:,.0f} | |\n\n"
        f"Of the lexical import's {lexical['seconds']:.2f} s, appending to LOG took "
        f"{lexical['append_seconds']:.2f} s (overlapped with preparing the next batch); the rest is the "
        "projection folding the stored events while the embed service, in the same process, embeds them. "
        f"With vectors the embedder is the bound: the model alone embeds {model_rate:,.0f} texts/s; in the "
        f"stack the embed service (batches of {batch}, its durable's batch size) shares the two cores with "
        "the gateway folding the same import.\n"
    )


def synthetic_tree(root: Path) -> Path:
    """A git repository of Django's size from what is on disk: opentelemetry-python (the mirror under
    /work/.mirror) three times, plus this repository (about 4,000 files, 2,800 of them Python)."""
    mirror = Path("/work/.mirror/open-telemetry+opentelemetry-python/repo")
    if (root / ".git").is_dir():
        return root
    root.mkdir(parents=True, exist_ok=True)
    for copy in ("a", "b", "c"):
        (root / copy).mkdir()
        archive = subprocess.run(
            ["git", f"--git-dir={mirror}", "archive", "HEAD"], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(root / copy)], input=archive.stdout, check=True)
    (root / "d").mkdir()
    here = subprocess.run(["git", "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root / "d")], input=here, check=True)
    git = ["git", "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "tree"], cwd=root, check=True)
    return root


def _parse_only(tree: Path) -> tuple[int, float]:
    from codememory.code.indexer import index_repository

    started = time.perf_counter()
    files = sum(1 for _ in index_repository(tree, "parse-only", {}, workers=2))
    return files, time.perf_counter() - started


def index_rates(home: Path, tree: Path) -> str:
    """The index section: ``codememory index`` end to end against parsing alone, same tree, same run."""
    files, parse_s = _parse_only(tree)
    env = {**os.environ, "CODEMEMORY_HOME": str(home)}
    codememory = Path(sys.executable).parent / "codememory"
    started = time.perf_counter()
    done = subprocess.run(
        [str(codememory), "index", str(tree), "--repo", "bench-index", "--json"],
        env=env, capture_output=True, check=False,
    )  # fmt: skip
    index_s = time.perf_counter() - started
    if done.returncode != 0:
        error = done.stderr.decode()[-600:]
        return f"### Index\n\n`codememory index` failed after {index_s:.1f} s: {error}\n"
    report = json.loads(done.stdout)
    parsed = int(report.get("parsed", files))
    return (
        "### Index (files/s end to end, embeddings excluded)\n\n"
        "| path | files | seconds | files/s |\n|---|---|---|---|\n"
        f"| parsing alone (2 worker processes, nothing sent) | {files:,} | {parse_s:.2f} "
        f"| {files / parse_s:,.0f} |\n"
        f"| `codememory index`: parse, RecordCode, applied to the code graph | {parsed:,} | {index_s:.2f} "
        f"| {parsed / index_s:,.0f} |\n\n"
        f"Tree: {tree.name}, a synthetic repository of Django's size (opentelemetry-python three times "
        "plus this repository; Django itself is not on this machine). Index / parse time: "
        f"{index_s / parse_s:.2f}x. Embeddings excluded: RecordCode returns once the facts are in the "
        "code graph; the embed service embeds the symbols afterwards (in the same process, so it competes "
        "for the two cores while the facts are applied). Today's figure (issue 14): 337 files in 6 s, "
        "about 56 files/s. Target: 300 files/s.\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=5000, help="imported memories")
    parser.add_argument("--sample", type=int, default=200, help="stored one at a time (baseline)")
    parser.add_argument("--replay", type=int, default=10_000, help="memories in LOG for replay")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-import", action="store_true", help="replay only (no stack)")
    parser.add_argument("--tree", default="/tmp/bench-event-path-tree", help="built if missing")
    args = parser.parse_args()
    replay = asyncio.run(replay_rates(args.replay, args.runs))
    events = int(str(replay["events"]))
    old_fold, new_fold = float(str(replay["old_fold_s"])), float(str(replay["new_fold_s"]))
    hnsw = float(str(replay["new_hnsw_s"]))
    body = (
        "### Replay (no re-embedding)\n\n"
        "| path | events | fold s | fold events/s | + HNSW build s | events/s incl. HNSW |\n"
        "|---|---|---|---|---|---|\n"
        f"| old: LOG read one record at a time | {events:,} | {old_fold:.2f} | {events / old_fold:,.0f} "
        f"| {float(str(replay['old_hnsw_s'])):.2f} "
        f"| {events / (old_fold + float(str(replay['old_hnsw_s']))):,.0f} |\n"
        f"| new: LOG read in batches | {events:,} | {new_fold:.2f} | {events / new_fold:,.0f} "
        f"| {hnsw:.2f} | {events / (new_fold + hnsw):,.0f} |\n\n"
        f"Fold new / old: {old_fold / new_fold:.2f}x faster; medians of {args.runs} runs; both rebuilt "
        "projections have the same digest. Target: 10,000 events/s.\n"
    )
    if not args.skip_import:
        with embedded_stack() as stack:
            rates = import_rates(stack, args.memories, args.sample)
            indexing = index_rates(stack, synthetic_tree(Path(args.tree)))
        body += "\n" + rates + "\n" + indexing
    print(json.dumps(replay))
    write_section("bench_event_path", "The event path at scale: bulk import and replay", body)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"took {time.perf_counter() - started:.0f}s")
