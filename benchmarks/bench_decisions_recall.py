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

    .venv/bin/python benchmarks/bench_decisions_recall.py [--functions 30] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_path import embedded_stack
from bench_review import plant_decisions
from results import write_section

REPO = "pallets/click"
TOP = 5

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
    from codememory.cli.client import connect
    from codememory.v1 import memory_pb2 as pb

    started = time.monotonic()
    with connect(home, timeout=60) as conn:
        while time.monotonic() - started < deadline_s:
            status = conn.stub.Status(pb.StatusRequest(), metadata=conn.metadata, timeout=60)
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


def measure(functions: int, offset: int = 0) -> dict[str, object]:
    from codememory.cli.client import connect
    from codememory.v1 import memory_pb2 as pb

    with tempfile.TemporaryDirectory() as tmp, embedded_stack() as home:
        root, picked, rules = plant_decisions(Path(tmp), functions, offset)
        indexed = _index(root)
        settle_s = _wait_settled(home)
        ranks: dict[str, list[int | None]] = {"working set": [], "no working set": []}
        misses: list[str] = []
        took: list[float] = []
        with connect(home, timeout=60) as conn:
            for i, (path, name) in enumerate(picked):
                for report in reports_for(name):
                    for mode, working in (("working set", [path]), ("no working set", [])):
                        request = pb.RecallRequest(query=report, repo=REPO, limit=TOP, working_set=working)
                        started = time.perf_counter()
                        answer = conn.stub.Recall(request, metadata=conn.metadata, timeout=60)
                        took.append((time.perf_counter() - started) * 1000)
                        rank = _rank([h.memory.text for h in answer.hits], rules[i])
                        ranks[mode].append(rank)
                        if mode == "working set" and rank is None:
                            misses.append(f"{name}: {report[:70]}…")
                            top = [h.memory.text.split("\n", 1)[0][:60] for h in answer.hits]
                            print("missed", name, "|", " || ".join(top), flush=True)
    share = {m: 100 * sum(r is not None for r in v) / len(v) for m, v in ranks.items()}
    found = [r for r in ranks["working set"] if r is not None]
    return {
        "functions": len(picked),
        "reports": len(ranks["working set"]),
        "share": share,
        "median_rank": statistics.median(found) if found else 0,
        "commits": indexed.get("commits", 0),
        "settle_s": settle_s,
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
    args = parser.parse_args()
    found = measure(args.functions, args.offset)
    print(json.dumps(found, indent=1, default=str))
    body = table(found)
    print(body)
    if not args.no_write:
        write_section(
            "bench_decisions_recall", "Decisions in history: bug reports recall the documenting commit", body
        )


if __name__ == "__main__":
    main()
