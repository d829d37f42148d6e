"""``review``: a diff against one tenant's code graph, in one read of the graph.

Why one entry point: the gateway's ReviewDiff, the benchmarks and the tests ask the same question and
must get the same answer; the parts (``changed``, ``dependents``, ``risk``, ``missing``, ``memories``,
``history``) each live in their own module and read the graph through a ``GraphReader``: the whole
review is one ``codegraph.queries.read``, so it sees one state between two folded events without
holding the fold up on a quiet graph; suspect memories are asked of the graph's relevance (a query of
its own, which takes the lock).
"""

from __future__ import annotations

import time

from codememory.codegraph import CodeGraph, queries
from codememory.codegraph.centrality import CentralitySnapshot
from codememory.codegraph.reader import GraphReader
from codememory.review.changed import changed_symbols
from codememory.review.dependents import walk_dependents
from codememory.review.diffs import FileDiff, parse_diff
from codememory.review.errors import InvalidDiffError
from codememory.review.history import explaining_commits
from codememory.review.memories import Suspects, linked_memories
from codememory.review.missing import missing_changes
from codememory.review.model import Review, ReviewFile
from codememory.review.risk import assess

__all__ = ["Limits", "review", "review_files"]


class Limits:
    """How much of each part a review answers (the nearest, the highest ranked)."""

    def __init__(
        self,
        *,
        depth: int = 3,
        dependents: int = 200,
        missing: int = 20,
        memories: int = 20,
        history: int = 8,
    ) -> None:
        if not 1 <= depth <= 10 or min(dependents, missing, memories, history) < 1:
            raise InvalidDiffError("depth must be 1..10 and every limit >= 1")
        self.depth, self.dependents, self.missing = depth, dependents, missing
        self.memories, self.history = memories, history


def review(
    graph: CodeGraph,
    repo: str,
    diff: str,
    *,
    centrality: CentralitySnapshot | None = None,
    suspects: Suspects | None = None,
    limits: Limits | None = None,
    now: float | None = None,
    side: str = "old",
) -> Review:
    """Review the unified diff ``diff`` of repository ``repo``; an empty diff is an empty review.

    ``side`` says which side of the diff the graph recorded: "old" (the work tree against the indexed
    commit) or "new" (a range ending at the indexed commit).
    """
    if not repo.strip():
        raise InvalidDiffError("name the repository the diff belongs to")
    files = parse_diff(diff, side)
    return review_files(graph, repo, files, centrality=centrality, suspects=suspects, limits=limits, now=now)


def review_files(
    graph: CodeGraph,
    repo: str,
    files: list[FileDiff],
    *,
    centrality: CentralitySnapshot | None = None,
    suspects: Suspects | None = None,
    limits: Limits | None = None,
    now: float | None = None,
) -> Review:
    """Review changed line ranges per file (what ``parse_diff`` makes of a diff), as one read of the
    graph (``queries.read``: it sees one state, and a quiet graph's fold is not held up by it)."""
    limits = limits or Limits()
    now = time.time() if now is None else now
    snapshot = centrality or CentralitySnapshot()
    return queries.read(graph, lambda reader: _review(reader, repo, files, snapshot, suspects, limits, now))


def _review(
    graph: GraphReader,
    repo: str,
    files: list[FileDiff],
    centrality: CentralitySnapshot,
    suspects: Suspects | None,
    limits: Limits,
    now: float,
) -> Review:
    changed, known, unknown = changed_symbols(graph, repo, files)
    located = [(change.path, fidx) for change, fidx in known]
    roots = [idx for idx, _ in changed] + [fidx for _, fidx in located]
    reach = walk_dependents(graph, roots, max_depth=limits.depth)
    tested = {r: 1.0 for r in reach.tested_roots}
    for idx, symbol in changed:
        file_root = next((f for p, f in located if p == symbol.path), None)
        if idx not in tested and file_root in reach.tested_roots:
            tested[idx] = 0.5
    exclude = {p for f in files for p in (f.path, f.new_path)}
    risk = assess(
        graph,
        centrality=centrality,
        changed=[idx for idx, _ in changed],
        files=[fidx for _, fidx in located],
        direct_dependents=sum(1 for d in reach.dependents if d.distance == 1),
        tested=tested,
        now=now,
    )
    missing = missing_changes(
        graph,
        repo,
        files=located,
        changed=changed,
        dependents=reach.dependents,
        exclude=exclude,
        limit=limits.missing,
    )
    memories = linked_memories(graph, changed, located, suspects, limits.memories)
    history = explaining_commits(graph, changed, located, limits.history)
    return Review(
        repo=repo,
        files=tuple(
            ReviewFile(
                path=f.new_path if f.side == "old" else f.path,
                old_path=f.path if f.side == "old" else f.new_path,  # new_path: the other side
                status=f.status,
                indexed=(f.new_path if f.side == "old" else f.path) not in unknown,
                added_lines=f.added,
                deleted_lines=f.deleted,
            )
            for f in files
        ),
        changed=tuple(s for _, s in changed),
        dependents=tuple(reach.dependents[: limits.dependents]),
        risk=risk,
        missing=tuple(missing),
        memories=tuple(memories),
        history=tuple(history),
    )
