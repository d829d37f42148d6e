"""What the review reads of a code graph: a file's symbols, the commits of a node, a commit's files.

Why a module of its own: the review's parts (changed, dependents, risk, missing, history) read the same
few things, through the graph store's public primitives (``find``, ``out``, ``into``, ``lock``) and never
its internal dicts, so a change of the store's layout touches this file only. Every function here is
called with the graph's lock held (``engine.review`` takes it once for the whole review).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterator

from codememory.codegraph import CodeGraph
from codememory.codegraph.model import CommitNode, FileNode, SymbolNode, alive_now

__all__ = [
    "FIX",
    "MAX_COMMIT_FILES",
    "commit_files",
    "commits_of",
    "file_index",
    "is_test_path",
    "symbols_in",
]

CONTAINS = frozenset({"contains"})
MODIFIED_BY = frozenset({"modified_by"})
MAX_COMMIT_FILES = 30  # like the graph's co-change: a larger commit says little about what belongs together
FIX = re.compile(r"\b(fix(e[sd])?|bug|bugfix|regression|revert(s|ed)?|hotfix|broken|crash(es)?)\b", re.I)
_TEST_DIR = re.compile(r"(^|/)(tests?|__tests__|spec|testing)/")
_TEST_FILE = re.compile(
    r"(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.(test|spec)\.\w+|[^/]*Tests?\.(java|kt|cs|swift)|conftest\.py)$"
)


def is_test_path(path: str) -> bool:
    return bool(_TEST_DIR.search(path) or _TEST_FILE.search(path))


def file_index(graph: CodeGraph, repo: str, path: str) -> int | None:
    """The current file node of ``path`` in ``repo``, or None."""
    idx = graph.find(("file", repo, path))
    if idx is None:
        return None
    node = graph.g[idx]
    return idx if isinstance(node, FileNode) and alive_now(node.life) else None


def symbols_in(graph: CodeGraph, fidx: int) -> Iterator[tuple[int, SymbolNode]]:
    """Every current symbol a file contains, at any depth (classes contain methods contain closures)."""
    stack = [fidx]
    seen = {fidx}
    while stack:
        for dst, _ in graph.out(stack.pop(), CONTAINS):
            node = graph.g[dst]
            if dst not in seen and isinstance(node, SymbolNode) and alive_now(node.life):
                seen.add(dst)
                stack.append(dst)
                yield dst, node


_memo = threading.local()  # one review at a time per thread; the graph cannot change while it holds the lock


def commits_of(graph: CodeGraph, idx: int) -> list[tuple[int, CommitNode]]:
    """The recorded commits that modified a file or symbol, oldest first (kept while the graph is
    unchanged: risk, missing and history ask for the same nodes)."""
    ref = getattr(_memo, "graph", None)
    if ref is None or ref() is not graph or _memo.version != graph.version:
        _memo.graph, _memo.version, _memo.commits = weakref.ref(graph), graph.version, {}
    found: list[tuple[int, CommitNode]] | None = _memo.commits.get(idx)
    if found is None:
        nodes = [(dst, graph.g[dst]) for dst, _ in graph.out(idx, MODIFIED_BY)]
        commits = [(i, c) for i, c in nodes if isinstance(c, CommitNode) and c.recorded]
        found = _memo.commits[idx] = sorted(commits, key=lambda p: (p[1].authored_at, p[1].sha))
    return found


def commit_files(graph: CodeGraph, cidx: int) -> list[FileNode]:
    """The files a commit modified."""
    return [n for src, _ in graph.into(cidx, MODIFIED_BY) if isinstance(n := graph.g[src], FileNode)]
