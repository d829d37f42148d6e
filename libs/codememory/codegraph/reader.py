"""``GraphReader``: one consistent state of a graph, for a reader that asks many small questions.

Why: a review (``codememory.review``) asks hundreds of small questions of one state (a file's symbols,
the commits of each changed node, each commit's files, who imports a file) and must see no fold
between them. A query per question would take the lock hundreds of times and could see a fold in
between; handing the review the store would let it reach into the graph's dicts and lock. So
``queries.read(graph, fn)`` gives ``fn`` a reader of one state (see there how the state is kept
consistent) and this class is all ``fn`` can ask: read-only, nodes by index, edges by kind. It is
only valid inside ``fn``: node records are the graph's own, and the review copies what it answers
into frozen values (``codememory.review.model``).

Repeated reads are kept for the reader's life (a review asks the same commits for risk, missing and
history): ``commits_of`` and ``commit_files`` are memoised per reader.
"""

from __future__ import annotations

from collections.abc import Iterator

from codememory.codegraph.model import CommitNode, Edge, FileNode, Key, Node, SymbolNode, alive_now
from codememory.codegraph.store import GraphStore

__all__ = ["GraphReader"]

_MODIFIED_BY = frozenset({"modified_by"})


class GraphReader:
    """Read-only questions over one state of a graph (see the module docstring)."""

    def __init__(self, store: GraphStore) -> None:
        self._store = store
        self._commits: dict[int, list[tuple[int, CommitNode]]] = {}
        self._files: dict[int, list[FileNode]] = {}

    @property
    def tenant(self) -> str:
        return self._store.tenant

    @property
    def version(self) -> int:
        """Bumped by every folded event: a cache keyed by it is fresh while it is equal."""
        return self._store.version

    def node(self, idx: int) -> Node:
        return self._store.g[idx]

    def key(self, idx: int) -> Key:
        return self._store.g[idx].key

    def find(self, key: Key) -> int | None:
        return self._store.find(key)

    def out(self, idx: int, kinds: frozenset[str] | None = None) -> Iterator[tuple[int, Edge]]:
        return self._store.out(idx, kinds)

    def into(self, idx: int, kinds: frozenset[str] | None = None) -> Iterator[tuple[int, Edge]]:
        return self._store.into(idx, kinds)

    def current_file(self, repo: str, path: str) -> int | None:
        """The index of ``path`` in ``repo`` while the file is current, else None."""
        idx = self._store.find(("file", repo, path))
        if idx is None:
            return None
        node = self._store.g[idx]
        return idx if isinstance(node, FileNode) and alive_now(node.life) else None

    def symbols_in(self, fidx: int) -> Iterator[tuple[int, SymbolNode]]:
        """Every current symbol a file contains, at any depth (classes contain methods contain closures)."""
        g = self._store.g
        for idx in self._store.contained(fidx):
            node = g[idx]
            if isinstance(node, SymbolNode) and alive_now(node.life):
                yield idx, node

    def commits_of(self, idx: int) -> list[tuple[int, CommitNode]]:
        """The recorded commits that modified a file or symbol, oldest first."""
        found = self._commits.get(idx)
        if found is None:
            nodes = [(dst, self._store.g[dst]) for dst, _ in self._store.out(idx, _MODIFIED_BY)]
            commits = [(i, c) for i, c in nodes if isinstance(c, CommitNode) and c.recorded]
            found = self._commits[idx] = sorted(commits, key=lambda p: (p[1].authored_at, p[1].sha))
        return found

    def commit_files(self, cidx: int) -> list[FileNode]:
        """The files a commit modified."""
        found = self._files.get(cidx)
        if found is None:
            g = self._store.g
            into = self._store.into(cidx, _MODIFIED_BY)
            found = self._files[cidx] = [n for src, _ in into if isinstance(n := g[src], FileNode)]
        return found

    def newest_commits(self, repo: str, limit: int) -> list[tuple[int, CommitNode]]:
        """The repository's ``limit`` newest recorded commits, newest first (no scan: the fold keeps the
        order)."""
        order = self._store.commit_order.get(repo, [])
        found = []
        for _, _, cidx in reversed(order[-limit:] if limit else []):
            commit = self._store.g[cidx]
            assert isinstance(commit, CommitNode)
            found.append((cidx, commit))
        return found

    def commit_count(self, repo: str) -> int:
        """How many commits of ``repo`` are recorded (a cache over history is fresh while it is equal)."""
        return len(self._store.commit_order.get(repo, ()))

    def files_named(self, repo: str, basename: str) -> list[str]:
        """Paths in ``repo`` whose file name is ``basename``."""
        return sorted(p for r, p in self._store.basenames.get(basename, ()) if r == repo)
