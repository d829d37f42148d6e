"""The commits whose messages explain the changed code: the rationale ``git log -L`` or blame would find.

Why not only the latest commit: blame shows who touched a line last, and a later commit with a
misleading subject ("tidy up") hides the one that documented the rule ("compare tokens in constant
time: == leaks timing"). So every recorded commit that changed a changed symbol is a candidate (the
graph attributes commits to the symbols whose lines they changed), commits that changed only the file
are weaker candidates, and a message that gives a reason ranks above one that does not:

    score = (symbols it changed + 0.3 if it changed only the file) * (0.25 + rationale) + recency / 100

``rationale`` (0..1) counts the words by which a message explains itself (because, so that, must,
never, to avoid, instead of …) and a longer subject; ``recency`` (0..1) only breaks ties.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict

from codememory.codegraph.model import CommitNode
from codememory.codegraph.reader import GraphReader
from codememory.review.model import ChangedSymbol, HistoryCommit

__all__ = ["explaining_commits", "rationale"]

_REASONS = re.compile(
    r"\b(because|since|so that|so the|so it|in order to|to avoid|to prevent|avoids?|prevents?|must|"
    r"never|always|do not|don't|cannot|can't|instead of|otherwise|rule|required|requires?|ensures?|"
    r"keep|keeps|only|why|reason|decided|decision|policy|security|safe|leaks?|race|timing|"
    r"constant[- ]time|invariant)\b",
    re.I,
)
FILE_ONLY = 0.3


@functools.lru_cache(maxsize=8192)
def rationale(message: str) -> float:
    """How much a commit message explains itself, 0..1."""
    found = len(_REASONS.findall(message))
    longer = 0.15 if len(message) >= 50 else 0.0
    explained = 0.15 if re.search(r"[:;(—-]\s*\w+.*\w", message.split(":", 1)[-1]) else 0.0
    return min(1.0, 0.35 * found + longer + explained)


def explaining_commits(
    graph: GraphReader,
    changed: list[tuple[int, ChangedSymbol]],
    files: list[tuple[str, int]],
    limit: int = 8,
) -> list[HistoryCommit]:
    """The commits that explain the changed symbols (and files), most explanatory first."""
    touched: dict[int, list[str]] = defaultdict(list)
    nodes: dict[int, CommitNode] = {}
    for idx, symbol in changed:
        for cidx, commit in graph.commits_of(idx):
            touched[cidx].append(symbol.qualname)
            nodes[cidx] = commit
    by_file: dict[int, str] = {}
    for path, fidx in files:
        for cidx, commit in graph.commits_of(fidx):
            by_file.setdefault(cidx, path)
            nodes[cidx] = commit
    if not nodes:
        return []
    times = sorted(c.authored_at for c in nodes.values())
    span = (times[-1] - times[0]) or 1.0
    latest = max(nodes, key=lambda i: (nodes[i].authored_at, nodes[i].sha))
    found: list[HistoryCommit] = []
    for cidx, commit in nodes.items():
        symbols = tuple(dict.fromkeys(touched.get(cidx, ())))
        why = rationale(commit.summary)
        reach = len(symbols) or FILE_ONLY
        recency = (commit.authored_at - times[0]) / span
        what = ", ".join(f"`{s}`" for s in symbols[:3]) if symbols else by_file.get(cidx, "the file")
        reason = f"changed {what}" + ("; its message gives a reason" if why >= 0.35 else "")
        if cidx == latest:
            reason += " (the latest change: what blame shows)"
        found.append(
            HistoryCommit(
                sha=commit.sha,
                subject=commit.summary,
                authored_at=commit.authored_at,
                author=commit.author,
                score=round(reach * (0.25 + why) + recency / 100, 4),
                reason=reason,
                symbols=symbols,
            )
        )
    return sorted(found, key=lambda h: (-h.score, -h.authored_at, h.sha))[:limit]
