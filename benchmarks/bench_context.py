"""Session context on a real stack: how many known-relevant memories each budget brings, and at what cost.

Starts ``codememory up`` (real nats-server, ingest, embed with the real model, gateway, Qdrant Edge) in a
temp home, then replays:
- every sample payload in ``../shared/data/hooks`` (and its ``claude_docs``) through the real
  ``codememory hook`` process, one process each;
- a seeded month of synthetic sessions (``synthetic_history.py``) through the hook's own code path
  in-process (``build_message`` + the hook's NATS connection, pipelined), because a month of history
  has to carry its own time: the hook stamps ``received_at`` with the clock, and only in-process can
  that clock be the session's. Repos are real directories with ``.git/HEAD``, switched per session,
  so repo and branch are found the way the hook finds them.

When ingest, embed and the projection have caught up, each situation (repo, branch, directory, maybe a
first prompt) asks ``SessionContext`` over gRPC with budgets of 500, 1,500 and 4,000 tokens. Reported
per budget: known-relevant facts included (a fact counts when its marker phrase is in the context
text), tokens as reported and as re-counted with the same estimator, memories included, latency p50.
Same run, same data, in-process with the same recalled candidates (gRPC ``Recall``):
- ``recency only``: the repo's most recent memories packed to the budget (the baseline);
- ``legacy packing``: greedy by rank, whole lines (``ContextPolicy.legacy()``), i.e. before;
- ``policy packing``: ``ContextPolicy()``, the default the gateway now serves, i.e. after.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_context.py [--sessions 18] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, write_section
from synthetic_history import History, Situation, generate

from codememory.hookclient import HookSettings
from codememory.hookclient.gitrepo import repository_identity
from codememory.hookclient.message import build_message
from codememory.hookclient.wire import NatsConnection
from codememory.recall.context import (
    ContextPolicy,
    ContextRequest,
    SessionContext,
    build_context,
    estimate_tokens,
    pack,
)
from codememory.recall.query import RecallQuery
from codememory.recall.recaller import RecallHit
from codememory.recall.scoring import ScoreParts
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from shared_data import HOOKS_DATA

BIN = Path(sys.executable).parent
HOOKS = HOOKS_DATA
BUDGETS = (500, 1500, 4000)
_AGENT_PREFIX = {"claude": "claude", "cursor": "cursor", "codex": "codex", "gemini": "gemini"}


def _start(home: Path) -> tuple[subprocess.Popen[bytes], dict[str, str], dict[str, str]]:
    env = {**os.environ, "CODEMEMORY_HOME": str(home), "CODEMEMORY_UP_GRPC_LISTEN": "127.0.0.1:0"}
    env["HF_HUB_OFFLINE"] = "1"
    env.pop("CODEMEMORY_NATS_URL", None)
    log = (home / "up.log").open("wb")
    process = subprocess.Popen([str(BIN / "codememory"), "up"], env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while not (home / "runtime.json").is_file():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"codememory up failed:\n{(home / 'up.log').read_text()[-3000:]}")
        time.sleep(0.2)
    return process, env, json.loads((home / "runtime.json").read_text())


def _replay_samples(env: dict[str, str]) -> tuple[int, float]:
    """Every sample payload through the real ``codememory hook`` process; (count, median ms)."""
    files = sorted(HOOKS.glob("*.json")) + sorted((HOOKS / "claude_docs").glob("*.json"))
    times: list[float] = []
    for path in files:
        agent = _AGENT_PREFIX.get(path.name.split("_", 1)[0], "claude")
        started = time.perf_counter()
        subprocess.run(
            [str(BIN / "codememory"), "hook", "--agent", agent],
            input=path.read_bytes(),
            env=env,
            capture_output=True,
            check=True,
            timeout=60,
        )
        times.append((time.perf_counter() - started) * 1000)
    return len(files), median(times)


def _replay_history(history: History, root: Path, env: dict[str, str]) -> int:
    """The synthetic sessions through the hook's message building and publish path, each at its own time."""
    settings = HookSettings.from_env(env)
    assert settings.nats_url, "no NATS URL for the stack"
    messages = []
    for event in history.events:
        (root / event.repo / ".git" / "HEAD").write_text(f"ref: refs/heads/{event.branch}\n")
        raw = json.dumps(event.payload).encode()
        messages.append(
            build_message(
                event.agent, raw, tenant=settings.tenant, max_field=settings.max_field, now=event.at
            )
        )
    with NatsConnection.connect(  # as the stack's hook user (secrets/hook.json), as the hook does
        settings.nats_url,
        10.0,
        user=settings.nats_user,
        password=settings.nats_password,
        ca=settings.nats_ca,
    ) as conn:
        for start in range(0, len(messages), 200):
            batch = messages[start : start + 200]
            results = conn.publish_many([(m.subject, m.data, {"Nats-Msg-Id": m.msg_id}) for m in batch], 30.0)
            failed = [r for r in results if isinstance(r, Exception)]
            if failed:
                raise SystemExit(f"publish failed: {failed[0]}")
    return len(messages)


def _wait_caught_up(stub: memory_pb2_grpc.MemoryServiceStub, meta: tuple[tuple[str, str], ...]) -> int:
    deadline = time.monotonic() + 1800
    while True:
        status = stub.Status(pb.StatusRequest(), metadata=meta, timeout=10)
        if (
            status.caught_up
            and not any(status.consumer_pending.values())
            and status.stream_messages["HOOKS"] == 0
        ):
            return int(status.memories)
        if time.monotonic() > deadline:
            raise SystemExit(f"not caught up: {status}")
        time.sleep(0.5)


def _payload(memory: pb.Memory) -> dict[str, object]:
    return {
        "text": memory.text,
        "type": memory.type,
        "created_at": memory.created_at,
        "session_id": memory.scope.session_id,
        "repo": memory.scope.repo,
        "branch": memory.scope.branch,
        "importance": memory.importance,
        "state": memory.state,
    }


class GrpcRecaller:
    """Recall through the gateway, as ``HitSource``: the in-process packers see the stack's own ranking."""

    def __init__(self, stub: memory_pb2_grpc.MemoryServiceStub, meta: tuple[tuple[str, str], ...]) -> None:
        self._stub, self._meta = stub, meta
        self._cache: dict[tuple[str, int, str, str, tuple[str, ...]], list[RecallHit]] = {}

    def recall(self, query: RecallQuery) -> list[RecallHit]:
        key = (query.text, query.limit, query.repo, query.cwd, query.types)
        if key not in self._cache:
            request = pb.RecallRequest(
                query=query.text, limit=query.limit, repo=query.repo, cwd=query.cwd, types=list(query.types)
            )
            hits = self._stub.Recall(request, metadata=self._meta, timeout=30).hits
            self._cache[key] = [
                RecallHit(
                    h.memory.id,
                    _payload(h.memory),
                    ScoreParts(
                        dense=h.score.dense,
                        lexical=h.score.lexical,
                        recency=h.score.recency,
                        importance=h.score.importance,
                        scope=h.score.scope,
                        total=h.score.total,
                        link=h.score.link,
                    ),
                )
                for h in hits
            ]
        return self._cache[key]


def _recent(
    stub: memory_pb2_grpc.MemoryServiceStub, meta: tuple[tuple[str, str], ...], repo: str
) -> list[RecallHit]:
    exported = stub.Export(pb.ExportRequest(repo=repo), metadata=meta, timeout=60)
    memories = [m for m in exported if m.state in ("active", "deprecated")]  # what recall can return
    memories.sort(key=lambda m: -m.created_at)
    zero = ScoreParts(dense=0, lexical=0, recency=0, importance=0, scope=0, total=0)
    return [RecallHit(m.id, _payload(m), zero) for m in memories]


def _identity(root: Path, name: str) -> str:
    """The repository identity the hook recorded for ``root/name`` (``hookclient.gitrepo``: the work
    tree's path here, as these repos have no remote); memories are scoped by it, not by the folder name."""
    return repository_identity(str(root / name))


def _found(situation: Situation, text: str) -> int:
    return sum(fact.marker in text for fact in situation.relevant)


class Tally:
    """Per method and budget: facts found, relevant total, tokens, recounted tokens, memories, latencies."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, int], list[tuple[int, int, int, int, int]]] = {}
        self.latency: dict[int, list[float]] = {}

    def add(self, method: str, budget: int, situation: Situation, ctx: SessionContext) -> None:
        row = (
            _found(situation, ctx.text),
            len(situation.relevant),
            ctx.tokens,
            estimate_tokens(ctx.text),
            len(ctx.memory_ids),
        )
        self.rows.setdefault((method, budget), []).append(row)

    def line(self, method: str, budget: int) -> str:
        rows = self.rows[(method, budget)]
        found, total = sum(r[0] for r in rows), sum(r[1] for r in rows)
        tokens = median([float(r[2]) for r in rows])
        recount = median([float(r[3]) for r in rows])
        over = sum(r[2] > budget or r[3] > budget for r in rows)
        memories = median([float(r[4]) for r in rows])
        lat = f"{median(self.latency[budget]):.0f}" if method == "gRPC SessionContext" else ""
        return (
            f"| {method} | {budget} | {found}/{total} ({found / total:.0%}) | {tokens:.0f} | {recount:.0f} "
            f"| {over} | {memories:.0f} | {lat} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=18, help="synthetic sessions per repo")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--repeats", type=int, default=5, help="gRPC calls per situation and budget (latency)"
    )
    parser.add_argument("--section", default="bench_context", help="RESULTS.md section to write")
    parser.add_argument("--dump", default="", help="write each situation's recalled candidates here (JSON)")
    parser.add_argument(
        "--consolidate",
        action="store_true",
        help="then run a consolidation cycle (Consolidate RPC) and measure the gateway's context again",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "src"
        home.mkdir()
        history = generate(
            str(root), end=time.time() - 3600, seed=args.seed, days=args.days, sessions_per_repo=args.sessions
        )
        for repo in history.repos:
            (root / repo / ".git").mkdir(parents=True)
        process, env, runtime = _start(home)
        try:
            started = time.perf_counter()
            samples, hook_ms = _replay_samples(env)
            synthetic = _replay_history(history, root, env)
            stub = memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(runtime["grpc_address"]))
            meta = (("authorization", f"Bearer {(home / 'token').read_text().strip()}"),)
            memories = _wait_caught_up(stub, meta)
            ingest_s = time.perf_counter() - started
            tally = _measure(history, root, stub, meta, args.repeats)
            consolidated = ""
            if args.consolidate:
                report = stub.Consolidate(pb.ConsolidateRequest(), metadata=meta, timeout=900)
                consolidated = (
                    f" Then one consolidation cycle ran ({report.took_ms / 1000:.1f} s: "
                    f"{report.merged} merged, {report.superseded} superseded, {report.archived} archived, "
                    f"{report.insights} insights, {report.summaries} session summaries) and the gateway's "
                    "context was measured again (rows 'after consolidation')."
                )
                after = _measure(history, root, stub, meta, 1)
                for (method, budget), rows in after.rows.items():
                    if method in ("gRPC SessionContext", "policy packing (after)"):
                        tally.rows[(f"{method} after consolidation", budget)] = rows
            misses = _misses(history, root, stub, meta)
            if args.dump:
                _dump(Path(args.dump), history, root, GrpcRecaller(stub, meta))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    methods = (
        "recency only (baseline)",
        "legacy packing (before)",
        "policy packing (after)",
        "gRPC SessionContext",
        *(
            ("policy packing (after) after consolidation", "gRPC SessionContext after consolidation")
            if args.consolidate
            else ()
        ),
    )
    table = "\n".join(tally.line(m, b) for b in BUDGETS for m in methods)
    relevant = sum(len(s.relevant) for s in history.situations)
    body = (
        f"{samples} sample hook payloads through `codememory hook` processes (median {hook_ms:.0f} ms each) "
        f"and {synthetic} synthetic payloads ({args.sessions} sessions per repo over {args.days} days, seed "
        f"{args.seed}; Claude Code, Codex, Cursor and Gemini shapes) published through the hook's own code "
        f"in-process with their historical `received_at`; {memories} memories after ingest and embedding "
        f"({ingest_s:.0f} s to caught up). {len(history.situations)} new-session situations, {relevant} "
        "known-relevant facts in all (a fact counts when its marker phrase is in the context).\n\n"
        "| method | budget | relevant facts included | tokens (reported) | tokens (re-counted) | over budget "
        "| memories included | p50 ms |\n|---|---|---|---|---|---|---|---|\n"
        f"{table}\n\n"
        "Recency only: the repo's newest memories packed whole. Legacy and policy packing run in-process "
        "over the same gRPC `Recall` candidates; the gRPC row is what the gateway serves "
        "(the default policy). "
        "p50 is the gRPC call, measured on a 2-core machine shared with other jobs (noisy).\n\n"
        f"Facts missed by the policy at 4,000 tokens: {misses or 'none'}.{consolidated}"
    )
    title = f"Session context: known-relevant memories per budget (synthetic history, seed {args.seed})"
    write_section(args.section, title, body)


def _measure(
    history: History,
    root: Path,
    stub: memory_pb2_grpc.MemoryServiceStub,
    meta: tuple[tuple[str, str], ...],
    repeats: int,
) -> Tally:
    tally = Tally()
    source = GrpcRecaller(stub, meta)
    for situation in history.situations:
        cwd = str(root / situation.repo / situation.cwd).rstrip("/")
        repo = _identity(root, situation.repo)
        recent = _recent(stub, meta, repo)
        session = f"new-{uuid.uuid4().hex}"
        scope = ContextRequest(
            tenant="local",
            repo=repo,
            branch=situation.branch,
            cwd=cwd,
            session_id=session,
            prompt=situation.prompt,
        )
        for budget in BUDGETS:
            tally.add(
                "recency only (baseline)", budget, situation, pack(recent, budget, ContextPolicy.legacy())
            )
            for method, policy in (
                ("legacy packing (before)", ContextPolicy.legacy()),
                ("policy packing (after)", ContextPolicy()),
            ):
                asked = msgspec.structs.replace(scope, budget_tokens=budget)
                ctx = build_context(source, asked, policy=policy)
                tally.add(method, budget, situation, ctx)
            for _ in range(repeats):
                # each call a new session: a session's later prompts are not given again what it
                # was given (``gateway.givencontext``), and every call here stands for the first
                request = pb.SessionContextRequest(
                    repo=repo,
                    branch=situation.branch,
                    cwd=cwd,
                    session_id=f"new-{uuid.uuid4().hex}",
                    prompt=situation.prompt,
                    budget_tokens=budget,
                )
                started = time.perf_counter()
                reply = stub.SessionContext(request, metadata=meta, timeout=30)
                tally.latency.setdefault(budget, []).append((time.perf_counter() - started) * 1000)
            tally.add(
                "gRPC SessionContext",
                budget,
                situation,
                SessionContext(reply.context, reply.tokens, tuple(reply.memory_ids)),
            )
    return tally


def _misses(
    history: History, root: Path, stub: memory_pb2_grpc.MemoryServiceStub, meta: tuple[tuple[str, str], ...]
) -> str:
    source: Callable[[], GrpcRecaller] = lambda: GrpcRecaller(stub, meta)  # noqa: E731
    out = []
    for s in history.situations:
        cwd = str(root / s.repo / s.cwd).rstrip("/")
        asked = ContextRequest(
            tenant="local",
            repo=_identity(root, s.repo),
            branch=s.branch,
            cwd=cwd,
            prompt=s.prompt,
            budget_tokens=4000,
        )
        ctx = build_context(source(), asked)
        out += [f"{s.name}: “{f.marker}”" for f in s.relevant if f.marker not in ctx.text]
    return "; ".join(out)


def _dump(path: Path, history: History, root: Path, source: GrpcRecaller) -> None:
    """Candidates per situation and pool size, to study packing offline without a stack."""
    out = []
    for s in history.situations:
        cwd = str(root / s.repo / s.cwd).rstrip("/")
        text = s.prompt.strip() or " ".join(p for p in (s.repo, s.branch, cwd.rsplit("/", 1)[-1]) if p)
        repo = _identity(root, s.repo)
        pools = {}
        for limit in (50, 100, 200, 500):
            hits = source.recall(RecallQuery(tenant="local", text=text, limit=limit, repo=repo, cwd=cwd))
            pools[str(limit)] = [
                {"id": h.memory_id, "payload": h.payload, "total": h.parts.total} for h in hits
            ]
        out.append({"name": s.name, "markers": [f.marker for f in s.relevant], "pools": pools})
    path.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
