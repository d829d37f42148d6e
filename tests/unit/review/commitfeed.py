"""Commits folded into a code graph by day, for the review library's history tests."""

from __future__ import annotations

from datetime import UTC, datetime

from codememory.codegraph import CodeGraph
from codememory.events import CommitRecorded, FileChange, new_envelope

REPO = "acme/app"


def fold_commits(graph: CodeGraph, commits: list[tuple[int, list[str]]], status: str = "modified") -> None:
    """Each (day, paths) as a commit of ``REPO`` authored that day, in the order given."""
    for n, (day, paths) in enumerate(commits, start=graph.last_seq + 1):
        event = CommitRecorded(
            repo=REPO,
            sha=f"{day:040d}",
            parents=(),
            authored_at=day * 86400.0,
            message=f"change {day}",
            files=tuple(FileChange(path=p, status=status) for p in paths),
        )
        at = datetime.fromtimestamp(day * 86400.0, UTC)
        graph.apply(new_envelope(event, event_id=f"e{n}", tenant="t", occurred_at=at), n)
