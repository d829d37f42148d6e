"""Folding git history: commits, their parents, what they modified, renames and co-change counts.

Why: the temporal layer. A commit adds ``modified_by`` edges from each file (and each symbol named in
``FileChange.symbols``) to the commit, ``parent`` edges to its parents, and per-symbol change times (a
symbol's ``changed_at`` is the latest of its changes). Files become alive (or, when deleted, dead) at the
authored time, so ``graph_as_of`` answers for the past even when the repository was indexed later.

Renames: the new path inherits the old path's change history, ``modified_by`` edges and co-change
counts, and the old path ends at the rename. Symbol qualnames follow the module path, so they are not
carried over (a re-extraction of the new file brings its symbols).

Co-change: every pair of files changed together in one commit adds 1 to their ``co_changed`` edge (one
edge per pair, stored from the smaller key to the larger). Commits touching more than
``COCHANGE_MAX_FILES`` files (mass reformatting, vendoring) are not counted: they say little about which
files belong together and cost a quadratic number of pairs.
"""

from __future__ import annotations

import bisect
from itertools import combinations

from codememory.codegraph.model import CommitNode, FileNode, SymbolNode, mark
from codememory.codegraph.store import GraphStore
from codememory.events import CommitRecorded

__all__ = ["COCHANGE_MAX_FILES", "apply_commit", "bump_cochange"]

COCHANGE_MAX_FILES = 30


def apply_commit(graph: GraphStore, event: CommitRecorded) -> None:
    at = event.authored_at
    graph.repo(event.repo)
    cidx, commit = graph.ensure(CommitNode(event.repo, event.sha))
    if not commit.recorded:  # the repository's commits in authored order (a changelog habit reads the newest)
        bisect.insort(graph.commit_order.setdefault(event.repo, []), (at, event.sha, cidx))
    elif commit.authored_at != at:  # recorded again with another time: keep the order true
        order = graph.commit_order[event.repo]
        order.remove((commit.authored_at, event.sha, cidx))
        bisect.insort(order, (at, event.sha, cidx))
    commit.authored_at, commit.author, commit.recorded = at, event.author, True
    commit.summary = event.message.split("\n", 1)[0][:200]
    for parent in event.parents:
        pidx, _ = graph.ensure(CommitNode(event.repo, parent))
        graph.link(cidx, pidx, "parent")
    touched: list[int] = []
    for change in event.files:
        if change.status == "renamed" and change.old_path:
            _rename(graph, event.repo, change.old_path, change.path, at)
        fidx, file = graph.ensure(FileNode(event.repo, change.path))
        mark(file.life, at, change.status != "deleted")
        file.changes.append((at, "", event.sha))
        file.changes.sort()
        graph.link(fidx, cidx, "modified_by")
        if change.status != "deleted":
            touched.append(fidx)
        for qualname in change.symbols:
            sidx = graph.find(("symbol", event.repo, qualname))
            if sidx is None:
                graph.early_history.setdefault((event.repo, qualname), []).append((at, event.sha))
                continue
            symbol = graph.g[sidx]
            assert isinstance(symbol, SymbolNode)
            symbol.history.append((at, "", event.sha))
            symbol.history.sort()
            symbol.changed_at = max(symbol.changed_at or at, at)
            graph.link(sidx, cidx, "modified_by")
    if len(touched) <= COCHANGE_MAX_FILES:
        for a, b in combinations(sorted(set(touched), key=lambda i: graph.g[i].key), 2):
            bump_cochange(graph, a, b, 1.0)


def bump_cochange(graph: GraphStore, a: int, b: int, by: float) -> None:
    src, dst = sorted((a, b), key=lambda i: graph.g[i].key)
    edge = graph.link(src, dst, "co_changed", 0.0)
    edge.weight += by


def _rename(graph: GraphStore, repo: str, old_path: str, new_path: str, at: float) -> None:
    oidx = graph.find(("file", repo, old_path))
    if oidx is None:
        return
    old = graph.g[oidx]
    assert isinstance(old, FileNode)
    nidx, new = graph.ensure(FileNode(repo, new_path))
    new.changes = sorted({*new.changes, *old.changes})
    for dst, edge in list(graph.out(oidx, frozenset({"modified_by"}))):
        graph.link(nidx, dst, edge.kind)
    cochanged = [*graph.out(oidx, frozenset({"co_changed"})), *graph.into(oidx, frozenset({"co_changed"}))]
    for other, edge in cochanged:
        if other != nidx:
            bump_cochange(graph, nidx, other, edge.weight)
    mark(old.life, at, False)
