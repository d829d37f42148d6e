"""Consolidation on a real stack: does the amending memory outrank the one it replaced, and do restatements
collapse into one canonical memory, without losing what only looks similar.

Data (``consolidation_data.py``, hand-written, laid out deterministically): ``data/supersession.json``
(rules decided in one session and amended in a later one, near-miss pairs that must not supersede each
other, among filler sessions) and ``data/duplicates.json`` (facts restated 5 to 25 times, and similar but
unrelated memories). Their times are shifted by one offset so the newest memory is a day old now.

For each weights configuration, ``codememory up`` starts in a temp home (real nats-server, ingest, embed
with the real model, gateway, Qdrant Edge; ``CODEMEMORY_GATEWAY_WEIGHTS`` set for the single-signal
rows), every memory of both sets is stored through gRPC ``Store`` (deterministic uuid5 ids, ISO
``created_at``, scope repo and session, each repo's memories in time order), and the harness waits until
LOG is embedded and projected (``Status``: caught up, nothing pending). Then, per question (``Recall``,
limit 10, repo set):

- supersession: the amendment ranks above the decision it amends (a decision absent from the top 10
  counts as below, but the amendment has to be in the top 10), and the amendment is in the top 5;
  near-misses: each memory is still active and in the top 5 for its own question;
- duplicates: how many of the fact's memories (restatements, the canonical memory they were merged
  into, insights drawn from them) are in the top 10, whether the first of them is the canonical one
  (``restated`` > 1 or the id they were merged into), and whether each similar-but-unrelated memory
  is active and in the top 5. By claim as well: a fact may make several statements (claims, annotated
  in ``consolidation_data.py``) and only restatements of one claim are duplicates, so the same top 10
  is counted per claim (``claims_in_top``): at most 2 of one claim, and how many claims show.

Configurations: ``bm25`` (lexical weight only), ``dense`` (dense weight only), ``hybrid`` (the
defaults) before and after ``MemoryService.Consolidate``; when the server answers UNIMPLEMENTED (or
fails), the after rows say so. ``--quick``: a small subset, hybrid only, nothing written to RESULTS.md.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_consolidation.py [--quick] [--configs bm25,hybrid]
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
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from consolidation_data import build_duplicates, build_supersession
from results import write_section

from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc

BIN = Path(sys.executable).parent
SECTION = "bench_consolidation"
SINGLE = "recency=0,importance=0,scope=0,author=0,link=0,feedback=0,latest_margin=0,restated=0"
CONFIGS: dict[str, str] = {
    "bm25": f"dense=0,lexical=1,{SINGLE}",
    "dense": f"dense=1,lexical=0,{SINGLE}",
    "hybrid": "",
}
# heldout2 to heldout6: duplicate facts written in sessions 20, 21, 22, 23 and 24, each before that
# session's runs on them; heldout7 (consolidation_heldout7.py) likewise, in a later session
SPLITS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7")
# heldout2: rules and near misses written in session 21; heldout3 (consolidation_rules_heldout3.py) likewise,
# in a later session
SUP_SPLITS = ("dev", "heldout", "heldout2", "heldout3")
TARGET_ABOVE, TARGET_TOP5, TARGET_RESTATED = 0.90, 0.95, 2
SCORE_PARTS = ("dense", "lexical", "recency", "importance", "scope", "link", "total")  # in --details

Meta = tuple[tuple[str, str], ...]
T = TypeVar("T")


# ------------------------------------------------------------------------------------------ the stack


@dataclass
class Stack:
    home: Path
    process: subprocess.Popen[bytes]
    stub: memory_pb2_grpc.MemoryServiceStub
    meta: Meta
    channel: grpc.Channel

    def stop(self) -> None:
        self.channel.close()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(home: Path, weights: str) -> Stack:
    """``codememory up`` in ``home`` on a free loopback port, with ``weights`` for the gateway if set."""
    env = {
        **os.environ,
        "CODEMEMORY_HOME": str(home),
        "CODEMEMORY_UP_GRPC_LISTEN": "127.0.0.1:0",
        "HF_HUB_OFFLINE": "1",
    }
    env.pop("CODEMEMORY_NATS_URL", None)
    env.pop("CODEMEMORY_GATEWAY_WEIGHTS", None)
    env.pop("CODEMEMORY_WEIGHTS", None)
    if weights:
        env["CODEMEMORY_GATEWAY_WEIGHTS"] = weights
    with (home / "up.log").open("wb") as log:
        process = subprocess.Popen(
            [str(BIN / "codememory"), "up"], env=env, stdout=log, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + 300
    while not (home / "runtime.json").is_file():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"codememory up failed:\n{(home / 'up.log').read_text()[-3000:]}")
        time.sleep(0.2)
    runtime = json.loads((home / "runtime.json").read_text())
    channel = grpc.insecure_channel(runtime["grpc_address"])
    meta = (("authorization", f"Bearer {(home / 'token').read_text().strip()}"),)
    stack = Stack(home, process, memory_pb2_grpc.MemoryServiceStub(channel), meta, channel)
    try:  # runtime.json can precede the listening socket, and a gateway reading LOG refuses requests
        grpc.channel_ready_future(channel).result(timeout=120)
        patiently(lambda: stack.stub.Status(pb.StatusRequest(), metadata=meta, timeout=10))
    except Exception:
        stack.stop()
        raise SystemExit(f"codememory up did not serve:\n{(home / 'up.log').read_text()[-3000:]}") from None
    return stack


def patiently(call: Callable[[], T], attempts: int = 60) -> T:
    """``call()``, again after a second while the server answers UNAVAILABLE (starting, or catching up)."""
    for attempt in range(attempts):
        try:
            return call()
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE or attempt == attempts - 1:
                raise
            time.sleep(1.0)
    raise AssertionError("unreachable")


def wait_caught_up(stack: Stack, timeout: float = 1800) -> pb.StatusResponse:
    """Until every projection is level with LOG and no durable consumer (embed included) has pending work."""
    deadline = time.monotonic() + timeout
    while True:
        status = patiently(lambda: stack.stub.Status(pb.StatusRequest(), metadata=stack.meta, timeout=10))
        if (
            status.caught_up
            and not any(status.consumer_pending.values())
            and status.stream_messages["HOOKS"] == 0
        ):
            return status
        if time.monotonic() > deadline:
            raise SystemExit(f"not caught up after {timeout:.0f} s: {status}")
        time.sleep(0.5)


def store_all(stack: Stack, memories: list[dict[str, Any]]) -> None:
    """Every memory through ``Store``; one thread per repo, each storing its repo's memories in time order
    (the lexical text of a memory carries the previous memory of its session, fixed in LOG order)."""
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for memory in sorted(memories, key=lambda m: (m["created_at"], m["id"])):
        by_repo[memory["repo"]].append(memory)

    def store(rows: list[dict[str, Any]]) -> None:
        for m in rows:
            request = pb.StoreRequest(
                text=m["text"],
                type=m["type"],
                memory_id=m["id"],
                created_at=m["created_at"],
                scope=pb.Scope(repo=m["repo"], session_id=m["session_id"]),
            )
            patiently(partial(stack.stub.Store, request, metadata=stack.meta, timeout=120))

    with ThreadPoolExecutor(max_workers=min(4, len(by_repo))) as pool:
        list(pool.map(store, by_repo.values()))


# ------------------------------------------------------------------------------------------ the data


def load() -> tuple[dict[str, Any], dict[str, Any]]:
    """Both sets as ``consolidation_data.py`` lays them out (deterministic; not kept in git)."""
    return build_supersession(), build_duplicates()


def shifted(
    memories: Iterable[dict[str, Any]], newest_age: timedelta = timedelta(days=1)
) -> list[dict[str, Any]]:
    """The memories with every time moved by one offset, so the newest is ``newest_age`` old now."""
    rows = list(memories)
    times = [datetime.fromisoformat(m["created_at"].replace("Z", "+00:00")) for m in rows]
    offset = datetime.now(UTC) - newest_age - max(times)
    return [
        {**m, "created_at": (t + offset).isoformat().replace("+00:00", "Z")}
        for m, t in zip(rows, times, strict=True)
    ]


def without_splits(dup: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    """The duplicate set without the facts and similar memories of ``skip`` and without their repos'
    memories (a held-out split kept out of sight while tuning; each split has repos of its own)."""
    gone = {f["repo"] for f in dup["facts"] if f.get("split", "dev") in skip}
    return {
        **dup,
        "facts": [f for f in dup["facts"] if f.get("split", "dev") not in skip],
        "similar": [s for s in dup["similar"] if s.get("split", "dev") not in skip],
        "memories": [m for m in dup["memories"] if m["repo"] not in gone],
    }


def quick_subset(sup: dict[str, Any], dup: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A smoke run: 4 rules and 2 near-misses per split, 2 facts and 2 similar memories per split, the
    sessions that hold them and 10 filler sessions per set."""
    rules = [r for split in SPLITS for r in [r for r in sup["rules"] if r["split"] == split][::6]][:8]
    near = [n for split in SPLITS for n in [n for n in sup["near_misses"] if n["split"] == split][::4]][:4]

    def of(rows: list[dict[str, Any]], split: str) -> list[dict[str, Any]]:
        return [r for r in rows if r.get("split", "dev") == split]

    small = [f for f in dup["facts"] if len(f["restatements"]) <= 8]
    facts = [f for split in SPLITS for f in of(small, split)[:2]]
    similar = [s for split in SPLITS for s in of(dup["similar"], split)[:2]]

    def keep(data: dict[str, Any], ids: set[str]) -> list[dict[str, Any]]:
        sessions = {m["session_id"] for m in data["memories"] if m["id"] in ids}
        filler = sorted({m["session_id"] for m in data["memories"]} - sessions)[:10]
        sessions |= set(filler)
        return [m for m in data["memories"] if m["session_id"] in sessions]

    sup_ids = {i for r in rules for i in (r["decision"], r["amendment"])} | {
        i for n in near for i in n["memories"]
    }
    dup_ids = {i for f in facts for i in f["restatements"]} | {s["memory"] for s in similar}
    return (
        {**sup, "rules": rules, "near_misses": near, "memories": keep(sup, sup_ids)},
        {**dup, "facts": facts, "similar": similar, "memories": keep(dup, dup_ids)},
    )


# ------------------------------------------------------------------------------------------ measuring


@dataclass
class View:
    """What the stack says about memories: active ones (Export), and per id what History or a hit said."""

    active: dict[str, pb.Memory] = field(default_factory=dict)
    known: dict[str, pb.Memory] = field(default_factory=dict)
    history: bool | None = None  # whether the History RPC answers
    scores: dict[str, pb.ScoreParts] = field(default_factory=dict)  # the last recall's, by memory id

    @classmethod
    def of(cls, stack: Stack) -> View:
        rows = stack.stub.Export(pb.ExportRequest(), metadata=stack.meta, timeout=300)
        return cls(active={m.id: m for m in rows if m.state == "active"})

    def memory(self, stack: Stack, memory_id: str) -> pb.Memory | None:
        """The memory as History shows it (any state), or as last seen in a hit; None when unknown."""
        if memory_id in self.known:
            return self.known[memory_id]
        if self.history is not False:
            try:
                reply = stack.stub.History(
                    pb.HistoryRequest(memory_id=memory_id), metadata=stack.meta, timeout=30
                )
                self.history = True
                self.known[memory_id] = reply.memory
                return reply.memory
            except grpc.RpcError as exc:
                if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
                    self.history = False
                elif exc.code() != grpc.StatusCode.NOT_FOUND:
                    raise
        return self.active.get(memory_id)

    def state(self, stack: Stack, memory_id: str) -> str:
        if memory_id in self.active:
            return "active"
        found = self.memory(stack, memory_id)
        return found.state if found is not None and found.state else "not active"


def recall(
    stack: Stack, view: View, question: str, repo: str, *, history: bool = False, limit: int = 10
) -> list[pb.Memory]:
    request = pb.RecallRequest(query=question, limit=limit, repo=repo, include_history=history)
    found = stack.stub.Recall(request, metadata=stack.meta, timeout=60).hits
    view.scores = {h.memory.id: h.score for h in found}
    for hit in found:
        view.known.setdefault(hit.memory.id, hit.memory)
    return [h.memory for h in found]


@dataclass
class Supersession:
    """Per split: questions, amendment above, amendment in top 5; near-miss memories, active and top 5."""

    questions: Counter[str] = field(default_factory=Counter)
    above: Counter[str] = field(default_factory=Counter)
    top5: Counter[str] = field(default_factory=Counter)
    near: Counter[str] = field(default_factory=Counter)
    near_ok: Counter[str] = field(default_factory=Counter)
    near_inactive: Counter[str] = field(default_factory=Counter)
    superseded_by_amendment: Counter[str] = field(default_factory=Counter)
    rules: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    near_lost: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # per question, for --details


def measure_supersession(stack: Stack, view: View, data: dict[str, Any], *, after: bool) -> Supersession:
    out = Supersession()
    for rule in data["rules"]:
        split = rule["split"]
        out.rules[split] += 1
        for question in rule["questions"]:
            ids = [m.id for m in recall(stack, view, question, rule["repo"])]
            amend = ids.index(rule["amendment"]) if rule["amendment"] in ids else None
            decision_rank = ids.index(rule["decision"]) if rule["decision"] in ids else None
            out.questions[split] += 1
            above = amend is not None and (decision_rank is None or amend < decision_rank)
            out.above[split] += above
            out.top5[split] += amend is not None and amend < 5
            out.records.append(
                {
                    "rule": rule["id"],
                    "split": split,
                    "question": question,
                    "amendment_rank": amend,
                    "decision_rank": decision_rank,
                    "above": above,
                }
            )
            if not above:
                out.misses.append(
                    f"{rule['id']} ({split}) “{question}”: amendment "
                    f"{'absent' if amend is None else amend + 1}, decision "
                    f"{'absent' if decision_rank is None else decision_rank + 1}"
                )
        if after:  # after its questions: a hit that showed the decision tells its state without History
            decision = view.memory(stack, rule["decision"])
            if decision is not None and decision.superseded_by == rule["amendment"]:
                out.superseded_by_amendment[split] += 1
    for pair in data["near_misses"]:
        split = pair["split"]
        for memory_id, question in zip(pair["memories"], pair["questions"], strict=True):
            ids = [m.id for m in recall(stack, view, question, pair["repo"])]
            active = view.state(stack, memory_id) == "active"
            out.near[split] += 1
            out.near_ok[split] += active and memory_id in ids[:5]
            out.near_inactive[split] += not active
            out.records.append(
                {
                    "near_miss": pair["id"],
                    "split": split,
                    "question": question,
                    "memory": memory_id,
                    "rank": ids.index(memory_id) if memory_id in ids else None,
                    "active": active,
                }
            )
            if not (active and memory_id in ids[:5]):
                rank = ids.index(memory_id) + 1 if memory_id in ids else "absent"
                state = "active" if active else view.state(stack, memory_id)
                out.near_lost.append(f"{pair['id']} ({split}) “{question}”: {state}, rank {rank}")
    return out


@dataclass
class Duplicates:
    """Per split (facts without one count as dev): questions, fact found, restatement counts, at most 2,
    canonical first, similar memories active and in the top 5."""

    questions: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)  # the fact is in the top 10 at all
    counts: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    at_most: Counter[str] = field(default_factory=Counter)
    canonical_first: Counter[str] = field(default_factory=Counter)
    similar: Counter[str] = field(default_factory=Counter)
    similar_ok: Counter[str] = field(default_factory=Counter)
    similar_inactive: Counter[str] = field(default_factory=Counter)
    merged: Counter[str] = field(default_factory=Counter)  # restatements no longer active (merged)
    restatements: Counter[str] = field(default_factory=Counter)
    claim_at_most: Counter[str] = field(default_factory=Counter)  # every claim at most 2 in the top 10
    claims_shown: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # claims in top 10
    claims_per_fact: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    worst: list[str] = field(default_factory=list)
    similar_lost: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # per question, for --details


def merged_sources(stack: Stack, view: View, fact: dict[str, Any]) -> dict[str, set[str]]:
    """What the fact's restatements were merged into, and which of them each target took in (from History,
    or from recall with history when History is not served)."""
    out: dict[str, set[str]] = defaultdict(set)
    for memory_id in fact["restatements"]:
        if memory_id in view.active:
            continue
        found = view.memory(stack, memory_id)
        if found is not None and found.merged_into:
            out[found.merged_into].add(memory_id)
    if view.history is False:
        ids = set(fact["restatements"])
        for question in fact["questions"]:
            for m in recall(stack, view, question, fact["repo"], history=True, limit=100):
                if m.id in ids and m.merged_into:
                    out[m.merged_into].add(m.id)
    return dict(out)


def canonical_ids(
    stack: Stack, view: View, fact: dict[str, Any], merged: dict[str, set[str]] | None = None
) -> set[str]:
    """The canonical memories of a fact: restatements with ``restated`` > 1, and what they were merged
    into (``merged_sources``)."""
    out = {i for i in fact["restatements"] if i in view.active and view.active[i].restated > 1}
    return out | set(merged if merged is not None else merged_sources(stack, view, fact))


def evidence_of(memory: pb.Memory) -> set[str]:
    return set(memory.metadata.get("evidence", "").split(",")) - {""}


def claims_in_top(
    hits: Sequence[str],
    claims: Mapping[str, int],
    merged: Mapping[str, AbstractSet[str]],
    evidence: Mapping[str, AbstractSet[str]],
) -> Counter[int]:
    """How many of the fact's memories in the top 10 (``hits``, ids) make each of its claims. A
    restatement makes its own claim (``claims``: restatement id to claim); a memory restatements were
    merged into makes theirs too (``merged``: target id to the restatements it took in); an insight
    makes the claims of the memories it was drawn from (``evidence``: id to evidence ids, each counted as
    a restatement or a merge target, one level deep). A memory counts once for each claim it makes, so a
    canonical memory that took in two claims fills one place in each."""

    def own(memory_id: str) -> set[int]:
        out = {claims[i] for i in merged.get(memory_id, ()) if i in claims}
        return out | ({claims[memory_id]} if memory_id in claims else set())

    counts: Counter[int] = Counter()
    for memory_id in hits:
        made = own(memory_id)
        for source in evidence.get(memory_id, ()):
            made |= own(source)
        counts.update(made)
    return counts


def of_fact(memory: pb.Memory, mine: set[str]) -> bool:
    """One of the fact's memories: a restatement, its canonical memory, or an insight drawn from them
    (its ``evidence``: a convention lesson repeats the canonical wording)."""
    return memory.id in mine or bool(evidence_of(memory) & mine)


def measure_duplicates(stack: Stack, view: View, data: dict[str, Any]) -> Duplicates:
    out = Duplicates()
    for fact in data["facts"]:
        split = fact.get("split", "dev")
        merged = merged_sources(stack, view, fact)
        canonical = canonical_ids(stack, view, fact, merged)
        mine = set(fact["restatements"]) | canonical
        claims: dict[str, int] = fact.get("claims", {})
        out.claims_per_fact[split].append(len(set(claims.values())))
        out.restatements[split] += len(fact["restatements"])
        out.merged[split] += sum(i not in view.active for i in fact["restatements"])
        for question in fact["questions"]:
            top = recall(stack, view, question, fact["repo"])
            hits = [m for m in top if of_fact(m, mine)]
            out.questions[split] += 1
            out.found[split] += bool(hits)
            out.counts[split].append(len(hits))
            out.at_most[split] += len(hits) <= TARGET_RESTATED
            first = bool(hits) and (hits[0].id in canonical or hits[0].restated > 1)
            out.canonical_first[split] += first
            by_claim = claims_in_top(
                [h.id for h in hits], claims, merged, {h.id: evidence_of(h) for h in hits}
            )
            out.claim_at_most[split] += max(by_claim.values(), default=0) <= TARGET_RESTATED
            out.claims_shown[split].append(len(by_claim))
            out.records.append(
                {
                    "fact": fact["id"],
                    "split": split,
                    "question": question,
                    "in_top10": len(hits),
                    "hits": [h.id for h in hits],
                    "first": hits[0].id if hits else None,
                    "canonical": sorted(canonical),
                    "by_claim": {str(claim): n for claim, n in sorted(by_claim.items())},
                    "at_most_per_claim": max(by_claim.values(), default=0) <= TARGET_RESTATED,
                    "merged_into": {target: sorted(ids) for target, ids in sorted(merged.items())},
                    "top10": [
                        {
                            "id": m.id,
                            "type": m.type,
                            "restated": m.restated,
                            "fact": of_fact(m, mine),
                            "claim": claims.get(m.id),
                            "text": m.text[:120],
                        }
                        | {part: round(getattr(view.scores[m.id], part), 3) for part in SCORE_PARTS}
                        for m in top
                    ],
                }
            )
            if len(hits) > TARGET_RESTATED or not first:
                note = "" if first else ", canonical not first"
                out.worst.append(f"{fact['id']} ({split}) “{question}”: {len(hits)}{note}")
    for similar in data["similar"]:
        split = similar.get("split", "dev")
        top = recall(stack, view, similar["question"], similar["repo"])
        ids = [m.id for m in top]
        active = view.state(stack, similar["memory"]) == "active"
        memory = None if active else view.memory(stack, similar["memory"])
        replaced_by = view.memory(stack, memory.superseded_by) if memory and memory.superseded_by else None
        out.similar[split] += 1
        out.similar_ok[split] += active and similar["memory"] in ids[:5]
        out.similar_inactive[split] += not active
        rank = ids.index(similar["memory"]) if similar["memory"] in ids else None
        out.records.append(
            {
                "similar": similar["id"],
                "split": split,
                "question": similar["question"],
                "active": active,
                "rank": rank,
                "superseded_by": replaced_by.text[:120] if replaced_by else "",
                "top10": [
                    {"id": m.id, "type": m.type, "restated": m.restated, "text": m.text[:120]}
                    | {part: round(getattr(view.scores[m.id], part), 3) for part in SCORE_PARTS}
                    for m in top
                ],
            }
        )
        if not (active and rank is not None and rank < 5):
            state = "active" if active else view.state(stack, similar["memory"])
            shown = "absent" if rank is None else rank + 1
            out.similar_lost.append(
                f"{similar['id']} ({split}) “{similar['question']}”: {state}, rank {shown}"
            )
    return out


# ------------------------------------------------------------------------------------------ reporting


def pct(n: int, d: int) -> str:
    return f"{n}/{d} ({n / d:.0%})" if d else "–"


def sup_rows(name: str, result: Supersession | str) -> list[str]:
    if isinstance(result, str):
        return [f"| {name} | {split} | {result} | | | |" for split in SUP_SPLITS]
    r = result
    return [
        f"| {name} | {s} | {r.questions[s]} | {pct(r.above[s], r.questions[s])} "
        f"| {pct(r.top5[s], r.questions[s])} | {pct(r.near_ok[s], r.near[s])} |"
        for s in SUP_SPLITS
    ]


def dup_rows(name: str, result: Duplicates | str, *, after: bool) -> list[str]:
    if isinstance(result, str):
        return [f"| {name} | {split} | {result} | | | | | | |" for split in SPLITS]
    r, rows = result, []
    for s in (s for s in SPLITS if r.questions[s]):  # a skipped split has no questions
        counts = r.counts.get(s, [])
        mean = sum(counts) / len(counts) if counts else 0.0
        first = pct(r.canonical_first[s], r.questions[s]) if after else "– (nothing merged yet)"
        shown = r.claims_shown.get(s, [])
        claims = sum(shown) / len(shown) if shown else 0.0
        rows.append(
            f"| {name} | {s} | {pct(r.found[s], r.questions[s])} | {mean:.1f} / {max(counts, default=0)} "
            f"| {pct(r.at_most[s], r.questions[s])} | {pct(r.claim_at_most[s], r.questions[s])} "
            f"| {claims:.1f} | {first} | {pct(r.similar_ok[s], r.similar[s])} |"
        )
    return rows


@dataclass
class Run:
    name: str
    ingest_s: float
    memories: int
    sup: Supersession | str
    dup: Duplicates | str
    after: bool = False
    consolidate: str = ""
    states: str = ""  # after the cycle: each role's memories by state


def run_config(
    name: str,
    weights: str,
    sup: dict[str, Any],
    dup: dict[str, Any],
    memories: list[dict[str, Any]],
    tmp: Path,
    *,
    consolidate: bool,
) -> list[Run]:
    home = tmp / f"home-{name}"
    home.mkdir()
    print(f"== {name}: starting a stack (weights: {weights or 'defaults'})", flush=True)
    try:
        return _run_config(name, weights, sup, dup, memories, home, consolidate=consolidate)
    except (Exception, SystemExit) as exc:  # one configuration failing leaves the others' rows
        log = (home / "up.log").read_text()[-3000:] if (home / "up.log").is_file() else ""
        print(f"   {name} failed: {exc!r}\n{log}", flush=True)
        why = f"failed: {type(exc).__name__}"
        return [Run(name, 0.0, 0, why, why)]


def _run_config(
    name: str,
    weights: str,
    sup: dict[str, Any],
    dup: dict[str, Any],
    memories: list[dict[str, Any]],
    home: Path,
    *,
    consolidate: bool,
) -> list[Run]:
    stack = start(home, weights)
    try:
        started = time.perf_counter()
        store_all(stack, memories)
        status = wait_caught_up(stack)
        ingest_s = time.perf_counter() - started
        print(f"   {status.memories} memories stored and embedded in {ingest_s:.0f} s", flush=True)
        view = View.of(stack)
        label = f"{name} (before consolidation)" if consolidate else name
        runs = [
            Run(
                label,
                ingest_s,
                int(status.memories),
                measure_supersession(stack, view, sup, after=False),
                measure_duplicates(stack, view, dup),
            )
        ]
        if consolidate:
            runs.append(consolidate_and_measure(stack, name, sup, dup, memories, ingest_s))
        return runs
    finally:
        stack.stop()


def consolidate_and_measure(
    stack: Stack,
    name: str,
    sup: dict[str, Any],
    dup: dict[str, Any],
    memories: list[dict[str, Any]],
    ingest_s: float,
) -> Run:
    label = f"{name} (after Consolidate)"
    started = time.perf_counter()
    try:
        reply = stack.stub.Consolidate(pb.ConsolidateRequest(), metadata=stack.meta, timeout=1800)
    except grpc.RpcError as exc:
        why = (
            "not available (Consolidate is UNIMPLEMENTED on this server)"
            if exc.code() == grpc.StatusCode.UNIMPLEMENTED
            else f"not available (Consolidate failed: {exc.code().name}: {exc.details()})"
        )
        print(f"   {why}", flush=True)
        return Run(label, ingest_s, 0, why, why, after=True, consolidate=why)
    took = time.perf_counter() - started
    status = wait_caught_up(stack)
    counts = (
        f"cycle {reply.cycle_id} up to LOG seq {reply.up_to_seq}: merged {reply.merged}, superseded "
        f"{reply.superseded}, archived {reply.archived}, decayed {reply.decayed}, insights {reply.insights}, "
        f"summaries {reply.summaries}, linked {reply.linked}; {reply.took_ms:.0f} ms by the server, "
        f"{took:.1f} s for the call"
    )
    print(f"   {counts}", flush=True)
    view = View.of(stack)
    states = states_by_role(stack, view, memories)
    print(f"   {states}", flush=True)
    return Run(
        label,
        ingest_s,
        int(status.memories),
        measure_supersession(stack, view, sup, after=True),
        measure_duplicates(stack, view, dup),
        after=True,
        consolidate=counts,
        states=states,
    )


def states_by_role(stack: Stack, view: View, memories: list[dict[str, Any]]) -> str:
    """Each role's memories (filler, decision, amendment, near_miss, restatement, similar) counted by
    state after the cycle (History for those no longer active; "not active" when it is not served)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for m in memories:
        counts[m["role"]][view.state(stack, m["id"])] += 1
    return "; ".join(
        f"{role}: " + ", ".join(f"{state} {n}" for state, n in sorted(c.items(), key=lambda kv: -kv[1]))
        for role, c in sorted(counts.items())
    )


def claims_per_fact(runs: list[Run], split: str) -> str:
    """The mean number of claims a fact of ``split`` makes among its restatements (from the first run that
    measured duplicates)."""
    for run in runs:
        if isinstance(run.dup, Duplicates) and run.dup.claims_per_fact.get(split):
            n = run.dup.claims_per_fact[split]
            return f"{sum(n) / len(n):.1f}"
    return "–"


def report(runs: list[Run], sup: dict[str, Any], dup: dict[str, Any], quick: bool) -> str:
    n_rules = {s: sum(r["split"] == s for r in sup["rules"]) for s in SPLITS}
    n_near = {s: sum(r["split"] == s for r in sup["near_misses"]) for s in SPLITS}
    restated = [len(f["restatements"]) for f in dup["facts"]]
    n_facts = {s: sum(f.get("split", "dev") == s for f in dup["facts"]) for s in SPLITS}
    sessions = {m["session_id"] for m in sup["memories"]}
    special = {m["session_id"] for m in sup["memories"] if m["role"] != "filler"}
    dup_sessions = len({m["session_id"] for m in dup["memories"]})
    repos = len({m["repo"] for m in sup["memories"]}), len({m["repo"] for m in dup["memories"]})
    lines = [
        f"Supersession set: {len(sup['rules'])} rules (dev {n_rules['dev']}, held-out {n_rules['heldout']}, "
        f"second held-out {n_rules['heldout2']}, third held-out {n_rules['heldout3']}), "
        f"each decided in one session and amended in a later one, and {len(sup['near_misses'])} near-miss "
        f"pairs (dev {n_near['dev']}, held-out {n_near['heldout']}, second held-out {n_near['heldout2']}, "
        f"third held-out {n_near['heldout3']}) in "
        f"{len(sessions)} sessions of "
        f"{repos[0]} repos ({len(sessions - special)} of them filler only), {len(sup['memories'])} "
        f"memories over ~90 days. Duplicate set: {len(dup['facts'])} facts (dev {n_facts['dev']}, held-out "
        f"{n_facts['heldout']}, second held-out {n_facts['heldout2']}, "
        f"third held-out {n_facts['heldout3']}, fourth held-out {n_facts['heldout4']}, "
        f"fifth held-out {n_facts['heldout5']}, sixth held-out {n_facts['heldout6']}, "
        f"seventh held-out {n_facts['heldout7']}) restated "
        f"{min(restated, default=0)} to {max(restated, default=0)} times ({sum(restated)} restatements: "
        "prompts, notes and observations) "
        f"and {len(dup['similar'])} similar but unrelated memories in {dup_sessions} sessions of "
        f"{repos[1]} repos, "
        f"{len(dup['memories'])} memories. Hand-written material laid out by "
        "`benchmarks/consolidation_data.py`; "
        "every memory stored through gRPC `Store`, recall through gRPC `Recall` (limit 10, repo set)."
        + (" **Quick subset (smoke run).**" if quick else ""),
        "",
        "| configuration | split | rule questions | amendment above the superseded decision "
        "| amendment in top 5 | near-miss memories active and in top 5 for their question |",
        "|---|---|---|---|---|---|",
    ]
    for run in runs:
        lines += sup_rows(run.name, run.sup)
    lines += [
        "",
        f"Targets (issue 11): amendment above the superseded one ≥ {TARGET_ABOVE:.0%}, in the top 5 ≥ "
        f"{TARGET_TOP5:.0%}. Above: the amendment is in the top 10 and the decision is below it or absent.",
        "",
        "| configuration | split | fact in top 10 | fact's memories in top 10 (mean / max) | at most 2 "
        "| at most 2 of one claim | claims of the fact in top 10, mean | canonical first "
        "| similar memories active and in top 5 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        lines += dup_rows(run.name, run.dup, after=run.after)
    lines += [
        "",
        f"Target: at most {TARGET_RESTATED} of a fact's memories in the top 10 for a question about it, the "
        "canonical memory (`restated` > 1, or the one restatements were merged into) first; no similar "
        "memory lost. By claim: a fact's memories in the top 10 grouped by the statement they make (claims "
        "annotated in `consolidation_data.py`; a canonical memory counts for the claims of the restatements "
        "merged into it, an insight for those of its evidence, each once); at most 2 of one claim = every "
        "claim at most 2. Claims per fact (among its restatements): "
        + ", ".join(f"{s} {claims_per_fact(runs, s)}" for s in SPLITS if n_facts[s])
        + ".",
        "",
    ]
    for run in runs:
        if run.after:
            lines.append(f"- {run.name}: {run.memories} memories active after the cycle.")
        else:
            lines.append(f"- {run.name}: {run.memories} memories, {run.ingest_s:.0f} s to store and embed.")
        if run.consolidate:
            lines.append(f"  Consolidate: {run.consolidate}.")
        if run.states:
            lines.append(f"  States after the cycle, by role: {run.states}.")
        if isinstance(run.sup, Supersession) and run.after:
            s = run.sup
            lines.append(
                "  Decisions marked superseded by their amendment: "
                + ", ".join(f"{x} {pct(s.superseded_by_amendment[x], s.rules[x])}" for x in SUP_SPLITS)
                + "; near-miss memories no longer active (false supersession): "
                + ", ".join(f"{x} {pct(s.near_inactive[x], s.near[x])}" for x in SUP_SPLITS)
                + "."
            )
        if isinstance(run.dup, Duplicates) and run.after:
            d = run.dup
            lines.append(
                "  Restatements merged: "
                + ", ".join(f"{x} {pct(d.merged[x], d.restatements[x])}" for x in SPLITS)
                + "; similar memories no longer active: "
                + ", ".join(f"{x} {d.similar_inactive[x]}/{d.similar[x]}" for x in SPLITS)
                + "."
            )
        if isinstance(run.dup, Duplicates) and run.name.startswith("hybrid"):
            if run.dup.worst:
                lines.append("  Facts over the cap or not canonical first: " + "; ".join(run.dup.worst) + ".")
            if run.dup.similar_lost:
                lines.append("  Similar memories lost: " + "; ".join(run.dup.similar_lost) + ".")
        if isinstance(run.sup, Supersession) and run.sup.misses and run.name.startswith("hybrid"):
            shown = run.sup.misses[:12]
            more = len(run.sup.misses) - len(shown)
            lines.append(
                "  Amendment not above: " + "; ".join(shown) + (f"; and {more} more" if more else "") + "."
            )
        if isinstance(run.sup, Supersession) and run.sup.near_lost:
            lines.append(
                "  Near-miss memories not active or not in the top 5: " + "; ".join(run.sup.near_lost) + "."
            )
    return "\n".join(lines)


def details(runs: list[Run]) -> list[dict[str, Any]]:
    return [
        {
            "configuration": run.name,
            "consolidate": run.consolidate,
            "supersession": run.sup.records if isinstance(run.sup, Supersession) else run.sup,
            "duplicates": run.dup.records if isinstance(run.dup, Duplicates) else run.dup,
        }
        for run in runs
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small subset, hybrid only, no RESULTS.md")
    parser.add_argument("--configs", default="", help=f"comma list of {', '.join(CONFIGS)} (default: all)")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    parser.add_argument("--details", type=Path, help="write every question's ranks here (JSON)")
    parser.add_argument(
        "--skip-splits", default="", help="comma list of duplicate splits left out (kept unseen while tuning)"
    )
    args = parser.parse_args()
    names = [c for c in (args.configs or ("hybrid" if args.quick else ",".join(CONFIGS))).split(",") if c]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        raise SystemExit(f"unknown configuration(s): {', '.join(unknown)}")
    sup, dup = load()
    skip = {x for x in args.skip_splits.split(",") if x}
    if skip:
        dup = without_splits(dup, skip)
    if args.quick:
        sup, dup = quick_subset(sup, dup)
    memories = shifted([*sup["memories"], *dup["memories"]])
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            runs += run_config(
                name, CONFIGS[name], sup, dup, memories, Path(tmp), consolidate=name == "hybrid"
            )
    if args.details:
        args.details.write_text(json.dumps(details(runs), indent=1))
    body = report(runs, sup, dup, args.quick)
    if all(isinstance(run.sup, str) and run.sup.startswith("failed") for run in runs):
        print(body)
        raise SystemExit("every configuration failed: RESULTS.md left alone")
    if args.quick or args.no_write or skip:
        print(body)
        return
    write_section(SECTION, "Consolidation: supersession and duplicate collapse (gRPC, real stack)", body)


if __name__ == "__main__":
    main()
