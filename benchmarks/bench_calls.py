"""Call resolution across package roots, checked call site by call site with jedi.

Why: the graph's ``calls`` edges (what ``dependents``, review and graph-aware recall walk) are only
right if a call through an import reaches the definition it really reaches, and with several package
roots that depends on module names being the names code imports (``codememory.code.discovery``).

Protocol, per repository (the layouts of ``bench_imports.py``, indexed the same way):

1. Every file is indexed as ``codememory index`` does it (roots discovered) and folded.
2. Precision: ``--sample`` (100) distinct resolved ``calls`` edges, drawn with a fixed seed; at one call
   site of each, jedi (``Script.goto(follow_imports=True)``, its project's ``sys.path`` given the same
   directories as ``bench_imports.py``'s truth) names the definition. Correct: jedi's definition is in
   the edge target's file, with its name, on a line inside its span, or (a copy of the package
   installed in the environment) its full name is the target's qualname. Undetermined: jedi finds
   nothing (excluded, counted).
3. Recall: ``--recall-sample`` (300) call sites drawn from all call references; of those jedi places on
   a function, method or class defined in the repository, the share the graph resolves to it.

jedi is installed outside the project: ``pip install --target /tmp/h2-jedi jedi``.
Usage: .venv/bin/python benchmarks/bench_calls.py [--jedi /tmp/h2-jedi] [--no-write]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_imports import Layout, defaults, index_and_fold
from results import write_section

from codememory.code.roots import SourceRoots
from codememory.codegraph import CodeGraph
from codememory.events import SymbolsExtracted

SEED = 7


@dataclass(frozen=True)
class Site:
    path: str
    line: int
    target: str  # as written
    found: str  # our qualname, "" when unresolved


def sites(graph: CodeGraph, repo: str, events: list[SymbolsExtracted]) -> list[Site]:
    index = graph.repo(repo)
    out = []
    for event in events:
        for ref in event.refs:
            if ref.kind != "calls" or not event.path.endswith(".py"):
                continue
            found = index.resolve(event.path, ref) or ""
            src = graph.index.get(("symbol", repo, ref.source))
            if found and (
                src is None or (src, graph.index[("symbol", repo, found)], "calls") not in graph.edges
            ):
                found = ""  # resolvable now, but the fold's edge differs: count what the graph holds
            out.append(Site(event.path, ref.line, ref.target, found))
    return out


class Jedi:
    def __init__(self, layout: Layout, jedi_path: str) -> None:
        sys.path.insert(0, jedi_path)
        import jedi

        self._jedi: Any = jedi
        self._root = layout.root
        extra = [str(layout.root / d) for d in layout.sys_path]
        self._project = jedi.Project(str(layout.root), added_sys_path=extra, smart_sys_path=True)
        self._sources: dict[str, str] = {}

    def goto(self, site: Site) -> list[tuple[str, int, str, str]] | None:
        """(repo-relative path or "", line, name, full name) of what jedi goes to; None when the site
        is not found. A definition outside the repository (the same package installed in the
        environment) is compared by its full name."""
        code = self._sources.get(site.path)
        if code is None:
            code = self._sources[site.path] = (self._root / site.path).read_text(encoding="utf-8")
        lines = code.splitlines()
        if not 1 <= site.line <= len(lines):
            return None
        text, last = lines[site.line - 1], site.target.rsplit(".", 1)[-1]
        match = re.search(rf"(?<![\w.]){re.escape(site.target)}\b", text) or re.search(
            rf"\b{re.escape(last)}\b", text
        )
        if match is None:
            return None
        script = self._jedi.Script(code, path=str(self._root / site.path), project=self._project)
        try:
            names = script.goto(site.line, match.end() - len(last), follow_imports=True)
        except Exception:
            return []
        out = []
        for n in names:
            module = Path(str(n.module_path or ""))
            inside = module.is_relative_to(self._root)
            path = module.relative_to(self._root).as_posix() if inside else ""
            out.append((path, n.line or 0, n.name, n.full_name or ""))
        return out


def symbol_at(graph: CodeGraph, repo: str, path: str, line: int, name: str) -> str | None:
    index = graph.repo(repo)
    for qualname in index.by_name.get(name, ()):
        fact = index.symbols[qualname]
        node = graph.symbol_at(graph.index[("symbol", repo, qualname)])
        if fact.path == path and node.start_line <= line <= node.end_line and fact.kind != "module":
            return qualname
    return None


def recall(
    layout: Layout,
    graph: CodeGraph,
    found: list[Site],
    jedi: Jedi,
    args: argparse.Namespace,
    notes: list[str],
) -> tuple[int, int]:
    """(sampled sites jedi places on a definition in the repository, those the graph agrees on)."""
    in_repo = agree = 0
    index = graph.repo(layout.name)
    for site in random.Random(args.seed + 1).sample(found, min(args.recall_sample, len(found))):
        targets = {
            symbol_at(graph, layout.name, p, line, n) if p else (full if full in index.symbols else None)
            for p, line, n, full in jedi.goto(site) or []
        }
        targets.discard(None)
        if targets:
            in_repo += 1
            agree += site.found in targets
            if site.found not in targets and len(notes) < 12:
                notes.append(f"missed: {site.path}:{site.line} `{site.target}` -> {sorted(targets)[:1]}")
    return in_repo, agree


def measure(layout: Layout, args: argparse.Namespace) -> dict[str, object]:
    graph, events = index_and_fold(layout)
    found = sites(graph, layout.name, events)
    jedi = Jedi(layout, args.jedi)
    rng = random.Random(args.seed)
    by_edge: dict[tuple[str, str], Site] = {}
    for site in sorted(found, key=lambda s: (s.path, s.line, s.target)):
        if site.found:
            by_edge.setdefault((site.path, site.found), site)
    verdicts: Counter[str] = Counter()
    notes = []
    for site in rng.sample(
        sorted(by_edge.values(), key=lambda s: (s.path, s.line)), min(args.sample, len(by_edge))
    ):
        defs = jedi.goto(site)
        if not defs:
            verdicts["undetermined"] += 1
            continue
        ok = any(
            full == site.found or (p and symbol_at(graph, layout.name, p, line, n) == site.found)
            for p, line, n, full in defs
        )
        verdicts["correct" if ok else "wrong"] += 1
        if not ok:
            notes.append(
                f"wrong: {site.path}:{site.line} `{site.target}` -> `{site.found}` (jedi: {defs[:2]})"
            )
    in_repo, agree = recall(layout, graph, found, jedi, args, notes)
    before, before_events = index_and_fold(layout, SourceRoots())  # module names from paths
    b_in, b_agree = recall(layout, before, sites(before, layout.name, before_events), jedi, args, [])
    decided = verdicts["correct"] + verdicts["wrong"]
    return {
        "name": layout.name,
        "refs": len(found),
        "resolved": sum(1 for s in found if s.found),
        "verdicts": verdicts,
        "precision": verdicts["correct"] / decided if decided else 0.0,
        "in_repo": in_repo,
        "agree": agree,
        "recall": agree / in_repo if in_repo else 0.0,
        "recall_paths": f"{b_agree}/{b_in} ({b_agree / b_in:.1%})" if b_in else "-",
        "notes": notes,
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| repository | call refs | resolved | sampled edges: correct / wrong / undetermined | precision "
        "| recall (sites jedi places in the repository) | recall, module names from paths |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for r in rows:
        v = r["verdicts"]
        lines.append(
            f"| {r['name']} | {r['refs']} | {r['resolved']} | {v['correct']} / {v['wrong']} / "
            f"{v['undetermined']} | {r['precision']:.1%} | {r['agree']}/{r['in_repo']} ({r['recall']:.1%}) "
            f"| {r['recall_paths']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jedi", default="/tmp/h2-jedi")
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--recall-sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = [measure(layout, args) for layout in defaults()]
    for row in rows:
        print(row["name"], *row["notes"], sep="\n  ", file=sys.stderr)
    body = table(rows)
    print(body)
    if not args.no_write:
        write_section(
            "calls",
            "Code graph: call resolution across package roots (jedi at each call site)",
            "Each repository indexed as `codememory index` does it (roots discovered), folded; "
            f"{args.sample} resolved call edges sampled (seed {args.seed}) and checked with jedi "
            "`goto(follow_imports=True)` at a call site, its `sys.path` given the directories of "
            f"`bench_imports.py`'s truth; recall over {args.recall_sample} sampled call sites that "
            "jedi places on a definition in the repository.\n\n" + body,
        )


if __name__ == "__main__":
    main()
