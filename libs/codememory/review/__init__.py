"""Review a change against the code graph: what it changes, what depends on it, how risky it is, what
it probably forgot, the memories about that code and the commits that explain it.

A pure library (no NATS, no gRPC): ``review(graph, repo, diff)`` reads one tenant's ``CodeGraph``; the
gateway's ReviewDiff, the CLI's ``codememory review`` and the MCP tool ``review_diff`` all go through it.
"""

from codememory.review.diffs import MAX_DIFF_CHARS, FileDiff, parse_diff
from codememory.review.engine import Limits, review, review_files
from codememory.review.errors import GitDiffError, InvalidDiffError, ReviewError
from codememory.review.gitdiff import git_diff
from codememory.review.model import (
    ChangedSymbol,
    Dependent,
    HistoryCommit,
    LinkedMemory,
    MissingChange,
    Review,
    ReviewFile,
    Risk,
    RiskPart,
)

__all__ = [
    "MAX_DIFF_CHARS",
    "ChangedSymbol",
    "Dependent",
    "FileDiff",
    "GitDiffError",
    "HistoryCommit",
    "InvalidDiffError",
    "Limits",
    "LinkedMemory",
    "MissingChange",
    "Review",
    "ReviewError",
    "ReviewFile",
    "Risk",
    "RiskPart",
    "git_diff",
    "parse_diff",
    "review",
    "review_files",
]
