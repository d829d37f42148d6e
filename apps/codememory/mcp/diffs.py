"""The project's own change for ``review_diff`` when the agent gives no diff: ``git diff <base>``.

Reading the diff is the review library's (``codememory.review``, behind the gateway's ReviewDiff);
running git is too (``codememory.review.git_diff``, shared with ``codememory review``). This module only
runs it off the event loop and turns its failure into a tool error.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from codememory.mcp.errors import InvalidArgumentError
from codememory.review import GitDiffError, git_diff

__all__ = ["working_diff"]


async def working_diff(project: Path, base: str) -> str:
    """``git diff <base>`` of the project's work tree (staged and unstaged), with no context lines."""
    try:
        return await asyncio.to_thread(git_diff, project, base=base)
    except GitDiffError as exc:
        raise InvalidArgumentError(str(exc)) from exc
