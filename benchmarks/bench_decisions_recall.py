"""Decisions in history, recalled: do bug reports about broken code bring up the commit that set the rule?

Issue 15's decisions target, its recall half (the review half is ``bench_review.py --part decisions``).
The planted repository is the one ``bench_review.py`` builds: a copy of pallets/click where, for each of
N functions, a commit sets a rule and says why ("<name>: check rule i before anything else, because
skipping it lets a closed context leak"), noise follows, and a commit with a misleading subject
("refactor: tidy <name>") removes the guard. It is indexed with its history by ``codememory index
--history`` into a real stack (``codememory up`` in a temporary home; every commit message becomes a
memory of type ``commit``, embedded like any other), and once every vector is applied each function
gets three bug reports, written as a user reports the symptom (what they called, what happened, what
they expected), never in the commit's words ("rule", "check ... before anything else"). Each report is
recalled over gRPC with the function's file as the working set; a report counts when the documenting
commit is among the first five hits. Target: at least 90%.

Baseline in the same run: the same recalls without a working set (what the code-aware ranking adds).

    .venv/bin/python benchmarks/bench_decisions_recall.py [--functions 30] [--offset N] [--no-write]
        [--keep HOME] [--dump FILE.json] [--explain]

``--keep HOME`` indexes into HOME once (the planted functions and shas saved beside it) and later runs
only restart the stack on it, so other weights (``CODEMEMORY_GATEWAY_CODE_WEIGHTS``, ``..._CODE_POOL``)
or other ranking code are measured in minutes; ``--dump`` keeps every recall's hits with their parts
(and a wider recall of 30 per report, to see where a missed commit stood); ``--explain`` prints each
miss's top 5 with every part.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_path import _wait_serving, embedded_stack
from bench_review import plant_decisions
from results import write_section

REPO = "pallets/click"
TOP = 5
WIDE = 30  # a wider recall, to see where a missed documenting commit stood

# A user's words: the call they made, what happened, what they expected. {call} is how a user names
# the function (``Command.get_help()``), {name} its bare name.
REPORTS = (
    "{call} keeps going after the context was closed: the resources I registered with "
    "ctx.with_resource are never released and temp files pile up in our long-running CLI",
    "regression after upgrading: {name} no longer refuses a context that has already been torn down, "
    "it silently carries on and file handles stay open",
    "memory use grows in our test suite, it looks like {name} runs on contexts that were already "
    "exited and nothing cleans them up; the previous release raised an error instead",
)


def reports_for(name: str) -> list[str]:
    short = name.rsplit(".", 1)[-1]
    return [r.format(call=f"{name}()", name=short) for r in REPORTS]


def _wait_settled(home: Path, deadline_s: float = 900) -> float:
    """Seconds until every projection is level with LOG and no consumer has anything pending."""
    import grpc

    from codememory.cli.client import connect
    from codememory.v1 import memory_pb2 as pb

    started = time.monotonic()
    with connect(home, timeout=60) as conn:
        while time.monotonic() - started < deadline_s:
            try:
                status = conn.stub.Status(pb.StatusRequest(), metadata=conn.metadata, timeout=60)
            except grpc.RpcError as exc:  # a busy machine: the stack is still folding, ask again
                if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise
                continue
            if status.caught_up and not any(status.consumer_pending.values()):
                return time.monotonic() - started
            time.sleep(1.0)
    raise SystemExit("the stack did not settle (embeddings still pending)")


def _index(root: Path) -> dict[str, object]:
    codememory = Path(sys.executable).parent / "codememory"
    done = subprocess.run(
        [str(codememory), "index", str(root), "--repo", REPO, "--history", "--json"],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    if done.returncode != 0:
        raise SystemExit(f"codememory index failed: {done.stderr[-2000:]}")
    found: dict[str, object] = json.loads(done.stdout)
    return found


def _rank(hits: list[str], sha: str) -> int | None:
    marker = f"commit {sha[:12]}"
    return next((i + 1 for i, text in enumerate(hits) if marker in text), None)


PARTS = (
    "dense",
    "lexical",
    "recency",
    "importance",
    "scope",
    "link",
    "graph",
    "centrality",
    "named",
    "total",
)


def _hit(h: object) -> dict[str, object]:
    """One hit as the dump keeps it: its first line, the sha it documents, every score part."""
    text = str(h.memory.text)  # type: ignore[attr-defined]
    sha = str(dict(h.memory.metadata).get("sha", ""))  # type: ignore[attr-defined]
    parts = {p: round(float(getattr(h.score, p)), 4) for p in PARTS}  # type: ignore[attr-defined]
    return {
        "line": text.split("\n", 1)[0][:90],
        "text": text,
        "sha": sha,
        "suspect": bool(h.suspect),
        **parts,
    }  # type: ignore[attr-defined]


def _explain(
    name: str, report: str, top: list[dict[str, object]], wide: list[dict[str, object]], sha: str
) -> None:
    """A missed report's top 5 with every part, and where the documenting commit stood."""
    print(f"missed {name}: {report[:80]}", flush=True)
    cols = ("dense", "lexical", "recency", "link", "graph", "centrality", "named", "total")
    for i, h in enumerate(top, 1):
        print(f"  {i}. " + " ".join(f"{c[:4]}={float(h[c]):.3f}" for c in cols) + f" | {h['line'][:70]}")  # type: ignore[arg-type]
    at = next((i for i, h in enumerate(wide, 1) if str(h["sha"]).startswith(sha[:12])), None)
    if at is None:
        print(f"  documenting commit: not in the {len(wide)} hits of a wide recall", flush=True)
    else:
        h = wide[at - 1]
        print(
            f"  documenting commit, wide rank {at}: " + " ".join(f"{c[:4]}={float(h[c]):.3f}" for c in cols)
        )  # type: ignore[arg-type]


@contextlib.contextmanager
def _stack(keep: Path | None) -> Iterator[Path]:
    """A running stack: in a temporary home, or in ``keep`` (created once, reused by later runs)."""
    if keep is None:
        with embedded_stack() as home:
            yield home
        return
    keep.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CODEMEMORY_HOME": str(keep), "CODEMEMORY_UP_GRPC_LISTEN": "127.0.0.1:0"}
    env["CODEMEMORY_CONSOLIDATE_INTERVAL_S"] = "0"
    env.pop("CODEMEMORY_NATS_URL", None)
    os.environ["CODEMEMORY_HOME"] = str(keep)
    os.environ.pop("CODEMEMORY_GRPC_ADDRESS", None)
    os.environ.pop("CODEMEMORY_TOKEN", None)
    (keep / "runtime.json").unlink(missing_ok=True)
    codememory = Path(sys.executable).parent / "codememory"
    with (keep / "up.log").open("ab") as out:
        process = subprocess.Popen([str(codememory), "up"], env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while not (keep / "runtime.json").is_file():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"codememory up did not start: {(keep / 'up.log').read_text()[-2000:]}")
            time.sleep(0.2)
        _wait_serving(keep)
        yield keep
    finally:
        process.terminate()
        process.wait(timeout=120)


def _planted(home: Path, tmp: Path, functions: int, offset: int) -> dict[str, object]:
    """Plant and index (once per home): the picked functions, their rules' shas, what indexing said."""
    saved = home / f"planted-{functions}-{offset}.json"
    if saved.is_file():
        kept: dict[str, object] = json.loads(saved.read_text())
        kept["settle_s"] = _wait_settled(home)
        return kept
    root, picked, rules = plant_decisions(tmp, functions, offset)
    indexed = _index(root)
    found = {
        "picked": picked,
        "rules": [rules[i] for i in range(len(picked))],
        "commits": indexed.get("commits", 0),
    }
    found["settle_s"] = _wait_settled(home)
    saved.write_text(json.dumps(found))
    return found


def measure(
    functions: int, offset: int = 0, keep: Path | None = None, dump: Path | None = None, explain: bool = False
) -> dict[str, object]:
    from codememory.cli.client import connect
    from codememory.v1 import memory_pb2 as pb

    with tempfile.TemporaryDirectory() as tmp, _stack(keep) as home:
        planted = _planted(home, Path(tmp), functions, offset)
        picked = [(str(p), str(n)) for p, n in planted["picked"]]  # type: ignore[attr-defined]
        rules = [str(s) for s in planted["rules"]]  # type: ignore[attr-defined]
        ranks: dict[str, list[int | None]] = {"working set": [], "no working set": []}
        misses: list[str] = []
        took: list[float] = []
        kept: list[dict[str, object]] = []
        with connect(home, timeout=60) as conn:

            def recall(report: str, working: list[str], limit: int) -> list[dict[str, object]]:
                request = pb.RecallRequest(query=report, repo=REPO, limit=limit, working_set=working)
                started = time.perf_counter()
                answer = conn.stub.Recall(request, metadata=conn.metadata, timeout=60)
                took.append((time.perf_counter() - started) * 1000)
                return [_hit(h) for h in answer.hits]

            for i, (path, name) in enumerate(picked):
                for q, report in enumerate(reports_for(name)):
                    for mode, working in (("working set", [path]), ("no working set", [])):
                        top = recall(report, working, TOP)
                        rank = next((k + 1 for k, h in enumerate(top) if h["sha"] == rules[i]), None)
                        ranks[mode].append(rank)
                        wide = recall(report, working, WIDE) if (dump or explain) and working else []
                        kept.append({"function": name, "report": q, "mode": mode, "sha": rules[i],
                                     "rank": rank, "top": top, "wide": wide})  # fmt: skip
                        if mode == "working set" and rank is None:
                            misses.append(f"{name}: {report[:70]}…")
                            if explain:
                                _explain(name, report, top, wide, rules[i])
        if dump:
            dump.write_text(json.dumps(kept))
    share = {m: 100 * sum(r is not None for r in v) / len(v) for m, v in ranks.items()}
    found = [r for r in ranks["working set"] if r is not None]
    return {
        "functions": len(picked),
        "offset": offset,
        "reports": len(ranks["working set"]),
        "share": share,
        "median_rank": statistics.median(found) if found else 0,
        "commits": planted["commits"],
        "settle_s": planted["settle_s"],
        "recall_ms": statistics.median(took),
        "misses": misses,
    }


def table(r: dict[str, object]) -> str:
    share = r["share"]
    assert isinstance(share, dict)
    ws, none = float(share["working set"]), float(share["no working set"])
    misses = r["misses"]
    assert isinstance(misses, list)
    lines = [
        "| functions | bug reports | documenting commit in the top 5, file as working set | without a "
        "working set (baseline) | its median rank | recall median over gRPC | met (>= 90%) |",
        "|---|---|---|---|---|---|---|",
        f"| {r['functions']} | {r['reports']} | {ws:.1f}% | {none:.1f}% | {r['median_rank']} | "
        f"{float(r['recall_ms']):.0f} ms | {'yes' if ws >= 90 else 'no'} |",  # type: ignore[arg-type]
        "",
        f"{r['commits']} commits indexed with `codememory index --history` (each message a memory), every "
        f"vector applied before the first recall ({float(r['settle_s']):.0f} s after indexing).",  # type: ignore[arg-type]
    ]
    if misses:
        lines += ["", "Reports whose documenting commit was not in the top 5:", ""]
        lines += [f"- {m}" for m in misses[:10]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--functions", type=int, default=30)
    parser.add_argument(
        "--offset", type=int, default=0, help="another set of functions (0: the set tuned on; 1+: held out)"
    )
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--keep", type=Path, help="a home to index into once and reuse (later runs only restart the stack)"
    )
    parser.add_argument("--dump", type=Path, help="write every recall's hits, with their parts, to this JSON")
    parser.add_argument("--explain", action="store_true", help="print each miss's top 5 with every part")
    args = parser.parse_args()
    found = measure(args.functions, args.offset, args.keep, args.dump, args.explain)
    print(json.dumps(found, indent=1, default=str))
    body = table(found)
    print(body)
    if not args.no_write:
        write_section(
            "bench_decisions_recall", "Decisions in history: bug reports recall the documenting commit", body
        )


if __name__ == "__main__":
    main()
