"""Install codememory's git ``post-commit`` hook next to whatever hook the user already has.

Why it exists: every commit should reach codememory's temporal layer (``codememory record-commit``
reads it with ``codememory.githistory.read_commit``), but a git hook is the user's file, often
written by hand or by another tool (pre-commit, husky). So the rule is the same as for agent
configs: merge, never clobber.

- A bare ``codememory`` is written as this installation's absolute path: git runs hooks with the
  committer's PATH, which need not include the virtualenv.
- The hook file is found with ``git rev-parse --git-path hooks``, which honours ``core.hooksPath``.
- Our lines live in ONE block between two marker comments. A second install finds the markers and
  writes nothing (to change the command: uninstall, then install); ``uninstall_post_commit``
  removes exactly that block (and the file, if nothing but a shebang is left in it).
- The block goes right after the shebang, not at the end: a user's hook that ends with ``exit 0``
  (or fails under ``set -e``) would otherwise never reach it.
- The command runs detached in the background with all output discarded and stdin closed, so a
  commit is never slowed down or failed by codememory.
- Only shell hooks are merged into; a hook in another language (``#!/usr/bin/env python``) is
  refused with ``HookConfigError`` and left untouched.
"""

from __future__ import annotations

import re
import stat
import subprocess
from pathlib import Path

from codememory.agents.errors import HookConfigError
from codememory.agents.executable import resolve_command
from codememory.agents.jsonfile import write_atomic
from codememory.githistory.errors import NotAGitRepositoryError

BEGIN = "# >>> codememory post-commit >>>"
END = "# <<< codememory post-commit <<<"
DEFAULT_COMMAND = "codememory record-commit"
_SHELLS = re.compile(r"^#!\s*(?:/usr/bin/env\s+)?(?:\S*/)?(?:sh|bash|dash|zsh|ksh|ash)\b")


def post_commit_path(repo_root: Path) -> Path:
    """Where git looks for this repository's post-commit hook (``core.hooksPath`` honoured)."""
    if not repo_root.is_dir():
        raise NotAGitRepositoryError(repo_root)
    done = subprocess.run(
        ["git", "rev-parse", "--git-path", "hooks"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise NotAGitRepositoryError(repo_root)
    hooks = Path(done.stdout.strip())
    return (hooks if hooks.is_absolute() else repo_root / hooks) / "post-commit"


def block(command: str = DEFAULT_COMMAND) -> str:
    """The marked lines we add to a hook for ``command``."""
    if not command.strip() or "\n" in command or "\r" in command:
        raise ValueError(f"hook command must be one non-empty line, got {command!r}")
    return (
        f"{BEGIN}\n"
        "# Records this commit in codememory, in the background: never slows or fails the commit.\n"
        f"( ( {command.strip()} ) </dev/null >/dev/null 2>&1 & ) >/dev/null 2>&1 || true\n"
        f"{END}\n"
    )


def install_post_commit(repo_root: Path, command: str = DEFAULT_COMMAND) -> Path:
    """Add our block to the post-commit hook (creating it if needed); return the hook's path."""
    path = post_commit_path(repo_root)
    ours = block(resolve_command(command))  # a bare `codememory` as its absolute path
    if path.exists():
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if BEGIN in text:
            _make_executable(path)
            return path
        first, _, rest = text.partition("\n")
        if not _SHELLS.match(first):
            raise HookConfigError(
                path, "not a shell script (no #!/bin/sh-style first line); add the hook by hand"
            )
        write_atomic(path, f"{first}\n{ours}{rest}")
    else:
        write_atomic(path, f"#!/bin/sh\n{ours}")
    _make_executable(path)
    return path


def uninstall_post_commit(repo_root: Path) -> Path:
    """Remove our block (only it); delete the hook file if nothing but a shebang is left."""
    path = post_commit_path(repo_root)
    if not path.exists():
        return path
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    start = text.find(BEGIN)
    if start < 0:
        return path
    stop = text.find(END, start)
    if stop < 0:
        raise HookConfigError(path, "codememory block has no end marker; fix it by hand")
    stop += len(END)
    if text[stop : stop + 1] == "\n":
        stop += 1
    remaining = text[:start] + text[stop:]
    lines = [line for line in remaining.splitlines() if line.strip()]
    if len(lines) <= 1 and (not lines or lines[0].startswith("#!")):
        path.unlink()
    else:
        write_atomic(path, remaining)
    return path


def _make_executable(path: Path) -> None:
    """Add execute permission wherever read permission is (like ``chmod +x`` under a 022 umask)."""
    target = path.resolve()
    mode = stat.S_IMODE(target.stat().st_mode)
    wanted = mode | stat.S_IXUSR | ((mode & (stat.S_IRGRP | stat.S_IROTH)) >> 2)
    if wanted != mode:
        target.chmod(wanted)
