"""Typed errors for reading git history.

Why it exists: callers (the post-commit hook, the backfill command, benchmarks) need to tell "this
is not a git repository" apart from "git itself failed" and from "you asked for a commit that does
not exist", and print each clearly. All subclass ``GitHistoryError`` so one ``except`` catches them.
"""

from __future__ import annotations

from pathlib import Path


class GitHistoryError(Exception):
    """Base of every error raised by ``codememory.githistory``."""


class NotAGitRepositoryError(GitHistoryError, ValueError):
    """The path is not inside a git work tree (or git directory)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"not a git repository: {path}")


class GitCommandError(GitHistoryError):
    """A git subprocess failed; ``stderr`` holds what git said."""

    def __init__(self, args: list[str], returncode: int, stderr: str) -> None:
        self.args_run = tuple(args)
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(f"git {' '.join(args)} exited {returncode}: {self.stderr}")


class UnknownRevisionError(GitHistoryError, ValueError):
    """A revision (sha, branch, range bound) does not name a commit in this repository."""

    def __init__(self, revision: str) -> None:
        self.revision = revision
        super().__init__(f"unknown revision: {revision!r}")
