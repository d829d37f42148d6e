"""The files of a repository, streamed, as git would list them.

Why it exists: indexing must start parsing before the listing is finished and must skip what the
project ignores. In a git work tree the listing is ``git ls-files --cached --others
--exclude-standard -z`` read incrementally (git's own rules, including ``.git/info/exclude`` and the
global excludes file); elsewhere a directory walk applies nested ``.gitignore`` files (``gitignore``)
and always skips ``.git``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from codememory.code import gitignore
from codememory.code.errors import NotARepositoryError, WalkError
from codememory.hookclient.gitrepo import repository_identity

_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class RepoFile:
    """One file: repo-relative posix ``path``, ``absolute`` path, ``size`` in bytes."""

    path: str
    absolute: Path
    size: int


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def is_git_work_tree(root: Path) -> bool:
    return _git(root, "rev-parse", "--is-inside-work-tree") == "true"


def walk_repository(root: Path) -> Iterator[RepoFile]:
    """Every regular file of ``root`` that is not ignored, as soon as it is known."""
    if not root.is_dir():
        raise NotARepositoryError(root)
    root = root.resolve()
    if is_git_work_tree(root):
        yield from _walk_git(root)
    else:
        yield from _walk_plain(root, "", [])


def _walk_git(root: Path) -> Iterator[RepoFile]:
    args = ["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", "-z"]
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        pending = b""
        previous = ""
        while chunk := os.read(proc.stdout.fileno(), _CHUNK):
            pending += chunk
            *names, pending = pending.split(b"\0")
            for raw in names:
                path = os.fsdecode(raw)
                if path == previous:  # unmerged entries are listed once per stage
                    continue
                previous = path
                found = _regular(root, path)
                if found is not None:
                    yield found
        stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        if proc.wait() != 0:
            raise WalkError(f"git ls-files failed in {root}: {stderr.strip()}")


def _regular(root: Path, path: str) -> RepoFile | None:
    absolute = root / path
    try:
        stat = absolute.lstat()
    except OSError:  # listed in the index but deleted from the work tree
        return None
    if not os.path.isfile(absolute) or os.path.islink(absolute):
        return None
    return RepoFile(path, absolute, stat.st_size)


def _walk_plain(directory: Path, base: str, layers: list[gitignore.IgnoreFile]) -> Iterator[RepoFile]:
    own = gitignore.load(directory, base)
    if own is not None:
        layers = [*layers, own]
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        raise WalkError(f"cannot list {directory}: {exc}") from exc
    for entry in entries:
        if entry.name == ".git":
            continue
        path = f"{base}/{entry.name}" if base else entry.name
        is_dir = entry.is_dir(follow_symlinks=False)
        if gitignore.is_ignored(layers, path, is_dir):
            continue
        if is_dir:
            yield from _walk_plain(Path(entry.path), path, layers)
        elif entry.is_file(follow_symlinks=False):
            yield RepoFile(path, Path(entry.path), entry.stat(follow_symlinks=False).st_size)


def repo_name(root: Path) -> str:
    """The repository's identity (``hookclient.gitrepo``: its remote, else its main work tree's path)."""
    return repository_identity(str(root))
