"""What a review can report, so its callers (the gateway's ReviewDiff, the CLI) handle one small tree.

ReviewError              a review could not be made
├── InvalidDiffError     the diff is not a unified diff we can read, or is too large to be a review
└── GitDiffError         ``git diff`` could not be run or failed (bad ref, not a work tree)
"""

from __future__ import annotations

__all__ = ["GitDiffError", "InvalidDiffError", "ReviewError"]


class ReviewError(Exception):
    """Base of the review errors."""


class InvalidDiffError(ReviewError):
    """The diff given cannot be reviewed (too large, or names no file)."""


class GitDiffError(ReviewError):
    """Running ``git diff`` for the change to review failed."""
