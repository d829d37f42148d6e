"""Which repository a directory belongs to: its work tree, branch, and identity (not its folder's name).

Why it exists: every memory, code fact and commit is keyed by repository, and the hook, the CLI
(``index``, ``record-commit``, graph queries), the post-commit hook and the graph service must all name
the same repository the same way. A folder's name is not an identity: two projects both checked out as
``app`` (or a fork beside its upstream) would share one graph and one history, and indexing the second
with ``--history`` asked for commits the first one recorded.

The identity, first rule that applies:

1. The ``origin`` remote (else the first remote in ``config``) as ``host/path`` without scheme, user,
   port or ``.git`` (``git@github.com:Acme/App.git`` and ``https://github.com/Acme/App`` are both
   ``github.com/Acme/App``): every clone and every worktree of one upstream is one repository, and a
   fork (another path) is another. A remote that is a local path (``git clone /src/app``) is followed
   to that repository's identity (up to 4 hops), so a local clone is the repository it was cloned from.
2. Else the absolute path of the main work tree (a linked worktree names its main one through
   ``commondir``), so two unrelated local repositories never collide; moving such a repository makes it
   a new one. A directory that is not in a git work tree is named by its resolved path.

The root commit was considered and rejected: a fork shares it with its upstream, and reading it needs
``git`` (a subprocess per hook call costs more than the hook's whole budget). Everything here reads
``.git`` files directly and imports only the standard library (the hook imports it).
"""

from __future__ import annotations

import os

__all__ = ["find_git", "normalise_remote", "repository_identity"]

_MAX_HOPS = 4


def find_git(cwd: str) -> tuple[str, str, str]:
    """(repo identity, work tree root, branch) of the git work tree holding ``cwd``; ``''`` when unknown."""
    try:
        directory = os.path.abspath(cwd)
        for _ in range(128):
            dotgit = os.path.join(directory, ".git")
            if os.path.isdir(dotgit) or os.path.isfile(dotgit):
                gitdir = _gitdir(directory)
                branch = _branch(gitdir) if gitdir else ""
                return repository_identity(directory), directory, branch
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
    except (OSError, ValueError):
        pass
    return "", "", ""


def repository_identity(root: str, _hops: int = 0) -> str:
    """The identity of the repository whose work tree (or bare git directory) is ``root``."""
    root = os.path.abspath(root)
    gitdir = _gitdir(root) or (root if os.path.isfile(os.path.join(root, "HEAD")) else "")
    if not gitdir:
        return os.path.realpath(root)
    common = _common_dir(gitdir)
    url = _remote_url(os.path.join(common, "config"))
    if url:
        local = _local_path(url, root)
        if local is None:
            return normalise_remote(url)
        if _hops < _MAX_HOPS and os.path.isdir(local):
            return repository_identity(local, _hops + 1)
        return os.path.realpath(local)
    if os.path.basename(common) == ".git":
        return os.path.realpath(os.path.dirname(common))  # the main work tree
    return os.path.realpath(common if common != gitdir else root)


def normalise_remote(url: str) -> str:
    """``host/path`` of a remote URL: no scheme, user, port, ``.git`` or trailing slash; host lowercased."""
    rest = url.strip()
    if "://" in rest:
        rest = rest.split("://", 1)[1]
        host, _, path = rest.partition("/")
    else:  # scp-like: [user@]host:path
        host, _, path = rest.partition(":")
    host = host.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    path = path.strip("/")
    path = path.removesuffix(".git").rstrip("/")
    return f"{host}/{path}" if path else host


def _gitdir(work_tree: str) -> str:
    dotgit = os.path.join(work_tree, ".git")
    if os.path.isdir(dotgit):
        return dotgit
    if os.path.isfile(dotgit):  # linked worktree or submodule: "gitdir: <path>"
        with open(dotgit, encoding="utf-8") as fh:
            line = fh.readline().strip()
        if line.startswith("gitdir:"):
            return os.path.normpath(os.path.join(work_tree, line[len("gitdir:") :].strip()))
    return ""


def _common_dir(gitdir: str) -> str:
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            return os.path.normpath(os.path.join(gitdir, fh.readline().strip()))
    except OSError:
        return gitdir


def _remote_url(config: str) -> str:
    """The ``origin`` URL in a git config file, else the first remote's URL; ``''`` when none."""
    try:
        with open(config, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return ""
    section, urls = "", dict[str, str]()
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section.startswith("remote ") and line.split("=", 1)[0].strip().lower() == "url":
            name = section[len("remote ") :].strip().strip('"')
            urls.setdefault(name, line.split("=", 1)[1].strip().strip('"'))
    return urls.get("origin") or next(iter(urls.values()), "")


def _local_path(url: str, root: str) -> str | None:
    """The directory a local remote names (``/src/app``, ``../app``, ``file:///src/app``), else None."""
    if url.startswith("file://"):
        return url[len("file://") :]
    if "://" in url:
        return None
    head = url.split("/", 1)[0]
    if ":" in head and not (len(head) == 2 and head[1] == ":"):
        return None  # scp-like host:path (a Windows drive letter is a path)
    return os.path.normpath(os.path.join(root, url))


def _branch(gitdir: str) -> str:
    try:
        with open(os.path.join(gitdir, "HEAD"), encoding="utf-8") as fh:
            head = fh.readline().strip()
    except (OSError, ValueError):
        return ""
    prefix = "ref: refs/heads/"
    return head[len(prefix) :] if head.startswith(prefix) else ""  # detached HEAD -> ''
