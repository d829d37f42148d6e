"""Likely-missing changes: files (and symbols) that usually change with this diff but are not in it.

Each signal adds to a path's score; the reasons shown are the two largest contributions':

* co-change of the changed files: over the commits that touched a file (recorded history, commits of
  more than 30 files left out), each commit weighted by recency (half-life ``HALF_LIFE_DAYS`` before the
  file's newest commit) and by its size (``1 / (files - 1) ** SIZE_POWER``: a commit of 20 files says
  less about each pair than a commit of two), a partner's share ``pair / (total + 1)``; several changed
  files combine by noisy-or. Recency and size are what raw co-change counts lack: a file's companions
  drift as the code moves, and a sweeping commit pairs a file with much it does not belong with.
* co-change of the changed symbols: the same over the commits that touched the changed functions
  themselves (the graph attributes commits to symbols), weighted ``SYMBOL_WEIGHT``: more specific than
  the file's history when a large file changes in many unrelated ways.
* two hops of co-change, weighted ``TWO_HOP``: the partners of the changed files' five strongest
  partners (a file with little history borrows its companions' companions).
* callers of a symbol whose signature changed (or that is deleted): each caller outside the diff, with
  the caller as the symbol; every direct dependent outside the diff, weighted ``DEPENDENT_WEIGHT``.
* tests of the changed code when the diff touches no test: test files named after a changed file
  (``test_x.py``, ``x_test.go``, ``x.test.ts`` …) and tests among the dependents.
* docs and changelog habits: a changelog (``CHANGELOG``, ``CHANGES``, ``NEWS``, ``HISTORY`` …) the
  repository updates in a large share of its recent commits.
* imports: the changed files' importers and imports, weighted ``GRAPH_WEIGHT`` (a tie-breaker, and
  the only signal for a file without history).

The weights and the half-life come from a sweep on the histories of pallets/click, OpenTelemetry Python
and this repository (``benchmarks/bench_review.py``; RESULTS.md ``bench_review``): no decay or a long
half-life beat a year, direct dependents and two hops each added 1-3 points of R@10; weighting commits
by size (``SIZE_POWER`` 0.5, swept over 0, 0.5, 0.75 and 1) added 1-2 points on click and OTel.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from codememory.codegraph.model import FileNode, alive_now
from codememory.codegraph.reader import GraphReader
from codememory.review.model import ChangedSymbol, Dependent, MissingChange
from codememory.review.reading import MAX_COMMIT_FILES, is_test_path

__all__ = [
    "GRAPH_WEIGHT",
    "HALF_LIFE_DAYS",
    "SIZE_POWER",
    "SYMBOL_WEIGHT",
    "commit_weight",
    "missing_changes",
]

HALF_LIFE_DAYS = 1500.0
SIZE_POWER = 0.5  # 0: every commit counts alike, whatever its size
SYMBOL_WEIGHT = 0.5
GRAPH_WEIGHT = 0.02
CALLER_SCORE = 0.5
TEST_SCORE = 0.3
HABIT_MIN = 0.2
DEPENDENT_WEIGHT = 0.05
TWO_HOP = 0.25
_CHANGELOG = re.compile(r"^(change_?log|changes|history|news|release_?notes|releases)(\.\w+)?$", re.I)
_HABIT_WINDOW = 100  # the repository's newest commits a habit is measured over
_IMPORTS = frozenset({"imports"})


class _Scores:
    def __init__(self, exclude: set[str]) -> None:
        self.exclude = exclude
        self.total: dict[str, float] = defaultdict(float)
        self.why: dict[str, list[tuple[float, str, str]]] = defaultdict(
            list
        )  # (contribution, reason, symbol)

    def add(self, path: str, score: float, reason: str, symbol: str = "") -> None:
        if path in self.exclude or score <= 0:
            return
        self.total[path] += score
        self.why[path].append((score, reason, symbol))

    def ranked(self, limit: int) -> list[MissingChange]:
        """Highest total first; the two largest contributions' reasons, the largest one's symbol."""
        order = sorted(self.total.items(), key=lambda p: (-p[1], p[0]))[:limit]
        found: list[MissingChange] = []
        for path, score in order:
            why = sorted(self.why[path], key=lambda w: -w[0])
            reasons = list(dict.fromkeys(r for _, r, _ in why))[:2]
            symbol = next((s for _, _, s in why if s), "")
            found.append(
                MissingChange(path=path, symbol=symbol, score=round(score, 4), reason="; ".join(reasons))
            )
        return found


def commit_weight(
    age_s: float, files: int, *, half_life_days: float = HALF_LIFE_DAYS, size_power: float = SIZE_POWER
) -> float:
    """What one commit tells about the pairs of its ``files``: halved every ``half_life_days`` of
    ``age_s`` (seconds before the newest commit counted) and divided by ``(files - 1) ** size_power``."""
    return float(0.5 ** (age_s / (half_life_days * 86400.0)) / max(1, files - 1) ** size_power)


def _cochange(graph: GraphReader, idx: int) -> tuple[dict[str, float], int]:
    """Partners' recency-weighted shares of the commits that touched node ``idx``; the commit count."""
    commits = graph.commits_of(idx)
    if not commits:
        return {}, 0
    newest = commits[-1][1].authored_at
    pair: dict[str, float] = defaultdict(float)
    total = 0.0
    counted = 0
    for cidx, commit in commits:
        files = graph.commit_files(cidx)  # the reader keeps them: the same commits come up again
        if len(files) > MAX_COMMIT_FILES:
            continue
        w = commit_weight(newest - commit.authored_at, len(files))
        total, counted = total + w, counted + 1
        for f in files:
            if alive_now(f.life):
                pair[f.path] += w
    return {p: v / (total + 1.0) for p, v in pair.items()}, counted


def _noisy_or(shares: Iterable[dict[str, float]]) -> dict[str, float]:
    keep: dict[str, float] = {}
    for share in shares:
        for path, value in share.items():
            keep[path] = 1.0 - (1.0 - keep.get(path, 0.0)) * (1.0 - min(value, 1.0))
    return keep


def _changelog_habits(graph: GraphReader, repo: str) -> dict[str, float]:
    """Changelog-like files and the share of the repository's newest commits that touched them.

    Reads only the newest ``_HABIT_WINDOW`` commits, which the graph keeps in order as it folds them,
    so the cost does not grow with the history and no rescan follows a change of the graph.
    """
    window = graph.newest_commits(repo, _HABIT_WINDOW)
    hits: dict[str, int] = defaultdict(int)
    for cidx, _ in window:
        for f in graph.commit_files(cidx):
            if _CHANGELOG.match(f.path.rsplit("/", 1)[-1]) and alive_now(f.life):
                hits[f.path] += 1
    return {p: n / len(window) for p, n in hits.items()}


def _named_tests(graph: GraphReader, repo: str, path: str) -> list[str]:
    """Test files named after ``path`` (same extension), anywhere in the repository."""
    base = path.rsplit("/", 1)[-1]
    stem, dot, ext = base.partition(".")
    if not stem or is_test_path(path):
        return []
    ext = dot + ext
    names = (f"test_{stem}", f"{stem}_test", f"{stem}_tests", f"{stem}.test", f"{stem}.spec", f"Test{stem}")
    found = {p for n in names for p in graph.files_named(repo, n + ext)}
    return sorted(p for p in found if is_test_path(p))


def missing_changes(
    graph: GraphReader,
    repo: str,
    *,
    files: list[tuple[str, int]],
    changed: list[tuple[int, ChangedSymbol]],
    dependents: list[Dependent],
    exclude: set[str],
    limit: int = 20,
) -> list[MissingChange]:
    """Ranked likely-missing changes for a diff of ``files`` ((path, node index)) and ``changed``."""
    scores = _Scores(exclude)
    by_file = [(path, *_cochange(graph, fidx)) for path, fidx in files]
    history = _noisy_or([s for _, s, _ in by_file])
    for path, share in history.items():
        counts = ", ".join(f"{p} ({n} commits)" for p, _, n in by_file if n)
        scores.add(path, share, f"changed together with {counts}: {share:.0%} of their recent commits")
    for partner, share in sorted(history.items(), key=lambda p: (-p[1], p[0]))[:5]:
        pidx = graph.find(("file", repo, partner))
        if pidx is not None and partner not in exclude:
            for far, second in _cochange(graph, pidx)[0].items():
                scores.add(far, TWO_HOP * share * second, f"changes with {partner}, which changes with this")
    for d in dependents:
        if d.distance == 1 and d.path not in exclude:
            symbol = d.name if d.kind == "symbol" else ""
            scores.add(d.path, DEPENDENT_WEIGHT, f"{d.edge} `{d.via}`", symbol)
    for path, share in _noisy_or([_cochange(graph, idx)[0] for idx, _ in changed]).items():
        scores.add(
            path, SYMBOL_WEIGHT * share, f"changed in {share:.0%} of the commits to the changed symbols"
        )
    moved = {s.qualname: s for _, s in changed if s.signature_changed}
    for d in dependents:
        if d.distance == 1 and d.kind == "symbol" and d.via in moved:
            what = "is deleted" if moved[d.via].status == "deleted" else "has a new signature"
            scores.add(d.path, CALLER_SCORE, f"{d.edge} `{d.via}`, which {what}", d.name)
    if not any(is_test_path(p) for p in exclude):
        for path, _ in files:
            for test in _named_tests(graph, repo, path):
                scores.add(test, TEST_SCORE, f"tests {path} (by name)")
        for d in dependents:
            if is_test_path(d.path) and d.distance <= 2:
                scores.add(d.path, TEST_SCORE / (1 + d.distance), f"tests `{d.via}` ({d.edge})")
    if any(not is_test_path(p) for p, _ in files):
        for path, rate in _changelog_habits(graph, repo).items():
            if rate >= HABIT_MIN:
                why = f"the repository updates it in {rate:.0%} of its recent commits"
                scores.add(path, rate / 2, why)
    for _, fidx in files:
        near = [*graph.into(fidx, _IMPORTS), *graph.out(fidx, _IMPORTS)]
        for rank, (other, _) in enumerate(near):
            node = graph.node(other)
            if isinstance(node, FileNode) and alive_now(node.life):
                scores.add(node.path, GRAPH_WEIGHT / (1 + rank), "imports or is imported by a changed file")
    return scores.ranked(limit)
