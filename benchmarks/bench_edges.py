"""Call-edge precision of the code graph on a real repository, and how fast files fold into the graph.

Why: ``codememory.codegraph.resolve`` claims that a resolved ``calls`` edge points at the definition the
call really reaches. This checks it against an independent resolver.

Protocol:
1. Every file of the repository (``git ls-files``) is extracted with ``codememory.code.extract_file``
   and folded, in path order, into a fresh ``CodeGraph``.
2. Of the resulting ``calls`` edges, ``--sample`` (100) are drawn with a fixed seed; for each, one call
   site (file, line, callee text) that resolves to it is taken.
3. The independent check is jedi (static inference, installed outside the project venv with
   ``pip install --target /tmp/h2-jedi jedi``): ``Script.goto(line, column of the callee's last name,
   follow_imports=True)``. Correct = one of jedi's definitions is in the same module (paths compared
   relative to the package root, so a copy of the package in site-packages counts as the same module),
   has the callee's name, and its line lies within the edge target's span. Wrong = jedi names other
   definitions. Undetermined = jedi finds nothing; those are printed for a manual look and excluded
   from precision (the report says how many).
4. Recall estimate: ``--recall-sample`` call sites drawn from ALL call references; of those jedi places
   inside the repository, the share our graph resolves to that same definition.
5. Fold rate: files/s folding the extracted events into a new graph (median of 3 runs), against
   ``extract_file`` over the same files in the same run (the baseline); optionally also on a second,
   larger source tree (``--extra``, e.g. Django's source) for the rate and graph size only.

Usage: .venv/bin/python benchmarks/bench_edges.py --repo /tmp/h2-requests --name psf/requests
           [--extra /tmp/django_src] [--jedi /tmp/h2-jedi] [--no-write]
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from codememory.code import extract_file
from codememory.codegraph import CodeGraph
from codememory.codegraph.centrality import Centrality
from codememory.events import CodeRef, SymbolsExtracted, new_envelope

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, write_section

SEED = 7


@dataclass(frozen=True)
class Case:
    path: str
    line: int
    source: str
    target: str
    found: str  # our resolution (qualname), "" when unresolved
    found_path: str
    found_span: tuple[int, int]


def files_of(root: Path) -> list[tuple[str, bytes]]:
    if (root / ".git").exists():
        out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
        paths = sorted(p for p in out.decode().split("\0") if p)
    else:
        paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    found = []
    for path in paths:
        absolute = root / path
        if absolute.is_file() and not absolute.is_symlink():
            found.append((path, absolute.read_bytes()))
    return found


def extract(repo: str, files: list[tuple[str, bytes]]) -> tuple[list[SymbolsExtracted], float]:
    started = time.perf_counter()
    events = [extract_file(repo, path, source) for path, source in files]
    return events, time.perf_counter() - started


def fold(events: list[SymbolsExtracted]) -> tuple[CodeGraph, float]:
    at = datetime(2026, 11, 1, tzinfo=UTC)
    envelopes = [
        new_envelope(e, event_id=str(i), tenant="bench", occurred_at=at) for i, e in enumerate(events, 1)
    ]
    graph = CodeGraph("bench")
    started = time.perf_counter()
    for seq, envelope in enumerate(envelopes, 1):
        graph.apply(envelope, seq)
    return graph, time.perf_counter() - started


def call_cases(graph: CodeGraph, repo: str, events: list[SymbolsExtracted]) -> list[Case]:
    """Every call reference with what the graph resolves it to ("" when it does not)."""
    index = graph.repo(repo)
    cases = []
    for event in events:
        for ref in event.refs:
            if ref.kind != "calls":
                continue
            found = index.resolve(event.path, ref) or ""
            if found and not _has_edge(graph, repo, ref, found):
                found = ""  # resolvable now, but the fold's edge differs: count what the graph holds
            fact = index.symbols.get(found)
            span = (0, 0)
            if found:
                node = graph.symbol_at(graph.index[("symbol", repo, found)])
                span = (node.start_line, node.end_line)
            cases.append(
                Case(event.path, ref.line, ref.source, ref.target, found, fact.path if fact else "", span)
            )
    return cases


def _has_edge(graph: CodeGraph, repo: str, ref: CodeRef, found: str) -> bool:
    src = graph.index.get(("symbol", repo, ref.source))
    dst = graph.index[("symbol", repo, found)]
    return src is not None and (src, dst, "calls") in graph.edges


def _package_relative(path: str) -> str:
    for marker in ("/site-packages/", "/src/"):
        if marker in path:
            return path.rsplit(marker, 1)[1]
    return path.removeprefix("src/")  # the extractor drops a leading src/ from module names too


class JediCheck:
    def __init__(self, root: Path, jedi_path: str) -> None:
        sys.path.insert(0, jedi_path)
        import jedi

        self._jedi = jedi
        extra = [str(root / "src")] if (root / "src").is_dir() else []
        self._project = jedi.Project(str(root), added_sys_path=extra)
        self._root = root
        self._sources: dict[str, str] = {}

    def definitions(self, case: Case) -> list[tuple[str, int, str, str]] | None:
        """(package-relative path, line, name, full name) jedi goes to; None when the site is not found."""
        code = self._sources.get(case.path)
        if code is None:
            code = self._sources[case.path] = (self._root / case.path).read_text(encoding="utf-8")
        lines = code.splitlines()
        if not 1 <= case.line <= len(lines):
            return None
        text = lines[case.line - 1]
        target = case.target.replace("()", "")
        last = target.rsplit(".", 1)[-1]
        match = re.search(rf"(?<![\w.]){re.escape(target)}\b", text) or re.search(
            rf"\b{re.escape(last)}\b", text
        )
        if match is None:
            return None
        column = match.end() - len(last)
        script = self._jedi.Script(code, path=str(self._root / case.path), project=self._project)
        try:
            names = script.goto(case.line, column, follow_imports=True)
        except Exception:
            return []
        return [
            (self._relative(str(n.module_path or "")), n.line or 0, n.name, n.full_name or "") for n in names
        ]

    def _relative(self, path: str) -> str:
        root = str(self._root) + "/"
        return _package_relative(path.removeprefix(root))

    def verdict(self, case: Case) -> str:
        """Same definition: jedi's full name is our qualname, or same module, name and line in our span."""
        defs = self.definitions(case)
        if not defs:
            return "undetermined"
        want = _package_relative(case.found_path)
        name = case.found.rsplit(".", 1)[-1]
        start, end = case.found_span
        ok = any(
            full == case.found or (p == want and n == name and start <= line <= end)
            for p, line, n, full in defs
        )
        return "correct" if ok else "wrong"

    def in_repo_target(self, case: Case, graph: CodeGraph, repo: str) -> str | None:
        """The qualname of the repository symbol jedi resolves the call to, if any."""
        defs = self.definitions(case) or []
        index = graph.repo(repo)
        for path, line, name, full in defs:
            if full in index.symbols:
                return full
            for qualname in index.by_name.get(name, ()):
                fact = index.symbols[qualname]
                node = graph.symbol_at(graph.index[("symbol", repo, qualname)])
                if _package_relative(fact.path) == path and node.start_line <= line <= node.end_line:
                    return qualname
        return None


def size_of(graph: CodeGraph) -> tuple[int, int, Counter[str], Counter[str]]:
    nodes = Counter(type(graph.g[i]).__name__.removesuffix("Node").lower() for i in graph.g.node_indices())
    edges = Counter(e.kind for _, _, e in graph.g.weighted_edge_list())
    return graph.g.num_nodes(), graph.g.num_edges(), nodes, edges


def rate_rows(label: str, repo: str, root: Path) -> tuple[str, str, CodeGraph, list[SymbolsExtracted]]:
    files = files_of(root)
    extract_runs, fold_runs = [], []
    events: list[SymbolsExtracted] = []
    graph = CodeGraph()
    for _ in range(3):
        events, seconds = extract(repo, files)
        extract_runs.append(seconds)
        graph, seconds = fold(events)
        fold_runs.append(seconds)
    n = len(files)
    parsed = sum(e.parsed for e in events)
    ex, fo = median(extract_runs), median(fold_runs)
    started = time.perf_counter()
    Centrality(graph).refresh_if_dirty()
    central = time.perf_counter() - started
    nodes, edges, by_node, by_edge = size_of(graph)
    row = (
        f"| {label} | {n} ({parsed} parsed) | {n / fo:,.0f} | {n / ex:,.0f} | {ex / fo:.1f}x | "
        f"{nodes:,} | {edges:,} | {central:.2f} |"
    )
    detail = f"- {label}: nodes {dict(by_node.most_common())}; edges {dict(by_edge.most_common())}"
    print(row, detail)
    return row, detail, graph, events


@dataclass(frozen=True)
class Precision:
    name: str
    refs: int
    resolved: int
    edges: int
    verdicts: Counter[str]
    recall_sampled: int
    in_repo: int
    agree: int
    notes: tuple[str, ...]

    @property
    def precision(self) -> float:
        decided = self.verdicts["correct"] + self.verdicts["wrong"]
        return self.verdicts["correct"] / decided if decided else 0.0

    def row(self) -> str:
        v = self.verdicts
        recall = self.agree / self.in_repo if self.in_repo else 0.0
        return (
            f"| {self.name} | {self.refs} | {self.resolved} ({self.resolved / self.refs:.1%}) | "
            f"{self.edges} | "
            f"{v['correct']} / {v['wrong']} / {v['undetermined']} | **{self.precision:.1%}** | "
            f"{self.agree}/{self.in_repo} ({recall:.1%}) |"
        )


def measure(
    name: str, root: Path, graph: CodeGraph, events: list[SymbolsExtracted], args: argparse.Namespace
) -> Precision:
    cases = call_cases(graph, name, events)
    resolved = [c for c in cases if c.found]
    by_edge: dict[tuple[str, str], Case] = {}
    for case in resolved:
        by_edge.setdefault((case.source, case.found), case)
    rng = random.Random(args.seed)
    ordered = sorted(by_edge.values(), key=lambda c: (c.path, c.line, c.target))
    sample = rng.sample(ordered, min(args.sample, len(by_edge)))
    check = JediCheck(root, args.jedi)
    verdicts: Counter[str] = Counter()
    notes = []
    for case in sample:
        verdict = check.verdict(case)
        verdicts[verdict] += 1
        if verdict != "correct":
            jedi_says = [(p, line, full) for p, line, _, full in check.definitions(case) or []]
            notes.append(
                f"{name} {verdict}: {case.path}:{case.line} `{case.target}` -> `{case.found}` ({jedi_says})"
            )
    recall_sample = rng.sample(cases, min(args.recall_sample, len(cases)))
    in_repo = agree = 0
    for case in recall_sample:
        target = check.in_repo_target(case, graph, name)
        if target is not None:
            in_repo += 1
            agree += case.found == target
    result = Precision(
        name,
        len(cases),
        len(resolved),
        len(by_edge),
        verdicts,
        len(recall_sample),
        in_repo,
        agree,
        tuple(notes),
    )
    print(result.row(), *notes, sep="\n")
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", type=Path, default=Path("/tmp/h2-requests"))
    parser.add_argument("--name", default="psf/requests")
    parser.add_argument("--also", nargs="*", default=[], help="more work trees for precision, as PATH=NAME")
    parser.add_argument("--extra", type=Path, default=None)
    parser.add_argument("--jedi", default="/tmp/h2-jedi")
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--recall-sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    row, detail, graph, events = rate_rows(args.name, args.name, args.repo)
    rows, details = [row], [detail]
    if args.extra is not None and args.extra.is_dir():
        extra_row, extra_detail, _, _ = rate_rows(args.extra.name, args.extra.name, args.extra)
        rows.append(extra_row)
        details.append(extra_detail)
    results = [measure(args.name, args.repo, graph, events, args)]
    for spec in args.also:
        path, name = spec.split("=", 1)
        also_events, _ = extract(name, files_of(Path(path)))
        also_graph, _ = fold(also_events)
        results.append(measure(name, Path(path), also_graph, also_events, args))

    lines = [
        "Machine shared with ~6 other engineers while this ran: rates are noisy (contention);",
        "quality figures are not.",
        "",
        "**Call-edge precision** (every file extracted with `codememory.code.extract_file`, folded in path",
        f"order; {args.sample} of the distinct resolved `calls` edges drawn with seed {args.seed}; each",
        "checked with jedi 0.20.1 `goto(follow_imports=True)` at its call site: correct when jedi's full",
        "name is the edge target's qualname, or same module, name and line in its span; undetermined =",
        f"jedi finds nothing. Recall estimate: of {args.recall_sample} call refs drawn from all, those",
        "jedi places in the repository, and how many of them the graph resolves to the same definition):",
        "",
        "| repository | call refs | resolved | distinct call edges | sample correct / wrong / undetermined "
        "| precision (of decided) | recall estimate |",
        "|---|---|---|---|---|---|---|",
        *(r.row() for r in results),
        "",
        "Most unresolved calls go to the standard library, builtins, or methods of values whose type is",
        "not known statically (`resp.raw.read`, `hist.append`); the resolver does not guess for those.",
        "",
        "Not correct in the samples (for review):",
        "",
        *(f"- {note}" for r in results for note in r.notes),
        *(["- none"] if not any(r.notes for r in results) else []),
        "",
        "**Fold rate and size** (median of 3 runs; baseline = `extract_file` over the same files in the",
        "same run; centrality = one `refresh_if_dirty()`: PageRank + betweenness, seconds):",
        "",
        "| corpus | files | fold files/s | extract files/s (baseline) | fold vs extract | nodes | edges "
        "| centrality s |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        *details,
    ]
    body = "\n".join(lines)
    if args.no_write:
        print(body)
    else:
        write_section("bench_edges", "Code graph: call-edge precision and fold rate", body)


if __name__ == "__main__":
    main()
