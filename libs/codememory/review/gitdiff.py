"""The change to review as ``git diff`` text: the work tree, the index, or a range of commits.

Why here: the CLI (``codememory review --staged``/``--range``) and the MCP tool (the work tree against
a base) both need git's diff of a project, and one function runs git the same way for both: no colour,
no external diff tool, no context lines (the review reads changed lines only).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from codememory.review.errors import GitDiffError

__all__ = ["git_diff"]

_ARGS = ["diff", "--no-color", "--no-ext-diff", "--unified=0"]


def git_diff(project: Path, *, base: str = "HEAD", staged: bool = False, span: str = "") -> str:
    """``git diff`` in ``project``: ``span`` (``A..B``), else the index (``staged``) or the work tree
    against ``base``; a ref that looks like an option is refused."""
    refs = [r for r in (span.split("..") if span else [base]) if r]
    if any(r.startswith("-") for r in refs) or (span and len(refs) != 2):
        raise GitDiffError(f"name a commit or ref (A..B for a range), got {span or base!r}")
    what = [span] if span else (["--cached", base] if staged else [base])
    try:
        done = subprocess.run(
            ["git", *_ARGS, *what, "--"], cwd=project, capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitDiffError(f"cannot run git diff in {project}: {exc}") from exc
    if done.returncode != 0:
        raise GitDiffError(
            f"git diff {' '.join(what)} failed in {project}: {done.stderr.decode(errors='replace')}"
        )
    return done.stdout.decode(errors="replace")
